// export_transactions: the list's filters as a CSV download, money in major units (the currency's
// digits) and exact minor units with the currency, tenancy, ability and 422 refusals, the SDK.
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { expectCredentialRefusals, subscribedMember } from "../subscriptions/commerce.ts";
import { createClient } from "../../../sdk/src/index.ts";
import { seedTransaction } from "./support.ts";

const csv = (text: string) => parse(text, { columns: true }) as Record<string, string>[];
const at = (iso: string) => new Date(iso);

describe("export_transactions", () => {
  const suite = useApiWithCreator({ creator: { label: "transactions-export" } });
  const path = (project: string) => `/v1/projects/${project}/transactions/export`;

  it("answers the matching transactions: money as major-unit decimals and exact minor units, ISO times, filters", async () => {
    const creator = await createTestCreator({ label: "tx-export" });
    const client = suite.client.withToken(creator.token);
    const sub = await subscribedMember(creator);
    const project = sub.plan.projectId;
    const paid = await seedTransaction(creator, sub, { amount: 1250, fee: 45, at: at("2026-10-01T00:00:00.000Z") });
    const stars = await seedTransaction(creator, sub, {
      amount: 250,
      currency: "XTR",
      provider: "telegram_stars",
      at: at("2026-10-02T00:00:00.000Z"),
    });
    const odd = await seedTransaction(creator, sub, { amount: 5, fee: 30, status: "failed", at: at("2026-10-03T00:00:00.000Z") });
    const res = await client.get(path(project));
    assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.match(res.headers.get("content-disposition")!, /^attachment; filename="[a-z0-9-]+-transactions-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = csv(res.body);
    assert.deepEqual(
      rows.slice(1, 4).map((r) => [r.id, r.currency, r.amount, r.amount_minor, r.fee, r.fee_minor, r.net, r.net_minor, r.created_at]),
      [
        [odd, "USD", "0.05", "5", "0.30", "30", "-0.25", "-25", "2026-10-03T00:00:00.000Z"],
        [stars, "XTR", "250", "250", "0", "0", "250", "250", "2026-10-02T00:00:00.000Z"],
        [paid, "USD", "12.50", "1250", "0.45", "45", "12.05", "1205", "2026-10-01T00:00:00.000Z"],
      ],
      "newest first (the redemption, now, leads); a negative amount is a number, not a defused formula",
    );
    assert.equal(rows.length, 4, "and the redemption");
    const ids = async (query: string) => csv((await client.get(`${path(project)}?${query}`)).body).map((r) => r.id);
    assert.deepEqual(await ids("currency=XTR"), [stars]);
    assert.deepEqual(await ids("status=failed"), [odd]);
    assert.deepEqual(await ids("kind=payment&from=2026-10-01T00:00:00Z&to=2026-10-03T00:00:00Z"), [stars, paid]);

    const sb = createClient({ baseUrl: suite.api.url, token: creator.token });
    const text = await sb.transactions.export(project, { currency: "XTR" });
    assert.deepEqual(
      csv(text).map((r) => r.id),
      [stars],
    );
  });

  it("refuses a bad filter (422), a foreign project (404), a missing ability (403)", async () => {
    const project = suite.creator.projectIds[0]!;
    const bad = expectError(await suite.client.get(`${path(project)}?currency=usd&kind=gift`), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(bad.fields).sort(), ["currency", "kind"]);
    const stranger = await createTestCreator({ label: "tx-export-stranger" });
    expectError(await suite.client.withToken(stranger.token).get(path(project)), 404, "RESOURCE_NOT_FOUND");
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: path(project), ability: "project-subscription:view-any" });
  });
});
