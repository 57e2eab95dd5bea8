// The Payment methods area: methods set up by the provider setup (the domain function, since the
// API's create ability is Coming), listed, read, changed and deleted through the API; credentials
// never shown.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { operationList } from "../../../generated/operations.ts";
import { activityOf, expectGuarded, patch, setUpPaymentMethod, teamSnapshot } from "../resources/support.ts";

const TABLES = ["payment_methods"];

describe("payment methods", () => {
  const suite = useApiWithCreator({ creator: { label: "payment-methods", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = () => `/v1/projects/${project()}/payment-methods`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);

  it("has no create operation (project-payment-method:create is Coming); the provider setup creates methods, with payment_method.created", async () => {
    assert.ok(!operationList.some((op) => op.ability === "project-payment-method:create"));
    const method = await setUpPaymentMethod(suite.creator, project(), { currencies: ["EUR", "USD"], billing_cycles: ["month"] });
    assert.deepEqual(
      {
        provider: method.provider,
        enabled: method.enabled,
        mode: method.mode,
        currencies: method.currencies,
        has_credentials: method.has_credentials,
      },
      { provider: "stripe", enabled: true, mode: "live", currencies: ["EUR", "USD"], has_credentials: false },
    );
    const events = (await eventsOf(suite.creator.teamId, "payment_method.created")).filter((e) => e.data.payment_method.id === method.id);
    assert.equal(events.length, 1);
    assertValidEvent(events[0]!);
    await assert.rejects(setUpPaymentMethod(suite.creator, project(), { currencies: ["XXY"] }), /invalid fields/);
    await assert.rejects(setUpPaymentMethod(suite.creator, project(), { currencies: [] }), /invalid fields/);
  });

  it("lists newest first (25 a page) and gets one; credentials are never shown", async () => {
    const first = await setUpPaymentMethod(suite.creator, project(), { provider: "paypal", name: "PayPal" });
    const second = await setUpPaymentMethod(suite.creator, project(), { provider: "access_codes", name: "Codes" });
    const { db } = await testDatabase();
    await db("payment_methods").where({ id: second.id }).update({ credentials: "sealed-bytes" });
    const page = await suite.client.get(base());
    assert.equal(page.status, 200);
    assert.equal(page.body.meta.per_page, 25);
    assert.deepEqual(
      page.body.data.slice(0, 2).map((m: { id: string }) => m.id),
      [second.id, first.id],
    );
    const one = await suite.client.get(`${base()}/${second.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.data.has_credentials, true);
    assert.ok(!JSON.stringify(one.body).includes("sealed-bytes"));
    assert.ok(!("credentials" in one.body.data));
    const byName = (await suite.client.get(`${base()}?sort_by=name&sort_direction=asc&per_page=100`)).body.data.map((m: { name: string }) =>
      m.name.toLowerCase(),
    );
    assert.deepEqual(byName, [...byName].sort());
    expectError(await suite.client.get(`${base()}/${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${suite.creator.projectIds[1]}/payment-methods/${first.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 404 for another team's project and methods", async () => {
    const other = await createTestCreator({ label: "payment-methods-other" });
    const theirs = await setUpPaymentMethod(other, other.projectIds[0]!);
    const path = `/v1/projects/${other.projectIds[0]}/payment-methods`;
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await patch(suite.client, `${path}/${theirs.id}`, { enabled: false }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    assert.equal((await new ApiClient(suite.api.url, other.token).get(`${path}/${theirs.id}`)).body.data.enabled, true);
  });

  it("changes what was sent (200); an enabled method keeps a currency and a cycle; currencies are ISO 4217 (422 naming the field)", async () => {
    const method = await setUpPaymentMethod(suite.creator, project());
    const path = `${base()}/${method.id}`;
    const res = await patch(suite.client, path, { name: "Stripe test", mode: "test", currencies: ["GBP", "EUR"], billing_cycles: ["year"] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.data.name, res.body.data.mode, res.body.data.currencies, res.body.data.billing_cycles, res.body.data.enabled],
      ["Stripe test", "test", ["GBP", "EUR"], ["year"], true],
    );
    assert.deepEqual((await suite.client.get(path)).body.data, res.body.data);
    for (const [body, field] of [
      [{ currencies: [] }, "currencies"],
      [{ billing_cycles: [] }, "billing_cycles"],
      [{ currencies: ["ABC"] }, "currencies"],
      [{ currencies: ["eur"] }, "currencies"],
      [{ mode: "sandbox" }, "mode"],
      [{ credentials: { key: "x" } }, "credentials"],
      [{}, null],
    ] as const) {
      const before = await snapshot();
      const error = expectError(await patch(suite.client, path, body), 422, "VALIDATION_FAILED");
      if (field) assert.ok(JSON.stringify(error.fields ?? {}).includes(field), `${field}: ${JSON.stringify(error)}`);
      assert.deepEqual(await snapshot(), before);
    }
    const disabled = await patch(suite.client, path, { enabled: false, currencies: [] });
    assert.equal(disabled.status, 200, "a disabled method may support nothing");
    expectError(await patch(suite.client, path, { enabled: true }), 422, "VALIDATION_FAILED");
  });

  it("takes XTR (Telegram Stars) on the telegram_stars method only, and nothing else there", async () => {
    const stars = await setUpPaymentMethod(suite.creator, project(), {
      provider: "telegram_stars",
      currencies: ["XTR"],
      billing_cycles: ["month", "lifetime"],
    });
    assert.deepEqual(stars.currencies, ["XTR"]);
    const starsPath = `${base()}/${stars.id}`;
    const mixed = expectError(await patch(suite.client, starsPath, { currencies: ["XTR", "USD"] }), 422, "VALIDATION_FAILED");
    assert.match(JSON.stringify(mixed.fields), /its only currency is XTR/);
    const card = await setUpPaymentMethod(suite.creator, project());
    const refused = expectError(await patch(suite.client, `${base()}/${card.id}`, { currencies: ["XTR"] }), 422, "VALIDATION_FAILED");
    assert.match(JSON.stringify(refused.fields), /only by the telegram_stars method/);
    await assert.rejects(
      setUpPaymentMethod(suite.creator, project(), { provider: "stripe", currencies: ["XTR"] }),
      (err: { code?: string }) => err.code === "VALIDATION_FAILED",
    );
  });

  it("deletes a method (204)", async () => {
    const method = await setUpPaymentMethod(suite.creator, project());
    assert.equal((await suite.client.delete(`${base()}/${method.id}`)).status, 204);
    expectError(await suite.client.get(`${base()}/${method.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${base()}/${method.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const method = await setUpPaymentMethod(suite.creator, project());
    const one = `${base()}/${method.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "project-payment-method:view-any" },
      { method: "GET", path: one, ability: "project-payment-method:view" },
      { method: "PATCH", path: one, ability: "project-payment-method:update", body: { name: "x" } },
      { method: "DELETE", path: one, ability: "project-payment-method:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("payment_method.updated and .deleted: valid events, and entries in the project's activity", async () => {
    const method = await setUpPaymentMethod(suite.creator, project());
    const path = `${base()}/${method.id}`;
    const updated = (await patch(suite.client, path, { enabled: false })).body.data;
    assert.equal((await suite.client.delete(path)).status, 204);
    for (const [type, shown] of [
      ["payment_method.updated", updated],
      ["payment_method.deleted", updated],
    ] as const) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.payment_method?.id === method.id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.deepEqual(events[0]!.data, { payment_method: shown });
      const entries = (await activityOf(suite.creator.teamId, type.replace(".", "_"), project())).filter(
        (e) => e.properties.payment_method.id === method.id,
      );
      assert.equal(entries.length, 1, `one ${type} entry`);
      assert.equal(entries[0]!.subject_type, "project");
    }
  });
});
