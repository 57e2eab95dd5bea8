// The Coupons area: one discount per code, the plans it applies to, limits and expiry, events and
// activity entries.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { activityOf, createPlan, expectFieldRefusal, expectGuarded, patch, teamSnapshot } from "../resources/support.ts";

const TABLES = ["coupons"];
const code = () => `C-${randomUUID().slice(0, 8)}`;
const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();

describe("coupons", () => {
  const suite = useApiWithCreator({ creator: { label: "coupons", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = () => `/v1/projects/${project()}/coupons`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  const create = async (body: Record<string, unknown> = {}) => {
    const res = await suite.client.post(base(), { code: code(), percent_off: 10, ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  };

  it("creates a percent or a fixed coupon (201) for some or every plan; lists newest first (25 a page); gets one", async () => {
    const plan = await createPlan(suite.client, suite.creator, project());
    const percent = await create({ name: "Ten off", max_redemptions: 5, expires_at: future() });
    assert.deepEqual([percent.percent_off, percent.amount_off, percent.plan_ids, percent.redemptions_count, percent.active], [10, null, [], 0, true]);
    const fixed = (await suite.client.post(base(), { code: code(), amount_off: { amount: 200, currency: "EUR" }, plan_ids: [plan.id] })).body.data;
    assert.deepEqual([fixed.percent_off, fixed.amount_off, fixed.plan_ids], [null, { amount: 200, currency: "EUR" }, [plan.id]]);
    const page = await suite.client.get(base());
    assert.equal(page.body.meta.per_page, 25);
    assert.deepEqual(
      page.body.data.slice(0, 2).map((c: { id: string }) => c.id),
      [fixed.id, percent.id],
    );
    assert.deepEqual((await suite.client.get(`${base()}/${percent.id}`)).body.data, percent);
    expectError(await suite.client.get(`${base()}/${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${suite.creator.projectIds[1]}/coupons/${percent.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("codes are case-sensitive and unique within the project", async () => {
    const first = await create({ code: "Spring-Sale" });
    const lower = await create({ code: "spring-sale" });
    assert.notEqual(first.id, lower.id);
    const error = expectError(await suite.client.post(base(), { code: "Spring-Sale", percent_off: 5 }), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(error.fields), ["code"]);
    const elsewhere = await suite.client.post(`/v1/projects/${suite.creator.projectIds[1]}/coupons`, { code: "Spring-Sale", percent_off: 5 });
    assert.equal(elsewhere.status, 201, "another project may use the code");
  });

  it("refuses bad coupons (422 naming the field) and plans that are not the project's (404 naming the plan); nothing written", async () => {
    const usd = await createPlan(suite.client, suite.creator, project(), { price: { amount: 100, currency: "USD" } });
    const elsewhere = await createPlan(suite.client, suite.creator, suite.creator.projectIds[1]!);
    for (const [body, field] of [
      [{ code: code() }, "percent_off"],
      [{ code: code(), percent_off: 10, amount_off: { amount: 1, currency: "EUR" } }, "amount_off"],
      [{ code: code(), percent_off: 101 }, "percent_off"],
      [{ code: "no spaces", percent_off: 5 }, "code"],
      [{ code: code(), amount_off: { amount: 1, currency: "ZZZ" } }, "amount_off"],
      [{ code: code(), amount_off: { amount: 100, currency: "EUR" }, plan_ids: [usd.id] }, "amount_off"],
      [{ code: code(), percent_off: 5, expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at"],
      [{ code: code(), percent_off: 5, max_redemptions: 0 }, "max_redemptions"],
    ] as const) {
      await expectFieldRefusal(() => suite.client.post(base(), body), field, snapshot);
    }
    for (const foreign of [elsewhere.id, randomUUID()]) {
      const before = await snapshot();
      const error = expectError(await suite.client.post(base(), { code: code(), percent_off: 5, plan_ids: [foreign] }), 404, "RESOURCE_NOT_FOUND");
      assert.deepEqual(error.context, { plan_id: foreign });
      assert.deepEqual(await snapshot(), before);
    }
  });

  it("changes name, plans, limit, expiry and active (200); never the code or discount; not under the redemptions made", async () => {
    const coupon = await create();
    const plan = await createPlan(suite.client, suite.creator, project());
    const res = await patch(suite.client, `${base()}/${coupon.id}`, {
      active: false,
      plan_ids: [plan.id],
      max_redemptions: 3,
      expires_at: null,
      name: "Named",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.data.active, res.body.data.plan_ids, res.body.data.max_redemptions, res.body.data.name, res.body.data.code],
      [false, [plan.id], 3, "Named", coupon.code],
    );
    assert.deepEqual((await suite.client.get(`${base()}/${coupon.id}`)).body.data, res.body.data);
    const { db } = await testDatabase();
    await db("coupons").where({ id: coupon.id }).update({ redemptions_count: 2 });
    const before = await snapshot();
    for (const body of [
      { max_redemptions: 1 },
      { code: "NEW-CODE" },
      { percent_off: 50 },
      {},
      { expires_at: new Date(Date.now() - 1000).toISOString() },
    ])
      expectError(await patch(suite.client, `${base()}/${coupon.id}`, body), 422, "VALIDATION_FAILED");
    expectError(await patch(suite.client, `${base()}/${coupon.id}`, { plan_ids: [randomUUID()] }), 404, "RESOURCE_NOT_FOUND");
    assert.deepEqual(await snapshot(), before);
    expectError(await patch(suite.client, `${base()}/${randomUUID()}`, { active: true }), 404, "RESOURCE_NOT_FOUND");
  });

  it("deletes a coupon (204)", async () => {
    const coupon = await create();
    assert.equal((await suite.client.delete(`${base()}/${coupon.id}`)).status, 204);
    expectError(await suite.client.get(`${base()}/${coupon.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${base()}/${coupon.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 404 for another team's project and coupons", async () => {
    const other = await createTestCreator({ label: "coupons-other" });
    const path = `/v1/projects/${other.projectIds[0]}/coupons`;
    const theirs = (await new ApiClient(suite.api.url, other.token).post(path, { code: code(), percent_off: 5 })).body.data;
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(path, { code: code(), percent_off: 5 }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${base()}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const coupon = await create();
    const one = `${base()}/${coupon.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "project-coupon:view-any" },
      { method: "POST", path: base(), ability: "project-coupon:create", body: { code: code(), percent_off: 5 } },
      { method: "GET", path: one, ability: "project-coupon:view" },
      { method: "PATCH", path: one, ability: "project-coupon:update", body: { active: false } },
      { method: "DELETE", path: one, ability: "project-coupon:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("coupon.created, .updated and .deleted: valid events and activity entries about the coupon", async () => {
    const created = await create();
    const updated = (await patch(suite.client, `${base()}/${created.id}`, { active: false })).body.data;
    assert.equal((await suite.client.delete(`${base()}/${created.id}`)).status, 204);
    for (const [type, shown] of [
      ["coupon.created", created],
      ["coupon.updated", updated],
      ["coupon.deleted", updated],
    ] as const) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.coupon?.id === created.id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.deepEqual(events[0]!.data, { coupon: shown });
      const entries = await activityOf(suite.creator.teamId, type.replace(".", "_"), created.id);
      assert.equal(entries.length, 1, `one ${type} entry`);
      assert.equal(entries[0]!.subject_type, "coupon");
    }
    const log = await suite.client.get(`/v1/activity?subject_type=coupon&subject_id=${created.id}`);
    assert.equal(log.status, 200);
    assert.equal(log.body.data.length, 3);
  });
});
