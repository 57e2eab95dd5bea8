// Recovery standby (issue 46) against the simulated Telegram: a revoked bot token makes the
// setting's standby installation take over (its bot sends the members' messages and invite links,
// deep links open it, members who open it with the project's code are the project's), once however often or concurrently the probe runs, and a new token for the
// project's own bot takes the sending back; a deleted chat moves its
// members to the paired standby place; the creator is alerted with the counts; with no standby the
// probe only alerts. A connector that stops declaring mirror and identity relink refuses them.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import type { ConnectorRegistry } from "../../../src/modules/connectors/registry.ts";
import { undeclaredFeatures } from "../../../src/modules/recovery/checks.ts";
import { runRecoveryProbes } from "../../../src/modules/recovery/probes.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, newProject, postTelegramStart } from "../connectors/support.ts";
import { createResource } from "../resources/support.ts";
import { codesFor, redeem } from "../subscriptions/commerce.ts";
import { createSetting } from "./support.ts";

const T0 = new Date("2026-12-02T10:00:00.000Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe("recovery standby takeover", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { label: "standby" } });
  afterEach(async () => {
    const { db } = await testDatabase();
    await db("recovery_settings").where({ team_id: suite.creator.teamId }).update({ probes_enabled: false });
  });

  const env = async () => ({ platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY });
  const run = async (now: Date) => {
    const { db } = await testDatabase();
    return runRecoveryProbes(db, await env(), now, { teamId: suite.creator.teamId });
  };
  const sweep = async (now: Date) => {
    const { db } = await testDatabase();
    return syncPlatformAccess(db, await env(), now);
  };
  const deliver = async (now: Date, installations: string[]) => {
    const { db } = await testDatabase();
    const environment = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    return sendDueBotMessages({ db, kv: await testKv(), env: environment, logger: testLogger, now, installations });
  };

  /** A published plan of the project granting these resources, and a member who redeemed it. */
  async function member(project: string, resourceIds: string[]) {
    const { db } = await testDatabase();
    const planId = randomUUID();
    const now = new Date();
    await db("plans").insert({
      id: planId,
      team_id: suite.creator.teamId,
      project_id: project,
      name: `Plan ${randomUUID().slice(0, 6)}`,
      amount_minor: 500,
      currency: "USD",
      billing_cycle: "month",
      billing_cycle_count: 1,
      trial_days: 0,
      status: "published",
      published_at: now,
      created_at: now,
      updated_at: now,
    });
    for (const [position, resource_id] of resourceIds.entries())
      await db("plan_resources").insert({ plan_id: planId, resource_id, team_id: suite.creator.teamId, project_id: project, position });
    const [code] = await codesFor(suite.creator, { planId, projectId: project, resourceIds });
    const user = String(randomInt(100_000_000, 999_999_999));
    const redemption = await redeem(suite.creator, project, code!, { connectorKey: "telegram", externalUserId: user, displayName: "Mo" });
    return { user, id: redemption.member.id, plan: { planId, projectId: project, resourceIds } };
  }

  /** A project running Telegram with two gated chats, a member holding both, and a probed setting. */
  async function primary(setting: Record<string, unknown> = {}) {
    const project = await newProject(suite.creator, `Primary ${randomInt(1e6)}`);
    const { installation, bot } = await installTelegram(suite.client, project);
    const chats = [`-100${randomInt(1e9)}`, `-100${randomInt(1e9)}`];
    const channel = await createResource(suite.client, project, { kind: "channel", title: "VIP channel", platform_ref: chats[0] });
    const group = await createResource(suite.client, project, { kind: "group", title: "Members' group", platform_ref: chats[1] });
    const holder = await member(project, [channel.id, group.id]);
    await sweep(T0);
    const created = await createSetting(suite.client, project, { probes: { enabled: true }, ...setting });
    return { project, installation, bot, chats, channel, group, holder, setting: created };
  }

  /** A second project's Telegram installation: the standby. */
  async function standbyInstallation() {
    const project = await newProject(suite.creator, `Standby ${randomInt(1e6)}`);
    return installTelegram(suite.client, project);
  }

  async function recoveryAlerts(project: string) {
    const { db } = await testDatabase();
    return (await db("creator_alerts")
      .where({ user_id: suite.creator.userId, about_project_id: project, class: "recovery" })
      .orderBy("created_at")
      .select("title", "body")) as { title: string; body: string }[];
  }
  const activations = async (project: string) =>
    (await eventsOf(suite.creator.teamId, "recovery_setting.standby_activated")).filter((e) => e.project_id === project);

  it("a revoked token: the standby's bot takes over once (messages, invite links and deep links through it), with one alert naming the counts; a new token takes it back once [claim telegram.capabilities.recovery_standby_installations telegram.recovery.standby_installations]", async () => {
    const standby = await standbyInstallation();
    const { project, installation, bot, holder, setting } = await primary();
    const patched = await suite.client.request("PATCH", `/v1/projects/${project}/recovery-settings/${setting.id}`, {
      body: { standby_installation_id: standby.installation.id },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(await run(T0), 1);
    const before = await suite.client.get(`/v1/projects/${project}/distribution/deep-link`);
    assert.equal(before.body.data.bot_url, `https://t.me/${bot.username}`);

    const platform = await testPlatform();
    platform.revokeTelegramToken(bot.token);
    // Two probes at once and one after: the standby takes over once.
    await Promise.all([run(minutes(15)), run(minutes(15))]);
    await run(minutes(30));
    const { db } = await testDatabase();
    const row = await db("connector_installations").where({ id: installation.id }).first("taken_over_by", "taken_over_at");
    assert.deepEqual([row.taken_over_by, new Date(row.taken_over_at).toISOString()], [standby.installation.id, minutes(15).toISOString()]);

    const [event, ...more] = await activations(project);
    assert.deepEqual(more, []);
    assertValidEvent(event!);
    assert.deepEqual(event!.data, {
      recovery_setting_id: setting.id,
      installation_id: installation.id,
      kind: "installation",
      standby_installation_id: standby.installation.id,
      resource_id: null,
      standby_resource_id: null,
      members_moved: 1,
      resources_moved: 2,
    });
    const activity = await db("activity_log").where({
      team_id: suite.creator.teamId,
      event: "recovery_setting_standby_activated",
      project_id: project,
    });
    assert.equal(activity.length, 1);
    const alerts = await recoveryAlerts(project);
    const takeovers = alerts.filter((a) => /took over/.test(a.title));
    assert.equal(takeovers.length, 1);
    assert.match(takeovers[0]!.body, new RegExp(`@${standby.bot.username}`));
    assert.match(takeovers[0]!.body, /Moved: 2 places now run through .*; 1 members with access were told of the new bot/);
    assert.ok(
      alerts.some((a) => /installation lost/.test(a.title)),
      "the lost verdict's own alert stands",
    );

    // The member's notice is queued for the project and sent by the standby's bot.
    const notices = await db("bot_messages").where({ project_id: project, recipient: holder.user, purpose: "notice" });
    assert.equal(notices.length, 1);
    assert.equal(notices[0].installation_id, standby.installation.id);
    let mark = platform.calls.length;
    // The connector paces messages to one person: a minute apart, each run sends the next.
    for (const at of [30, 31, 32, 33]) await deliver(minutes(at), [standby.installation.id, installation.id]);
    // Its links queued before the takeover, never sent by the dead bot, go out through the standby's too.
    const sent = platform.calls.slice(mark).filter((c) => c.name === "sendMessage" && c.params.chat_id === holder.user);
    assert.deepEqual(new Set(sent.map((c) => c.bot)), new Set([String(standby.bot.id)]));
    const told = sent.filter((c) => String(c.params.text).includes(`now reaches you through https://t.me/${standby.bot.username}`));
    assert.equal(told.length, 1);
    assert.match(String(told[0]!.params.text), /Your access \(Members' group, VIP channel\) stays/);

    // A member who joins now gets their invite links from the standby's bot; deep links open it.
    const chats = (await db("resources").where({ project_id: project }).orderBy("created_at").pluck("id")) as string[];
    const newcomer = await member(project, chats);
    mark = platform.calls.length;
    assert.equal(await sweep(minutes(34)), 2);
    const links = platform.calls.slice(mark).filter((c) => c.name === "createChatInviteLink");
    assert.deepEqual(
      links.map((c) => c.bot),
      [String(standby.bot.id), String(standby.bot.id)],
    );
    const queued = await db("bot_messages").where({ project_id: project, recipient: newcomer.user, purpose: "access_link" });
    assert.deepEqual(
      queued.map((m: { installation_id: string }) => m.installation_id),
      [standby.installation.id, standby.installation.id],
    );
    const after = await suite.client.get(`/v1/projects/${project}/distribution/deep-link`);
    assert.equal(after.body.data.bot_url, `https://t.me/${standby.bot.username}`);

    // A member opening the standby's bot with the project's code is the project's member, answered by the standby's bot.
    const [code] = await codesFor(suite.creator, newcomer.plan);
    const opener = randomInt(100_000_000, 999_999_999);
    mark = platform.calls.length;
    const started = await postTelegramStart(suite.api.url, standby.installation.id, opener, code!);
    assert.equal(started.status, 200);
    const opened = await db("members")
      .where({ external_user_id: String(opener), connector_key: "telegram" })
      .select("project_id");
    assert.deepEqual(
      opened.map((m: { project_id: string }) => m.project_id),
      [project],
    );
    const replies = platform.calls.slice(mark).filter((c) => c.name === "sendMessage" && String(c.params.chat_id) === String(opener));
    assert.ok(replies.length > 0);
    assert.deepEqual(new Set(replies.map((c) => c.bot)), new Set([String(standby.bot.id)]));

    // A new token for the project's own bot: probed working, it takes the sending back, once.
    const token = `${bot.id}:${randomUUID().replace(/-/g, "")}`;
    platform.addTelegramBot(token, { id: bot.id, username: bot.username });
    const renewed = await suite.client.request("PATCH", `/v1/projects/${project}/connectors/telegram`, { body: { fields: { bot_token: token } } });
    assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
    await Promise.all([run(minutes(45)), run(minutes(45))]);
    assert.equal((await db("connector_installations").where({ id: installation.id }).first("taken_over_by")).taken_over_by, null);
    const kinds = (await activations(project)).map((e) => [e.data.kind, e.data.members_moved]);
    assert.deepEqual(kinds, [
      ["installation", 1],
      ["handed_back", 3],
    ]);
    const back = await suite.client.get(`/v1/projects/${project}/distribution/deep-link`);
    assert.equal(back.body.data.bot_url, `https://t.me/${bot.username}`);
    assert.equal((await recoveryAlerts(project)).filter((a) => /bot works again/.test(a.title)).length, 1);
  });

  it("a deleted chat: each member holding it is granted the paired standby place once, invite links by the sweep, and the creator is alerted with the number [claim telegram.capabilities.recovery_resource_standby telegram.recovery.resource_standby]", async () => {
    const { project, bot, chats, channel, holder } = await primary();
    const spareChat = `-100${randomInt(1e9)}`;
    const spare = await createResource(suite.client, project, { kind: "channel", title: "Spare channel", platform_ref: spareChat });
    const second = await member(project, [channel.id]);
    const { db } = await testDatabase();
    const setting = await db("recovery_settings").where({ project_id: project }).first("id");
    const patched = await suite.client.request("PATCH", `/v1/projects/${project}/recovery-settings/${setting.id}`, {
      body: { resource_standby: [{ resource_id: channel.id, standby_resource_id: spare.id }] },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await sweep(T0);
    assert.equal(await run(T0), 1);

    const platform = await testPlatform();
    platform.deleteTelegramChat(chats[0]!);
    await Promise.all([run(minutes(15)), run(minutes(15))]);
    await run(minutes(30));
    const moved = await db("access_grants").where({ resource_id: spare.id }).orderBy("created_at");
    assert.deepEqual(moved.map((g: { member_id: string }) => g.member_id).sort(), [holder.id, second.id].sort());
    assert.deepEqual(
      moved.map((g: { status: string }) => g.status),
      ["pending", "pending"],
    );
    const pair = await db("recovery_resource_standbys").where({ resource_id: channel.id }).first("switched_at", "members_moved");
    assert.deepEqual([new Date(pair.switched_at).toISOString(), pair.members_moved], [minutes(15).toISOString(), 2]);
    const [event, ...more] = await activations(project);
    assert.deepEqual(more, []);
    assertValidEvent(event!);
    assert.deepEqual(
      [event!.data.kind, event!.data.resource_id, event!.data.standby_resource_id, event!.data.members_moved],
      ["resource", channel.id, spare.id, 2],
    );
    const switched = (await recoveryAlerts(project)).filter((a) => /members moved to Spare channel/.test(a.title));
    assert.equal(switched.length, 1);
    assert.match(switched[0]!.body, /Moved: 2 members with access to VIP channel were granted Spare channel/);

    const mark = platform.calls.length;
    assert.equal(await sweep(minutes(31)), 2);
    const links = platform.calls.slice(mark).filter((c) => c.name === "createChatInviteLink");
    assert.deepEqual(
      links.map((c) => [c.bot, c.params.chat_id]),
      [
        [String(bot.id), spareChat],
        [String(bot.id), spareChat],
      ],
    );
  });

  it("no standby configured: a revoked token only raises the lost alert (no takeover, no activation)", async () => {
    const { project, installation, bot } = await primary();
    await run(T0);
    (await testPlatform()).revokeTelegramToken(bot.token);
    assert.equal(await run(minutes(15)), 1);
    const { db } = await testDatabase();
    assert.equal((await db("connector_installations").where({ id: installation.id }).first("taken_over_by")).taken_over_by, null);
    assert.deepEqual(await activations(project), []);
    const alerts = await recoveryAlerts(project);
    assert.deepEqual(
      alerts.map((a) => a.title.replace(/^.*: /, "")),
      ["Telegram installation lost"],
    );
  });

  it("a standby whose own token is refused does not take over", async () => {
    const standby = await standbyInstallation();
    const { project, installation, bot } = await primary();
    const { db } = await testDatabase();
    await db("recovery_settings").where({ project_id: project }).update({ standby_installation_id: standby.installation.id });
    await run(T0);
    const platform = await testPlatform();
    platform.revokeTelegramToken(standby.bot.token);
    platform.revokeTelegramToken(bot.token);
    await run(minutes(15));
    assert.equal((await db("connector_installations").where({ id: installation.id }).first("taken_over_by")).taken_over_by, null);
    assert.deepEqual(await activations(project), []);
  });

  it("a connector whose manifest stops declaring mirror and identity relink refuses turning them on; the standbys stay allowed", () => {
    const real = repositoryConnectorRegistry();
    const telegram = real.packages.get("telegram")!;
    const unclaimed = { ...telegram.manifest, recovery: { ...telegram.manifest.recovery, mirror: false, identity_relink: false } };
    const registry = { packages: new Map([["telegram", { ...telegram, manifest: unclaimed }]]) } as unknown as ConnectorRegistry;
    const fields: Record<string, string[]> = {};
    undeclaredFeatures(registry, "telegram", ["probes", "standby_installations", "resource_standby", "mirror", "identity_relink"], fields);
    assert.deepEqual(Object.keys(fields).sort(), ["identity_relink.enabled", "mirror.enabled"]);
    assert.match(fields["mirror.enabled"]![0]!, /does not declare the recovery feature mirror/);
  });
});
