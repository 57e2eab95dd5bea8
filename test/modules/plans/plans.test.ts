// The Plans area: drafts with a price and the resources they grant, the publication states, the
// three publish refusals, deletion, and the events and activity entries of every change.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { planWithResources } from "../../../src/modules/plans/plans.ts";
import {
  activityOf,
  createPlan,
  createResource,
  expectFieldRefusal,
  expectGuarded,
  installConnector,
  patch,
  setUpPaymentMethod,
  teamSnapshot,
} from "../resources/support.ts";

const TABLES = ["plans", "plan_resources"];

describe("plans", () => {
  const suite = useApiWithCreator({ creator: { label: "plans", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = () => `/v1/projects/${project()}/plans`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  before(async () => {
    await installConnector(suite.creator, project());
    await installConnector(suite.creator, suite.creator.projectIds[1]!);
  });

  it("creates a draft (201) granting the resources in the order sent, with defaults", async () => {
    const [a, b] = [await createResource(suite.client, project()), await createResource(suite.client, project())];
    const res = await suite.client.post(base(), {
      name: "Monthly",
      price: { amount: 1250, currency: "EUR" },
      billing_cycle: "month",
      resources: [b.id, a.id],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const plan = res.body.data;
    assert.deepEqual(
      {
        status: plan.status,
        price: plan.price,
        resources: plan.resources,
        count: plan.billing_cycle_count,
        trial: plan.trial_days,
        codes: plan.access_codes_only,
      },
      { status: "draft", price: { amount: 1250, currency: "EUR" }, resources: [b.id, a.id], count: 1, trial: 0, codes: false },
    );
    assert.equal(plan.published_at, null);
    assert.deepEqual((await suite.client.get(`${base()}/${plan.id}`)).body.data, plan);
    const { db } = await testDatabase();
    const seen = await planWithResources(createDomainContext(db, systemActor(suite.creator.teamId), new Date()), plan.id);
    assert.deepEqual(
      seen.resources.map((r) => r.id),
      [b.id, a.id],
      "planWithResources keeps the order",
    );
    await assert.rejects(planWithResources(createDomainContext(db, systemActor(randomUUID()), new Date()), plan.id), /No plan/);
  });

  it("refuses bad fields (422 naming them) and foreign resource ids (404 naming the id); nothing written", async () => {
    const perk = await createResource(suite.client, project());
    const valid = { name: "Valid", price: { amount: 100, currency: "EUR" }, billing_cycle: "month", resources: [perk.id] };
    await createPlan(suite.client, suite.creator, project(), { name: "Taken name", resources: [perk.id] });
    for (const [body, field] of [
      [{ ...valid, billing_cycle: "lifetime", billing_cycle_count: 3 }, "billing_cycle_count"],
      [{ ...valid, price: { amount: 100, currency: "EUX" } }, "price.currency"],
      [{ ...valid, price: { amount: 1.5, currency: "EUR" } }, "price.amount"],
      [{ ...valid, price: "9.99" }, "price"],
      [{ ...valid, name: "Taken name" }, "name"],
      [{ ...valid, resources: [] }, "resources"],
      [{ ...valid, resources: [perk.id, perk.id] }, "resources"],
      [{ ...valid, billing_cycle: "fortnight" }, "billing_cycle"],
      [{ ...valid, trial_days: -1 }, "trial_days"],
    ] as const) {
      await expectFieldRefusal(() => suite.client.post(base(), body), field, snapshot);
    }
    const elsewhere = await createResource(suite.client, suite.creator.projectIds[1]!);
    const other = await createTestCreator({ label: "plans-other" });
    await installConnector(other, other.projectIds[0]!);
    const theirs = await createResource(new ApiClient(suite.api.url, other.token), other.projectIds[0]!);
    for (const foreign of [elsewhere.id, theirs.id, randomUUID()]) {
      const before = await snapshot();
      const error = expectError(
        await suite.client.post(base(), { ...valid, name: `F ${foreign}`, resources: [perk.id, foreign] }),
        404,
        "RESOURCE_NOT_FOUND",
      );
      assert.deepEqual(error.context, { resource_id: foreign });
      assert.deepEqual(await snapshot(), before);
    }
  });

  it("publishing refuses exactly: no enabled method, no method in the currency, none for the cycle (400); then publishes", async () => {
    const projectId = suite.creator.projectIds[1]!;
    const path = (id: string) => `/v1/projects/${projectId}/plans/${id}/publish`;
    const plan = await createPlan(suite.client, suite.creator, projectId, { price: { amount: 500, currency: "EUR" }, billing_cycle: "week" });
    const refusal = async (code: string) => {
      const before = await snapshot();
      const error = expectError(await suite.client.post(path(plan.id)), 400, code);
      assert.deepEqual(await snapshot(), before);
      return error;
    };
    await refusal("PAYMENT_METHOD_NOT_CONFIGURED");
    await setUpPaymentMethod(suite.creator, projectId, { currencies: ["EUR"], billing_cycles: ["week"], enabled: false });
    await refusal("PAYMENT_METHOD_NOT_CONFIGURED");
    await setUpPaymentMethod(suite.creator, projectId, { currencies: ["USD"], billing_cycles: ["week"] });
    assert.deepEqual((await refusal("PLAN_CURRENCY_MISMATCH")).context, { currency: "EUR" });
    await setUpPaymentMethod(suite.creator, projectId, { provider: "paypal", currencies: ["EUR"], billing_cycles: ["month"] });
    assert.deepEqual((await refusal("PLAN_PROVIDER_UNSUPPORTED")).context, { currency: "EUR", billing_cycle: "week" });
    await setUpPaymentMethod(suite.creator, projectId, { provider: "access_codes", currencies: ["EUR"], billing_cycles: ["week", "lifetime"] });
    const published = await suite.client.post(path(plan.id));
    assert.equal(published.status, 200, JSON.stringify(published.body));
    assert.equal(published.body.data.status, "published");
    assert.ok(published.body.data.published_at);
    // A published plan keeps selling: changing its currency to one no method supports is refused.
    const before = await snapshot();
    expectError(
      await patch(suite.client, `/v1/projects/${projectId}/plans/${plan.id}`, { price: { amount: 500, currency: "GBP" } }),
      400,
      "PLAN_CURRENCY_MISMATCH",
    );
    expectError(await patch(suite.client, `/v1/projects/${projectId}/plans/${plan.id}`, { billing_cycle: "day" }), 400, "PLAN_PROVIDER_UNSUPPORTED");
    assert.deepEqual(await snapshot(), before);
    const lifetime = await patch(suite.client, `/v1/projects/${projectId}/plans/${plan.id}`, { billing_cycle: "lifetime" });
    assert.equal(lifetime.status, 200);
  });

  it("prices a plan in Telegram Stars (XTR, whole stars) and publishes it on a telegram_stars method", async () => {
    const projectId = suite.creator.projectIds[0]!;
    const plan = await createPlan(suite.client, suite.creator, projectId, { price: { amount: 250, currency: "XTR" }, billing_cycle: "month" });
    assert.deepEqual(plan.price, { amount: 250, currency: "XTR" });
    await setUpPaymentMethod(suite.creator, projectId, { provider: "telegram_stars", currencies: ["XTR"], billing_cycles: ["month"] });
    const published = await suite.client.post(`/v1/projects/${projectId}/plans/${plan.id}/publish`);
    assert.equal(published.status, 200, JSON.stringify(published.body));
  });

  it("moves draft -> published -> archived -> published; a move to the current state answers 200 with no event", async () => {
    await setUpPaymentMethod(suite.creator, project(), { currencies: ["EUR"], billing_cycles: ["month"] });
    const plan = await createPlan(suite.client, suite.creator, project());
    const move = (verb: string) => suite.client.post(`${base()}/${plan.id}/${verb}`);
    const count = async () => (await eventsOf(suite.creator.teamId)).filter((e) => e.data.plan?.id === plan.id).length;
    assert.equal((await move("publish")).body.data.status, "published");
    const published = await count();
    assert.equal((await move("publish")).status, 200);
    assert.equal(await count(), published, "publishing a published plan emits nothing");
    const archived = (await move("archive")).body.data;
    assert.equal(archived.status, "archived");
    assert.ok(archived.archived_at);
    assert.equal((await move("archive")).body.data.status, "archived");
    const again = (await move("publish")).body.data;
    assert.deepEqual([again.status, again.archived_at], ["published", null]);
    const draft = await createPlan(suite.client, suite.creator, project());
    assert.equal((await suite.client.post(`${base()}/${draft.id}/archive`)).body.data.status, "archived");
    const listed = await suite.client.get(`${base()}?status=archived&per_page=100`);
    assert.ok(listed.body.data.every((p: { status: string }) => p.status === "archived"));
    assert.ok(listed.body.data.some((p: { id: string }) => p.id === draft.id));
    expectError(await suite.client.get(`${base()}?status=gone`), 422, "VALIDATION_FAILED");
    expectError(await suite.client.post(`${base()}/${randomUUID()}/publish`), 404, "RESOURCE_NOT_FOUND");
  });

  it("lists newest first (25 a page) and by price; changes what was sent, resources replaced in order", async () => {
    const cheap = await createPlan(suite.client, suite.creator, project(), { price: { amount: 1, currency: "EUR" } });
    const dear = await createPlan(suite.client, suite.creator, project(), { price: { amount: 99999, currency: "EUR" } });
    const page = await suite.client.get(base());
    assert.equal(page.body.meta.per_page, 25);
    assert.deepEqual(
      page.body.data.slice(0, 2).map((p: { id: string }) => p.id),
      [dear.id, cheap.id],
    );
    const byPrice = (await suite.client.get(`${base()}?sort_by=price&sort_direction=asc&per_page=100`)).body.data.map(
      (p: { price: { amount: number } }) => p.price.amount,
    );
    assert.deepEqual(
      byPrice,
      [...byPrice].sort((x: number, y: number) => x - y),
    );
    const [r1, r2] = [await createResource(suite.client, project()), await createResource(suite.client, project())];
    const res = await patch(suite.client, `${base()}/${cheap.id}`, { name: "Renamed plan", trial_days: 7, resources: [r2.id, r1.id] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.data.name, res.body.data.trial_days, res.body.data.resources], ["Renamed plan", 7, [r2.id, r1.id]]);
    assert.deepEqual(res.body.data.price, cheap.price);
    assert.deepEqual((await suite.client.get(`${base()}/${cheap.id}`)).body.data, res.body.data);
    expectError(await patch(suite.client, `${base()}/${cheap.id}`, {}), 422, "VALIDATION_FAILED");
    expectError(await patch(suite.client, `${base()}/${cheap.id}`, { name: dear.name }), 422, "VALIDATION_FAILED");
    expectError(await patch(suite.client, `${base()}/${randomUUID()}`, { name: "x" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${suite.creator.projectIds[1]}/plans/${cheap.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("deletes a plan nobody subscribed to (204) and refuses one with subscriptions (422 naming it)", async () => {
    const loose = await createPlan(suite.client, suite.creator, project());
    assert.equal((await suite.client.delete(`${base()}/${loose.id}`)).status, 204);
    expectError(await suite.client.get(`${base()}/${loose.id}`), 404, "RESOURCE_NOT_FOUND");
    const sold = await createPlan(suite.client, suite.creator, project());
    const { db } = await testDatabase();
    const now = new Date();
    const member = { id: randomUUID(), team_id: suite.creator.teamId, project_id: project(), status: "customer", created_at: now, updated_at: now };
    await db("members").insert(member);
    await db("subscriptions").insert({
      id: randomUUID(),
      team_id: suite.creator.teamId,
      project_id: project(),
      member_id: member.id,
      plan_id: sold.id,
      status: "active",
      source: "access_code",
      started_at: now,
      created_at: now,
      updated_at: now,
    });
    const before = await snapshot();
    const error = expectError(await suite.client.delete(`${base()}/${sold.id}`), 422, "VALIDATION_FAILED");
    assert.deepEqual(error.context, { plan_id: sold.id });
    assert.deepEqual(await snapshot(), before);
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const plan = await createPlan(suite.client, suite.creator, project());
    const one = `${base()}/${plan.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "project-subscription-plan:view-any" },
      {
        method: "POST",
        path: base(),
        ability: "project-subscription-plan:create",
        body: { name: "x", price: { amount: 1, currency: "EUR" }, billing_cycle: "month", resources: plan.resources },
      },
      { method: "GET", path: one, ability: "project-subscription-plan:view" },
      { method: "PATCH", path: one, ability: "project-subscription-plan:update", body: { name: "y" } },
      { method: "POST", path: `${one}/publish`, ability: "project-subscription-plan:update" },
      { method: "POST", path: `${one}/archive`, ability: "project-subscription-plan:update" },
      { method: "DELETE", path: one, ability: "project-subscription-plan:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("plan.created, .updated, .published, .archived and .deleted: valid events and activity entries about the plan", async () => {
    await setUpPaymentMethod(suite.creator, project(), { currencies: ["EUR"], billing_cycles: ["month"] });
    const created = await createPlan(suite.client, suite.creator, project());
    const one = `${base()}/${created.id}`;
    const updated = (await patch(suite.client, one, { description: "Now described" })).body.data;
    const published = (await suite.client.post(`${one}/publish`)).body.data;
    const archived = (await suite.client.post(`${one}/archive`)).body.data;
    assert.equal((await suite.client.delete(one)).status, 204);
    for (const [type, plan] of [
      ["plan.created", created],
      ["plan.updated", updated],
      ["plan.published", published],
      ["plan.archived", archived],
      ["plan.deleted", archived],
    ] as const) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.plan?.id === created.id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.equal(events[0]!.project_id, project());
      assert.deepEqual(events[0]!.data, { plan });
      const entries = await activityOf(suite.creator.teamId, type.replace(".", "_"), created.id);
      assert.equal(entries.length, 1, `one ${type} entry`);
      assert.equal(entries[0]!.subject_type, "plan");
    }
  });
});
