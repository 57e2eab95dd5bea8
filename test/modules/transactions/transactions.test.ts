// list_transactions: a redemption records its transaction; REST pages by number with the list
// envelope and the filters; the MCP tool pages by keyset (cursor, meta.next_cursor).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { connectMcp, startMcp, type RunningMcp } from "../../helpers/mcp.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { asDomain, codesFor, expectCredentialRefusals, redeem, seedPlan, subscribedMember } from "../subscriptions/commerce.ts";
import { createClient } from "../../../sdk/src/index.ts";
import { recordPayment } from "../../../src/modules/transactions/transactions.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { deliverDue } from "../../../src/workers/deliveries/worker.ts";
import { assertNoFee, assertValidEvent, eventsOf, type OutboxEvent } from "../../helpers/events.ts";
import { TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "../../helpers/server.ts";
import { createEndpoint, startReceiver } from "../webhooks/support.ts";
import { seedTransaction } from "./support.ts";

const ids = (body: { data: { id: string }[] }) => body.data.map((t) => t.id);
const at = (iso: string) => new Date(iso);

describe("list_transactions", () => {
  const suite = useApiWithCreator({ creator: { label: "transactions", projects: 2 } });
  let mcp: RunningMcp;
  before(async () => {
    mcp = await startMcp({ baseUrl: suite.api.url });
  });
  after(() => mcp?.close());
  const base = (project = suite.creator.projectIds[0]!) => `/v1/projects/${project}/transactions`;

  it("records a redemption's transaction with its subscription: nothing paid, the plan's price as list price", async () => {
    const plan = await seedPlan(suite.creator, { projectIndex: 1 });
    const [code] = await codesFor(suite.creator, plan);
    const redemption = await redeem(suite.creator, plan.projectId, code!);
    const { db } = await testDatabase();
    const codeId = (await db("access_codes").where({ subscription_id: redemption.subscription.id }).first("id")).id;
    const page = (await suite.client.get(base(plan.projectId))).body;
    assert.equal(page.meta.total, 1);
    assert.deepEqual(page.data[0], {
      id: page.data[0].id,
      project_id: plan.projectId,
      member_id: redemption.member.id,
      subscription_id: redemption.subscription.id,
      plan_id: plan.planId,
      kind: "access_code_redemption",
      status: "succeeded",
      amount: { amount: 0, currency: "USD" },
      list_price: { amount: 500, currency: "USD" },
      fee: { amount: 0, currency: "USD" },
      net: { amount: 0, currency: "USD" },
      provider: "access_code",
      payment_method_id: null,
      provider_reference: codeId,
      created_at: redemption.subscription.created_at,
    });
    // A refused redemption (the code is used) rolls back with everything else: no second row.
    await assert.rejects(redeem(suite.creator, plan.projectId, code!));
    assert.equal((await suite.client.get(base(plan.projectId))).body.meta.total, 1);
  });

  it("filters by status, kind, plan, currency and a created_at window; pages with the list envelope; sorts by amount", async () => {
    const creator = await createTestCreator({ label: "tx-filters", projects: 2 });
    const client = suite.client.withToken(creator.token);
    const first = await subscribedMember(creator);
    const second = await subscribedMember(creator);
    const [p1, p2] = creator.projectIds as [string, string];
    const paid = await seedTransaction(creator, first, { amount: 900, at: at("2026-10-01T00:00:00.000Z") });
    const failed = await seedTransaction(creator, first, { status: "failed", amount: 900, at: at("2026-10-02T00:00:00.000Z") });
    const euro = await seedTransaction(creator, second, { currency: "EUR", amount: 300, at: at("2026-10-03T00:00:00.000Z") });
    const refund = await seedTransaction(creator, second, { kind: "refund", amount: 100, at: at("2026-10-04T00:00:00.000Z") });
    // Rows of the other project and of another team never show.
    const elsewhere = await subscribedMember(creator, { projectIndex: 1 });
    const hidden = await seedTransaction(creator, elsewhere, { at: at("2026-10-02T12:00:00.000Z") });
    const stranger = await createTestCreator({ label: "tx-stranger" });
    await seedTransaction(stranger, await subscribedMember(stranger), { at: at("2026-10-02T12:00:00.000Z") });

    const all = (await client.get(`${base(p1)}?per_page=100`)).body;
    assert.equal(all.meta.total, 6, "two redemptions and four seeded rows");
    assert.ok(!ids(all).includes(hidden));
    assert.deepEqual(ids((await client.get(`${base(p2)}?per_page=100`)).body).length, 2);
    const query = async (q: string) => ids((await client.get(`${base(p1)}?${q}`)).body);
    assert.deepEqual(await query("status=failed"), [failed]);
    assert.deepEqual(await query("kind=refund"), [refund]);
    assert.deepEqual(await query("currency=EUR"), [euro]);
    assert.deepEqual((await query(`plan_id=${first.plan.planId}`)).slice(1), [failed, paid], "newest first: the redemption, then the rows");
    assert.deepEqual(await query(`plan_id=${elsewhere.plan.planId}`), [], "another project's plan names nothing here");
    assert.deepEqual(await query("from=2026-10-02T00:00:00.000Z&to=2026-10-04T00:00:00.000Z"), [euro, failed], "from inclusive, to exclusive");
    assert.deepEqual(await query("sort_by=amount&sort_direction=asc&kind=payment&status=succeeded"), [euro, paid]);

    const page = (await client.get(`${base(p1)}?per_page=2&page=2`)).body;
    assert.deepEqual(page.meta, { current_page: 2, from: 3, last_page: 3, per_page: 2, to: 4, total: 6 });
    assert.deepEqual(Object.keys(page).sort(), ["data", "links", "meta"]);
    assert.match(page.links.next, /page=3/);
    const past = (await client.get(`${base(p1)}?page=9`)).body;
    assert.deepEqual([past.data, past.meta.total], [[], 6]);
    // REST has no cursors: an unknown parameter is ignored, and the envelope never carries one.
    const uncursored = (await client.get(`${base(p1)}?cursor=abc`)).body;
    assert.deepEqual([ids(uncursored), Object.keys(uncursored.meta).sort()], [ids(all), Object.keys(page.meta).sort()]);
  });

  it("the tool pages by keyset: newest first, meta.next_cursor until the last page, unmoved by new rows", async () => {
    const creator = await createTestCreator({ label: "tx-keyset", projects: 2 });
    const member = await subscribedMember(creator);
    const times = ["2026-09-01", "2026-09-02", "2026-09-03", "2026-09-03", "2026-09-04"].map((d) => at(`${d}T00:00:00.000Z`));
    for (const t of times) await seedTransaction(creator, member, { at: t });
    const expected = ids((await suite.client.withToken(creator.token).get(`${base(creator.projectIds[0])}?per_page=100`)).body);
    assert.equal(expected.length, 6);
    const client = await connectMcp(mcp, creator.token, { headers: { "X-MCP-Toolsets": "transactions" } });
    const call = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: "list_transactions", arguments: { project: creator.projectIds[0], ...args } })) as {
        isError?: boolean;
        structuredContent: any;
      };
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 3; pages++) {
      const result = await call({ per_page: 2, ...(cursor ? { cursor } : {}) });
      assert.ok(!result.isError, JSON.stringify(result.structuredContent));
      assert.deepEqual(Object.keys(result.structuredContent).sort(), ["data", "meta"]);
      seen.push(...ids(result.structuredContent));
      cursor = result.structuredContent.meta.next_cursor ?? undefined;
      // A transaction arriving while the model pages lands before the cursor: no page shifts.
      if (pages === 0) await seedTransaction(creator, member);
    }
    assert.equal(cursor, undefined, "the third page is the last");
    assert.deepEqual(seen, expected);
    const filtered = await call({ currency: "USD", status: "succeeded", from: "2026-09-03T00:00:00.000Z", to: "2026-09-04T00:00:00.000Z" });
    assert.equal(filtered.structuredContent.data.length, 2);
    assert.equal(filtered.structuredContent.meta.next_cursor, null);
    for (const bad of ["!!", Buffer.from('["x","y"]').toString("base64url"), "a".repeat(201)]) {
      const refused = await call({ cursor: bad });
      assert.equal(refused.isError, true);
      assert.equal(refused.structuredContent.error.code, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(refused.structuredContent.error.fields), ["cursor"]);
    }
    const numbered = await call({ page: 2 });
    assert.deepEqual(Object.keys(numbered.structuredContent.error.fields), ["page"], "the tool takes no page number");
    const foreign = await call({ project: suite.creator.projectIds[0] });
    assert.equal(foreign.structuredContent.error.code, "RESOURCE_NOT_FOUND");
    await client.close();
  });

  it("states net (amount minus fee, same currency) on every row over REST, the MCP tool and the SDK", async () => {
    const creator = await createTestCreator({ label: "tx-net" });
    const member = await subscribedMember(creator);
    const rows = {
      payment: await seedTransaction(creator, member, { amount: 900, fee: 56 }),
      // Amounts carry no sign: a refund's and a lost dispute's net is what they took back (fee 0).
      refund: await seedTransaction(creator, member, { kind: "refund", amount: 300 }),
      dispute: await seedTransaction(creator, member, { kind: "dispute", amount: 900 }),
      // Telegram reports no fee for Stars: net is the amount.
      stars: await seedTransaction(creator, member, { amount: 250, currency: "XTR", provider: "telegram_stars" }),
    };
    const expected = new Map([
      [rows.payment, { amount: 844, currency: "USD" }],
      [rows.refund, { amount: 300, currency: "USD" }],
      [rows.dispute, { amount: 900, currency: "USD" }],
      [rows.stars, { amount: 250, currency: "XTR" }],
      [member.subscription.id, { amount: 0, currency: "USD" }],
    ]);
    type Row = { id: string; subscription_id: string | null; kind: string; net: { amount: number; currency: string } };
    const nets = (data: Row[]) => new Map(data.map((t) => [t.kind === "access_code_redemption" ? t.subscription_id! : t.id, t.net]));
    const project = creator.projectIds[0]!;

    const rest = (await suite.client.withToken(creator.token).get(`${base(project)}?per_page=100`)).body;
    assert.deepEqual(nets(rest.data), expected, "REST");
    const client = await connectMcp(mcp, creator.token, { headers: { "X-MCP-Toolsets": "transactions" } });
    const tool = (await client.callTool({ name: "list_transactions", arguments: { project, per_page: 100 } })) as { structuredContent: any };
    await client.close();
    assert.deepEqual(nets(tool.structuredContent.data), expected, "the MCP tool");
    const sb = createClient({ baseUrl: `${suite.api.url}/v1`, token: creator.token });
    const page = await sb.transactions.list(project, { per_page: 100 });
    assert.deepEqual(nets(page.data), expected, "the SDK");
    assert.equal(page.data.find((t) => t.id === rows.payment)!.net.amount, 844, "typed: net is part of the SDK's Transaction");
  });

  it("payment.succeeded carries neither the fee nor the net, as written and as a receiver gets it", async () => {
    const creator = await createTestCreator({ label: "tx-payload" });
    const member = await subscribedMember(creator);
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpoint(suite.client.withToken(creator.token), { url: receiver.url, events: ["payment.succeeded"] });
      await asDomain(
        creator,
        async (ctx) => {
          const plan = (await plansTable.rows(ctx).where({ id: member.plan.planId }).first()) as PlanRow;
          const payment = { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 900, currency: "USD", feeMinor: 56 };
          await recordPayment(ctx, {
            plan,
            memberId: member.member.id,
            subscriptionId: member.subscription.id,
            provider: "stripe",
            paymentMethodId: null,
            payment,
          });
        },
        { system: true },
      );
      const [written] = await eventsOf(creator.teamId, "payment.succeeded");
      assertValidEvent(written!);
      assert.deepEqual(written!.data.payment.amount, { amount: 900, currency: "USD" });
      assertNoFee(written!.data, "the event as written");

      const { db } = await testDatabase();
      const network = { ...TEST_WEBHOOK_NETWORK };
      const outcomes = await deliverDue({
        db,
        appKey: TEST_APP_KEY,
        network,
        release: "test",
        logger: testLogger,
        now: new Date(),
        teams: [creator.teamId],
      });
      assert.deepEqual(
        outcomes.map((o) => [o.delivery.endpoint_id, o.status]),
        [[endpoint.data.id, "delivered"]],
      );
      const received = JSON.parse(receiver.received[0]!.body) as OutboxEvent;
      assert.deepEqual(received.data.payment.amount, { amount: 900, currency: "USD" });
      assertNoFee(received.data, "the body a receiver gets");
      // The transactions list shows both, for the creator.
      const [row] = (await suite.client.withToken(creator.token).get(`${base(creator.projectIds[0])}?kind=payment`)).body.data;
      assert.deepEqual([row.fee.amount, row.net.amount], [56, 844]);
    } finally {
      await receiver.close();
    }
  });

  it("needs a credential and project-subscription:view-any; a project of another team answers 404", async () => {
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: base(), ability: "project-subscription:view-any" });
    expectError(await suite.client.get(base(randomUUID())), 404, "RESOURCE_NOT_FOUND");
    const restricted = suite.client.withToken(
      (await tokenFor(suite.creator, ["project-subscription:view-any"], [suite.creator.projectIds[1]!])).token,
    );
    expectError(await restricted.get(base()), 404, "TENANT_MISMATCH");
  });
});
