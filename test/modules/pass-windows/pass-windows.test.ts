// The Pass windows area: a plan's dated windows, the dates rule, the plan abilities' implication
// (project-subscription-plan:view-any satisfies pass-window:view-any), events and activity.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { holdsAbility } from "../../../src/modules/tokens/abilities.ts";
import { activityOf, createPlan, expectFieldRefusal, expectGuarded, patch, teamSnapshot } from "../resources/support.ts";

const TABLES = ["pass_windows"];
const window = (days = 1) => ({
  name: "Workshop",
  starts_at: new Date(Date.now() + 86_400_000).toISOString(),
  ends_at: new Date(Date.now() + (1 + days) * 86_400_000).toISOString(),
});

describe("pass windows", () => {
  const suite = useApiWithCreator({ creator: { label: "pass-windows", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  let plan: { id: string };
  const base = () => `/v1/projects/${project()}/plans/${plan.id}/pass-windows`;
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  before(async () => {
    plan = await createPlan(suite.client, suite.creator, project());
  });

  it("adds a window to a plan (201), lists the plan's windows newest first (25 a page), gets one", async () => {
    const res = await suite.client.post(base(), { ...window(2), capacity: 30 });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const created = res.body.data;
    assert.deepEqual([created.plan_id, created.project_id, created.capacity, created.name], [plan.id, project(), 30, "Workshop"]);
    const second = (await suite.client.post(base(), window())).body.data;
    assert.equal(second.capacity, null);
    const page = await suite.client.get(base());
    assert.equal(page.body.meta.per_page, 25);
    assert.deepEqual(
      page.body.data.slice(0, 2).map((w: { id: string }) => w.id),
      [second.id, created.id],
    );
    assert.deepEqual((await suite.client.get(`${base()}/${created.id}`)).body.data, created);
    const otherPlan = await createPlan(suite.client, suite.creator, project());
    assert.equal((await suite.client.get(`/v1/projects/${project()}/plans/${otherPlan.id}/pass-windows`)).body.meta.total, 0);
    expectError(await suite.client.get(`/v1/projects/${project()}/plans/${otherPlan.id}/pass-windows/${created.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${project()}/plans/${randomUUID()}/pass-windows`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${suite.creator.projectIds[1]}/plans/${plan.id}/pass-windows`), 404, "RESOURCE_NOT_FOUND");
  });

  it("refuses an end not after the start and bad fields (422 naming them); nothing written", async () => {
    const start = new Date(Date.now() + 86_400_000).toISOString();
    for (const [body, field] of [
      [{ name: "x", starts_at: start, ends_at: start }, "ends_at"],
      [{ ...window(), capacity: 0 }, "capacity"],
      [{ ...window(), starts_at: "tomorrow" }, "starts_at"],
      [{ starts_at: start, ends_at: start }, "name"],
    ] as const) {
      await expectFieldRefusal(() => suite.client.post(base(), body), field, snapshot);
    }
  });

  it("changes what was sent (200) keeping the end after the start; deletes (204)", async () => {
    const created = (await suite.client.post(base(), window(3))).body.data;
    const res = await patch(suite.client, `${base()}/${created.id}`, { capacity: 12, name: "Renamed" });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.data.capacity, res.body.data.name, res.body.data.starts_at], [12, "Renamed", created.starts_at]);
    const before = await snapshot();
    expectError(await patch(suite.client, `${base()}/${created.id}`, { ends_at: created.starts_at }), 422, "VALIDATION_FAILED");
    expectError(await patch(suite.client, `${base()}/${created.id}`, {}), 422, "VALIDATION_FAILED");
    assert.deepEqual(await snapshot(), before);
    assert.equal((await suite.client.delete(`${base()}/${created.id}`)).status, 204);
    expectError(await suite.client.get(`${base()}/${created.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${base()}/${created.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 404 for another team's plans and windows", async () => {
    const other = await createTestCreator({ label: "pass-windows-other" });
    const theirClient = new ApiClient(suite.api.url, other.token);
    const theirPlan = await createPlan(theirClient, other, other.projectIds[0]!);
    const path = `/v1/projects/${other.projectIds[0]}/plans/${theirPlan.id}/pass-windows`;
    const theirs = (await theirClient.post(path, window())).body.data;
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(path, window()), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${base()}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("project-subscription-plan:view-any also satisfies pass-window:view-any (and nothing else of pass windows)", async () => {
    assert.ok(holdsAbility(new Set(["project-subscription-plan:view-any"]), "pass-window:view-any"));
    assert.ok(!holdsAbility(new Set(["project-subscription-plan:view-any"]), "pass-window:view"));
    assert.ok(!holdsAbility(new Set(["pass-window:view-any"]), "project-subscription-plan:view-any"));
    const created = (await suite.client.post(base(), window())).body.data;
    const { token } = await tokenFor(suite.creator, ["project-subscription-plan:view-any"]);
    const listed = await suite.client.get(base(), { token });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.ok(listed.body.data.some((w: { id: string }) => w.id === created.id));
    const error = expectError(await suite.client.get(`${base()}/${created.id}`, { token }), 403, "TOKEN_MISSING_ABILITY");
    assert.equal(error.context.required_ability, "pass-window:view");
    const { token: neither } = await tokenFor(suite.creator, ["project-subscription-plan:view"]);
    expectError(await suite.client.get(base(), { token: neither }), 403, "TOKEN_MISSING_ABILITY");
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const created = (await suite.client.post(base(), window())).body.data;
    const one = `${base()}/${created.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "pass-window:view-any" },
      { method: "POST", path: base(), ability: "pass-window:create", body: window() },
      { method: "GET", path: one, ability: "pass-window:view" },
      { method: "PATCH", path: one, ability: "pass-window:update", body: { name: "y" } },
      { method: "DELETE", path: one, ability: "pass-window:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("pass_window.created, .updated and .deleted: valid events, and entries in the plan's activity", async () => {
    const created = (await suite.client.post(base(), window())).body.data;
    const updated = (await patch(suite.client, `${base()}/${created.id}`, { capacity: 5 })).body.data;
    assert.equal((await suite.client.delete(`${base()}/${created.id}`)).status, 204);
    for (const [type, shown] of [
      ["pass_window.created", created],
      ["pass_window.updated", updated],
      ["pass_window.deleted", updated],
    ] as const) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.pass_window?.id === created.id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.deepEqual(events[0]!.data, { pass_window: shown });
      const entries = (await activityOf(suite.creator.teamId, type.replace(".", "_"), plan.id)).filter(
        (e) => e.properties.pass_window.id === created.id,
      );
      assert.equal(entries.length, 1, `one ${type} entry`);
      assert.equal(entries[0]!.subject_type, "plan");
    }
  });
});
