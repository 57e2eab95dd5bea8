// The Resources area: kinds from installed connectors' manifests, places and holds, the refusals,
// and the events and activity entries every change writes.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { activityOf, createPlan, createResource, expectGuarded, installConnector, patch, teamSnapshot } from "./support.ts";

const TABLES = ["resources"];

describe("resources", () => {
  const suite = useApiWithCreator({ creator: { label: "resources", projects: 2 } });
  const project = () => suite.creator.projectIds[0]!;
  const base = () => `/v1/projects/${project()}/resources`;
  before(async () => {
    await installConnector(suite.creator, project(), "telegram");
  });

  it("creates a manual perk of an installed connector (201): grant mode from the manifest, no place", async () => {
    const res = await suite.client.post(base(), { kind: "perk", title: "Monthly call", description: "Book it by mail." });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const resource = res.body.data;
    assert.deepEqual(
      { connector: resource.connector, kind: resource.kind, grant_mode: resource.grant_mode, platform_ref: resource.platform_ref },
      { connector: "telegram", kind: "perk", grant_mode: "creator_task", platform_ref: null },
    );
    assert.equal(resource.project_id, project());
    assert.equal(resource.active, true);
    assert.equal(resource.early_admission_hold, false);
    const { db } = await testDatabase();
    const row = await db("resources").where({ id: resource.id }).first();
    assert.equal(row.team_id, suite.creator.teamId);
    assert.ok(row.installation_id, "linked to the installation");
  });

  it("creates a place with its platform_ref and an early admission hold where the kind supports one", async () => {
    const res = await suite.client.post(base(), {
      connector: "telegram",
      kind: "channel",
      title: "VIP channel",
      platform_ref: "-1001234",
      early_admission_hold: true,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.grant_mode, "bearer_link");
    assert.equal(res.body.data.platform_ref, "-1001234");
    assert.equal(res.body.data.early_admission_hold, true);
  });

  it("refuses kinds no installed connector offers, places without platform_ref, perks with one, and unsupported holds (422 with fields, nothing written)", async () => {
    const other = suite.creator.projectIds[1]!;
    await installConnector(suite.creator, other, "discord");
    const cases: [string, Record<string, unknown>, string][] = [
      [base(), { kind: "role", title: "Role", platform_ref: "1" }, "kind"],
      [base(), { connector: "discord", kind: "role", title: "Role", platform_ref: "1" }, "connector"],
      [base(), { connector: "telegram", kind: "nope", title: "x" }, "kind"],
      [base(), { kind: "channel", title: "No place" }, "platform_ref"],
      [base(), { kind: "perk", title: "Placed perk", platform_ref: "123" }, "platform_ref"],
      [base(), { kind: "perk", title: "Held perk", early_admission_hold: true }, "early_admission_hold"],
      [
        `/v1/projects/${other}/resources`,
        { connector: "discord", kind: "channel", title: "Held", platform_ref: "9", early_admission_hold: true },
        "early_admission_hold",
      ],
      [base(), { kind: "perk" }, "title"],
      [base(), { kind: "Perk!", title: "x" }, "kind"],
    ];
    for (const [path, body, field] of cases) {
      const before = await teamSnapshot(suite.creator.teamId, TABLES);
      const error = expectError(await suite.client.post(path, body), 422, "VALIDATION_FAILED");
      assert.ok(
        Object.keys(error.fields ?? {}).some((k) => k === field || k.startsWith(`${field}`)),
        `${JSON.stringify(body)}: ${JSON.stringify(error.fields)}`,
      );
      assert.deepEqual(await teamSnapshot(suite.creator.teamId, TABLES), before, JSON.stringify(body));
    }
  });

  it("names the connector when several installed ones offer the kind, and takes connector to choose", async () => {
    const other = suite.creator.projectIds[1]!;
    await installConnector(suite.creator, other, "discord");
    await installConnector(suite.creator, other, "telegram");
    const error = expectError(
      await suite.client.post(`/v1/projects/${other}/resources`, { kind: "perk", title: "Which?" }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(error.fields), ["connector"]);
    const res = await suite.client.post(`/v1/projects/${other}/resources`, { connector: "discord", kind: "perk", title: "Discord perk" });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.connector, "discord");
  });

  it("lists the project's resources newest first, 25 a page, and gets one", async () => {
    const made: { id: string }[] = [];
    for (let i = 0; i < 3; i++) made.push(await createResource(suite.client, project(), { title: `Listed ${i}` }));
    const res = await suite.client.get(base());
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.per_page, 25);
    const ids = res.body.data.map((r: { id: string }) => r.id);
    assert.deepEqual(ids.slice(0, 3), made.map((r) => r.id).reverse());
    const byTitle = await suite.client.get(`${base()}?sort_by=title&sort_direction=asc&per_page=100`);
    const titles = byTitle.body.data.map((r: { title: string }) => r.title.toLowerCase());
    assert.deepEqual(titles, [...titles].sort());
    const one = await suite.client.get(`${base()}/${made[0]!.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(
      one.body.data,
      res.body.data.find((r: { id: string }) => r.id === made[0]!.id),
    );
    expectError(await suite.client.get(`${base()}/${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${suite.creator.projectIds[1]}/resources/${made[0]!.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/projects/${randomUUID()}/resources`), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 404 for another team's project and resources", async () => {
    const other = await createTestCreator({ label: "resources-other" });
    await installConnector(other, other.projectIds[0]!);
    const theirs = await createResource(new ApiClient(suite.api.url, other.token), other.projectIds[0]!);
    const path = `/v1/projects/${other.projectIds[0]}/resources`;
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(path, { kind: "perk", title: "x" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${base()}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("changes what was sent (200) under the creation rules; connector and kind never change", async () => {
    const channel = (await suite.client.post(base(), { kind: "channel", title: "Chan", platform_ref: "-1" })).body.data;
    const res = await patch(suite.client, `${base()}/${channel.id}`, { title: "Renamed", active: false });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.title, "Renamed");
    assert.equal(res.body.data.active, false);
    assert.equal(res.body.data.platform_ref, "-1");
    assert.deepEqual((await suite.client.get(`${base()}/${channel.id}`)).body.data, res.body.data);
    const perk = await createResource(suite.client, project());
    const before = await teamSnapshot(suite.creator.teamId, TABLES);
    for (const [id, body, field] of [
      [channel.id, { platform_ref: null }, "platform_ref"],
      [perk.id, { platform_ref: "x" }, "platform_ref"],
      [perk.id, { early_admission_hold: true }, "early_admission_hold"],
      [perk.id, { kind: "channel" }, "kind"],
      [perk.id, {}, null],
    ] as const) {
      const error = expectError(await patch(suite.client, `${base()}/${id}`, body), 422, "VALIDATION_FAILED");
      if (field) assert.ok(JSON.stringify(error.fields ?? {}).includes(field), JSON.stringify(error));
    }
    assert.deepEqual(await teamSnapshot(suite.creator.teamId, TABLES), before);
    expectError(await patch(suite.client, `${base()}/${randomUUID()}`, { title: "Ghost" }), 404, "RESOURCE_NOT_FOUND");
  });

  it("deletes a resource (204); refuses one a plan grants or a grant names (422 with context)", async () => {
    const loose = await createResource(suite.client, project());
    assert.equal((await suite.client.delete(`${base()}/${loose.id}`)).status, 204);
    expectError(await suite.client.get(`${base()}/${loose.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${base()}/${loose.id}`), 404, "RESOURCE_NOT_FOUND");

    const granted = await createResource(suite.client, project());
    const plan = await createPlan(suite.client, suite.creator, project(), { resources: [granted.id] });
    const before = await teamSnapshot(suite.creator.teamId, TABLES);
    const error = expectError(await suite.client.delete(`${base()}/${granted.id}`), 422, "VALIDATION_FAILED");
    assert.deepEqual(error.context, { plan_ids: [plan.id] });
    assert.deepEqual(await teamSnapshot(suite.creator.teamId, TABLES), before);
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const perk = await createResource(suite.client, project());
    const one = `${base()}/${perk.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "project-resource:view-any" },
      { method: "POST", path: base(), ability: "project-resource:create", body: { kind: "perk", title: "x" } },
      { method: "GET", path: one, ability: "project-resource:view" },
      { method: "PATCH", path: one, ability: "project-resource:update", body: { title: "x" } },
      { method: "DELETE", path: one, ability: "project-resource:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("resource.created, resource.updated and resource.deleted: valid events and activity entries about the resource", async () => {
    const created = await createResource(suite.client, project(), { title: "Evented" });
    const updated = (await patch(suite.client, `${base()}/${created.id}`, { title: "Evented again" })).body.data;
    assert.equal((await suite.client.delete(`${base()}/${created.id}`)).status, 204);
    for (const [type, activity, resource] of [
      ["resource.created", "resource_created", created],
      ["resource.updated", "resource_updated", updated],
      ["resource.deleted", "resource_deleted", updated],
    ] as const) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.resource?.id === created.id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.equal(events[0]!.project_id, project());
      assert.deepEqual(events[0]!.data, { resource });
      const entries = await activityOf(suite.creator.teamId, activity, created.id);
      assert.equal(entries.length, 1, `one ${activity} entry`);
      assert.equal(entries[0]!.subject_type, "project-resource");
      assert.equal(entries[0]!.project_id, project());
    }
    const log = await suite.client.get(`/v1/activity?subject_type=project-resource&subject_id=${created.id}`);
    assert.equal(log.status, 200);
    assert.deepEqual(log.body.data.map((e: { event: string }) => e.event).sort(), ["resource_created", "resource_deleted", "resource_updated"]);
  });
});
