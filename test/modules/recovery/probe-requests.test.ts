// A place a creator adds or moves is probed at the probe's next run, not after the setting's
// interval (probe_requested_at), and a place that starts failing while the status stays degraded
// raises its alert all the same (failing_places): the creator hears that the bot cannot administer
// a new chat before a member pays for it. The clock is the run's `now`.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { runRecoveryProbes } from "../../../src/modules/recovery/probes.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, newProject } from "../connectors/support.ts";
import { createResource, patch } from "../resources/support.ts";
import { createSetting } from "./support.ts";

const T0 = new Date("2026-12-01T10:00:00.000Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe("recovery probes of places just added or moved", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { label: "probe-requests" } });
  afterEach(async () => {
    const { db } = await testDatabase();
    await db("recovery_settings").where({ team_id: suite.creator.teamId }).update({ probes_enabled: false });
  });

  const run = async (now: Date) => {
    const { db } = await testDatabase();
    return runRecoveryProbes(db, { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY }, now, { teamId: suite.creator.teamId });
  };
  const chat = () => `-100${randomInt(1e9)}`;

  /** A Telegram project with one working gated chat, probed healthy at T0. */
  async function healthyProject(probes: Record<string, unknown> = { enabled: true }) {
    const project = await newProject(suite.creator, `Requested ${randomInt(1e6)}`);
    const { bot } = await installTelegram(suite.client, project);
    await createResource(suite.client, project, { kind: "channel", title: "VIP channel", platform_ref: chat() });
    const setting = await createSetting(suite.client, project, { probes });
    await run(T0);
    return { project, bot, setting };
  }

  async function setting(id: string) {
    const { db } = await testDatabase();
    return db("recovery_settings").where({ id }).first("status", "last_probe_at", "probe_requested_at", "failing_places");
  }

  async function alerts(project: string) {
    const { db } = await testDatabase();
    return db("creator_alerts").where({ user_id: suite.creator.userId, about_project_id: project, class: "recovery" }).orderBy("created_at");
  }

  it("a chat added where the bot is no administrator is probed at the next run and told; the request is answered once", async () => {
    const { project, bot, setting: s } = await healthyProject();
    assert.equal(await run(minutes(5)), 0, "nothing due before the interval (15 minutes)");
    const lounge = chat();
    (await testPlatform()).setTelegramBotStatus(bot.id, lounge, "member");
    await createResource(suite.client, project, { kind: "group", title: "Lounge", platform_ref: lounge });
    assert.notEqual((await setting(s.id)).probe_requested_at, null);

    assert.equal(await run(minutes(6)), 1, "the new place is probed at the next run");
    const row = await setting(s.id);
    assert.deepEqual(
      [row.status, new Date(row.last_probe_at).toISOString(), row.probe_requested_at, row.failing_places],
      ["degraded", minutes(6).toISOString(), null, [lounge]],
    );
    const [alert, ...more] = await alerts(project);
    assert.deepEqual(more, []);
    assert.match(alert.title, /: Telegram places the bot cannot manage$/);
    assert.match(alert.body, /1 of 2 places of .* on Telegram that the bot cannot manage/);
    assert.match(alert.body, new RegExp(`Lounge \\(${lounge}\\)`));
    assert.match(alert.body, new RegExp(`Make @${bot.username} .*an administrator of each place above`));
    assert.equal(await run(minutes(7)), 0, "the request was answered: not due again before the interval");
  });

  it("another place failing while the status stays degraded raises its own alert; the same places failing raise nothing", async () => {
    const { project, bot, setting: s } = await healthyProject();
    const platform = await testPlatform();
    const [first, second] = [chat(), chat()];
    platform.setTelegramBotStatus(bot.id, first, "member");
    await createResource(suite.client, project, { kind: "group", title: "First group", platform_ref: first });
    await run(minutes(1));
    assert.equal((await alerts(project)).length, 1);

    platform.setTelegramBotStatus(bot.id, second, "member");
    await createResource(suite.client, project, { kind: "group", title: "Second group", platform_ref: second });
    await run(minutes(2));
    const row = await setting(s.id);
    assert.deepEqual([row.status, [...row.failing_places].sort()], ["degraded", [first, second].sort()]);
    const raised = await alerts(project);
    assert.equal(raised.length, 2, "the second place is told though the status did not change");
    assert.match(raised[1].body, new RegExp(`Second group \\(${second}\\)`));

    await run(minutes(30));
    assert.equal((await alerts(project)).length, 2, "the same failing places: nothing more");
  });

  it("moving a resource to another chat or turning it back on requests a probe; a new title does not; nothing while probes are off", async () => {
    const { project, setting: s } = await healthyProject();
    const resource = await createResource(suite.client, project, { kind: "group", title: "Group", platform_ref: chat() });
    await run(minutes(1));
    const requested = async () => (await setting(s.id)).probe_requested_at !== null;
    const path = `/v1/projects/${project}/resources/${resource.id}`;
    const change = async (body: Record<string, unknown>) => assert.equal((await patch(suite.client, path, body)).status, 200);

    await change({ title: "Members' group" });
    assert.equal(await requested(), false, "a title is no place");
    await change({ platform_ref: chat() });
    assert.equal(await requested(), true, "a moved place");
    await run(minutes(2));
    await change({ active: false });
    assert.equal(await requested(), false, "a place switched off gates nothing");
    await change({ active: true });
    assert.equal(await requested(), true, "a place switched back on");

    const off = await healthyProject({ enabled: false });
    await createResource(suite.client, off.project, { kind: "group", title: "Group", platform_ref: chat() });
    assert.equal((await setting(off.setting.id)).probe_requested_at, null);
  });
});
