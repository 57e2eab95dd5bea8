// The Recovery area: a project's recovery settings, one per installation, their reads, changes,
// deletion, guards, events and activity entries. Refusals of what a setting names: references.test.ts.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { activityOf, expectGuarded, installConnector, patch, teamSnapshot } from "../resources/support.ts";
import { newProject } from "../connectors/support.ts";
import { clearSettings, createSetting, seedPlaces, settingsPath, type Places } from "./support.ts";
import { registryDeclaringEveryFeature } from "./support.ts";

const TABLES = ["recovery_settings", "recovery_resource_standbys"];

describe("recovery settings", () => {
  const suite = useApiWithCreator({ api: { connectors: registryDeclaringEveryFeature() }, creator: { label: "recovery", projects: 2 } });
  const p1 = () => suite.creator.projectIds[0]!;
  const base = () => settingsPath(p1());
  const snapshot = () => teamSnapshot(suite.creator.teamId, TABLES);
  let places: Places;
  before(async () => {
    places = await seedPlaces(suite.client, suite.creator);
  });
  beforeEach(() => clearSettings(p1()));

  const everything = () => ({
    connector: "telegram",
    probes: { enabled: true, interval_minutes: 30 },
    standby_installation_id: places.standby,
    resource_standby: [
      { resource_id: places.channelA, standby_resource_id: places.channelB },
      { resource_id: places.group, standby_resource_id: places.group2 },
    ],
    mirror: { enabled: true, source_resource_id: places.channelA, target_resource_id: places.channelB },
    identity_relink: { enabled: true },
  });

  it("creates a setting with every feature Telegram declares (201); lists newest first, 25 a page; gets one", async () => {
    const setting = await createSetting(suite.client, p1(), everything());
    const { id, created_at, updated_at, ...rest } = setting;
    assert.deepEqual(rest, { ...everything(), project_id: p1(), installation_id: places.telegram, status: null, last_probe_at: null });
    assert.equal(created_at, updated_at);
    const discord = await createSetting(suite.client, p1(), { connector: "discord" });
    const page = await suite.client.get(base());
    assert.equal(page.status, 200);
    assert.equal(page.body.meta.per_page, 25);
    assert.deepEqual(
      page.body.data.map((s: { id: string }) => s.id),
      [discord.id, id],
    );
    const byConnector = await suite.client.get(`${base()}?sort_by=connector&sort_direction=asc`);
    assert.deepEqual(
      byConnector.body.data.map((s: { connector: string }) => s.connector),
      ["discord", "telegram"],
    );
    assert.deepEqual((await suite.client.get(`${base()}/${id}`)).body.data, setting);
    expectError(await suite.client.get(`${base()}/${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${settingsPath(suite.creator.projectIds[1]!)}/${id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("starts with probes on every 15 minutes (the connector declares them) and every other feature off; probes off when asked", async () => {
    const off = await createSetting(suite.client, p1(), { connector: "telegram", probes: { enabled: false } });
    assert.deepEqual(off.probes, { enabled: false, interval_minutes: 15 });
    const setting = await createSetting(suite.client, p1(), { connector: "discord" });
    assert.deepEqual(
      [setting.probes, setting.standby_installation_id, setting.resource_standby, setting.mirror, setting.identity_relink],
      [{ enabled: true, interval_minutes: 15 }, null, [], { enabled: false, source_resource_id: null, target_resource_id: null }, { enabled: false }],
    );
    assert.equal(setting.installation_id, places.discord);
  });

  it("one setting per installation (422 naming connector); an unknown connector (404 unknown_connector); one the project does not run (404 CONNECTOR_NOT_INSTALLED)", async () => {
    await createSetting(suite.client, p1());
    const before = await snapshot();
    const second = expectError(await suite.client.post(base(), { connector: "telegram" }), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(second.fields), ["connector"]);
    const unknown = expectError(await suite.client.post(base(), { connector: "myspace" }), 404, "RESOURCE_NOT_FOUND");
    assert.equal(unknown.context.reason, "unknown_connector");
    const p2 = suite.creator.projectIds[1]!;
    const missing = expectError(await suite.client.post(settingsPath(p2), { connector: "discord" }), 404, "CONNECTOR_NOT_INSTALLED");
    assert.deepEqual(missing.context, { connector: "discord", project_id: p2 });
    for (const body of [{}, { connector: "Telegram" }, { connector: "telegram", probes: {} }, { connector: "telegram", extra: 1 }])
      expectError(await suite.client.post(base(), body), 422, "VALIDATION_FAILED");
    for (const interval of [4, 1441, 2.5]) {
      const error = expectError(
        await suite.client.post(base(), { connector: "discord", probes: { interval_minutes: interval } }),
        422,
        "VALIDATION_FAILED",
      );
      assert.deepEqual(Object.keys(error.fields), ["probes.interval_minutes"]);
    }
    assert.deepEqual(await snapshot(), before);
  });

  it("two creates for one installation at once: one 201, the other 422 naming connector", async () => {
    const answers = await Promise.all([0, 1].map(() => suite.client.post(base(), { connector: "telegram" })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 422], JSON.stringify(answers.map((a) => a.body)));
    assert.deepEqual(Object.keys(answers.find((a) => a.status === 422)!.body.error.fields), ["connector"]);
    const { db } = await testDatabase();
    assert.equal((await db("recovery_settings").where({ installation_id: places.telegram })).length, 1);
  });

  it("changes a setting (200): probes, mirror and identity_relink merge, resource_standby replaces the list, null removes the standby", async () => {
    const setting = await createSetting(suite.client, p1(), everything());
    const one = `${base()}/${setting.id}`;
    const res = await patch(suite.client, one, {
      probes: { interval_minutes: 60 },
      mirror: { enabled: false },
      standby_installation_id: null,
      resource_standby: [{ resource_id: places.channelB, standby_resource_id: places.channelA }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const changed = res.body.data;
    assert.deepEqual(changed.probes, { enabled: true, interval_minutes: 60 });
    assert.deepEqual(changed.mirror, { enabled: false, source_resource_id: places.channelA, target_resource_id: places.channelB });
    assert.equal(changed.standby_installation_id, null);
    assert.deepEqual(changed.resource_standby, [{ resource_id: places.channelB, standby_resource_id: places.channelA }]);
    assert.deepEqual(changed.identity_relink, { enabled: true });
    assert.equal(changed.created_at, setting.created_at);
    assert.deepEqual((await suite.client.get(one)).body.data, changed);
    const cleared = (await patch(suite.client, one, { resource_standby: [], identity_relink: { enabled: false } })).body.data;
    assert.deepEqual([cleared.resource_standby, cleared.identity_relink], [[], { enabled: false }]);
    const before = await snapshot();
    for (const body of [{}, { connector: "discord" }, { status: "healthy" }, { probes: { interval_minutes: 1 } }, { mirror: {} }])
      expectError(await patch(suite.client, one, body), 422, "VALIDATION_FAILED");
    assert.deepEqual(await snapshot(), before);
    expectError(await patch(suite.client, `${base()}/${randomUUID()}`, { identity_relink: { enabled: true } }), 404, "RESOURCE_NOT_FOUND");
  });

  it("deletes a setting (204) with its standby places", async () => {
    const setting = await createSetting(suite.client, p1(), everything());
    assert.equal((await suite.client.delete(`${base()}/${setting.id}`)).status, 204);
    expectError(await suite.client.get(`${base()}/${setting.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${base()}/${setting.id}`), 404, "RESOURCE_NOT_FOUND");
    const { db } = await testDatabase();
    assert.equal((await db("recovery_resource_standbys").where({ setting_id: setting.id })).length, 0);
    await createSetting(suite.client, p1());
  });

  it("what another area deletes leaves the setting: a resource drops its pair or mirror id, a standby installation its id; uninstalling takes the setting", async () => {
    const { db } = await testDatabase();
    const spare = (
      await suite.client.post(`/v1/projects/${p1()}/resources`, { connector: "telegram", kind: "group", title: "Spare", platform_ref: "-1" })
    ).body.data.id;
    const standby = await installConnector(suite.creator, await newProject(suite.creator, "Reserve"));
    const setting = await createSetting(suite.client, p1(), {
      standby_installation_id: standby,
      resource_standby: [
        { resource_id: places.channelA, standby_resource_id: places.channelB },
        { resource_id: places.group, standby_resource_id: spare },
      ],
      mirror: { enabled: true, source_resource_id: places.group, target_resource_id: spare },
    });
    assert.equal((await suite.client.delete(`/v1/projects/${p1()}/resources/${spare}`)).status, 204);
    await db("connector_installations").where({ id: standby }).delete();
    const after = (await suite.client.get(`${base()}/${setting.id}`)).body.data;
    assert.deepEqual(after.resource_standby, [{ resource_id: places.channelA, standby_resource_id: places.channelB }]);
    assert.deepEqual(after.mirror, { enabled: true, source_resource_id: places.group, target_resource_id: null });
    assert.equal(after.standby_installation_id, null);
    const discord = await createSetting(suite.client, p1(), { connector: "discord" });
    assert.equal((await suite.client.delete(`/v1/projects/${p1()}/connectors/discord`)).status, 204);
    expectError(await suite.client.get(`${base()}/${discord.id}`), 404, "RESOURCE_NOT_FOUND");
    places.discord = await installConnector(suite.creator, p1(), "discord");
  });

  it("answers 404 for another team's project and settings", async () => {
    const other = await createTestCreator({ label: "recovery-other" });
    await installConnector(other, other.projectIds[0]!);
    const theirs = await createSetting(new ApiClient(suite.api.url, other.token), other.projectIds[0]!);
    const path = settingsPath(other.projectIds[0]!);
    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(path, { connector: "telegram" }), 404, "RESOURCE_NOT_FOUND");
    expectError(await patch(suite.client, `${path}/${theirs.id}`, { probes: { enabled: true } }), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.delete(`${path}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`${base()}/${theirs.id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("requires a credential (401) and the route's ability (403 naming it)", async () => {
    const setting = await createSetting(suite.client, p1(), { connector: "discord" });
    const one = `${base()}/${setting.id}`;
    for (const route of [
      { method: "GET", path: base(), ability: "project-recovery:view-any" },
      { method: "POST", path: base(), ability: "project-recovery:create", body: { connector: "telegram" } },
      { method: "GET", path: one, ability: "project-recovery:view" },
      { method: "PATCH", path: one, ability: "project-recovery:update", body: { probes: { enabled: true } } },
      { method: "DELETE", path: one, ability: "project-recovery:delete" },
    ])
      await expectGuarded(suite.client, suite.creator, route);
  });

  it("recovery_setting.created, .updated and .deleted: valid events and activity entries on the project", async () => {
    const created = await createSetting(suite.client, p1(), everything());
    const updated = (await patch(suite.client, `${base()}/${created.id}`, { probes: { enabled: false } })).body.data;
    assert.equal((await suite.client.delete(`${base()}/${created.id}`)).status, 204);
    for (const [type, shown] of [
      ["recovery_setting.created", created],
      ["recovery_setting.updated", updated],
      ["recovery_setting.deleted", updated],
    ] as const) {
      const events = (await eventsOf(suite.creator.teamId, type)).filter((e) => e.data.recovery_setting?.id === created.id);
      assert.equal(events.length, 1, `one ${type}`);
      assertValidEvent(events[0]!);
      assert.deepEqual(events[0]!.data, { recovery_setting: shown });
      assert.equal(events[0]!.project_id, p1());
      const entries = (await activityOf(suite.creator.teamId, type.replace(".", "_"), p1())).filter(
        (e) => e.properties.recovery_setting.id === created.id,
      );
      assert.equal(entries.length, 1, `one ${type} entry`);
      assert.equal(entries[0]!.subject_type, "project");
    }
    const log = await suite.client.get(`/v1/activity?subject_type=project&subject_id=${p1()}&limit=200`);
    assert.ok(log.body.data.some((e: { event: string }) => e.event === "recovery_setting_created"));
  });
});
