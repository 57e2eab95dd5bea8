// Recovery probes against the fake platform: the verdict (healthy, degraded, lost) and
// last_probe_at on the setting, one recovery alert per change for the worse (the alert row, a mail
// to the creator, a bot message to their linked Telegram account), nothing more while the state
// holds, and no verdict when the platform cannot be reached. The clock is the run's `now`.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { runRecoveryProbes } from "../../../src/modules/recovery/probes.ts";
import { scheduledJobs } from "../../../src/modules/recovery/jobs.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { link } from "../account/support.ts";
import { driverFor } from "../../../src/modules/connectors/drivers/index.ts";
import { installPath, installTelegram, newProject } from "../connectors/support.ts";
import { createResource } from "../resources/support.ts";
import { createSetting } from "./support.ts";

const T0 = new Date("2026-12-01T10:00:00.000Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe("recovery probes", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { label: "probes" } });
  const telegramAccount = String(randomInt(100_000_000, 999_999_999));
  before(() => link(suite.creator, { account: telegramAccount }));
  // Each test's project is probed alone: the settings of the tests before it stop being due.
  afterEach(async () => {
    const { db } = await testDatabase();
    await db("recovery_settings").where({ team_id: suite.creator.teamId }).update({ probes_enabled: false });
  });

  const env = async () => ({ platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY });
  const run = async (now: Date, environment?: Awaited<ReturnType<typeof env>>) => {
    const { db } = await testDatabase();
    return runRecoveryProbes(db, environment ?? (await env()), now, { teamId: suite.creator.teamId });
  };

  /** A new project running Telegram with two gated chats and a setting with probes on. */
  async function probedProject(probes: Record<string, unknown> = { enabled: true }) {
    const project = await newProject(suite.creator, `Probed ${randomInt(1e6)}`);
    const { installation, bot } = await installTelegram(suite.client, project);
    const chats = [`-100${randomInt(1e9)}`, `-100${randomInt(1e9)}`];
    await createResource(suite.client, project, { kind: "channel", title: "VIP channel", platform_ref: chats[0] });
    await createResource(suite.client, project, { kind: "group", title: "Members' group", platform_ref: chats[1] });
    const setting = await createSetting(suite.client, project, { probes });
    return { project, installation, bot, chats, setting };
  }

  async function state(settingId: string) {
    const { db } = await testDatabase();
    const row = await db("recovery_settings").where({ id: settingId }).first("status", "last_probe_at");
    return { status: row.status as string | null, last_probe_at: row.last_probe_at === null ? null : new Date(row.last_probe_at).toISOString() };
  }

  /** What the creator was sent about the project: recovery alerts, mails and queued bot messages. */
  async function sent(project: string) {
    const { db } = await testDatabase();
    const alerts = await db("creator_alerts")
      .where({ user_id: suite.creator.userId, about_project_id: project, class: "recovery" })
      .orderBy("created_at");
    const bodies = alerts.map((a: { body: string }) => a.body);
    const mails = await db("mail_outbox")
      .where({ to_address: suite.creator.email })
      .whereIn("body", bodies.length ? bodies : [""]);
    const ids = alerts.map((a: { id: string }) => a.id);
    const messages = await db("bot_messages")
      .where({ project_id: project, recipient: telegramAccount, subject_type: "creator_alert" })
      .whereIn("subject_id", ids.length ? ids : ["00000000-0000-0000-0000-000000000000"]);
    return { alerts, mails, messages };
  }

  it("finds a working installation healthy: status and last_probe_at set, an event, no alert", async () => {
    const { project, setting, bot, chats } = await probedProject();
    const platform = await testPlatform();
    const mark = platform.calls.length;
    assert.equal(await run(T0), 1);
    assert.deepEqual(await state(setting.id), { status: "healthy", last_probe_at: T0.toISOString() });
    const calls = platform.calls.slice(mark).filter((c) => c.bot === String(bot.id));
    assert.deepEqual(
      calls.map((c) => [c.name, c.params.chat_id ?? null]),
      [["getMe", null], ...chats.map((chat) => ["getChatMember", chat])],
    );
    assert.deepEqual((await sent(project)).alerts, []);
    const [event, ...more] = (await eventsOf(suite.creator.teamId, "recovery_setting.status_changed")).filter((e) => e.project_id === project);
    assert.deepEqual(more, []);
    assertValidEvent(event!);
    assert.deepEqual([event!.data.previous_status, event!.data.recovery_setting.status, event!.data.failing_places], [null, "healthy", []]);
    const res = await suite.client.get(`/v1/projects/${project}/recovery-settings/${setting.id}`);
    assert.deepEqual([res.body.data.status, res.body.data.last_probe_at], ["healthy", T0.toISOString()]);
    assert.equal(await run(minutes(5)), 0, "not due again before interval_minutes (15)");
  });

  it("a bot removed from a gated chat (the simulated page's button): degraded, one recovery alert by mail and bot, nothing more while it holds; back to healthy says so", async () => {
    const { project, installation, setting, bot, chats } = await probedProject();
    await run(T0);
    const platform = await testPlatform();
    const removal = await fetch(`${platform.url}/_sim/telegram/bot-status`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ bot: String(bot.id), chat: chats[0]!, status: "kicked" }).toString(),
      redirect: "manual",
    });
    assert.equal(removal.status, 303, await removal.text());
    assert.match(await (await fetch(`${platform.url}/_sim/telegram`)).text(), /Add the bot back as an administrator/);

    assert.equal(await run(minutes(15)), 1);
    assert.deepEqual(await state(setting.id), { status: "degraded", last_probe_at: minutes(15).toISOString() });
    const first = await sent(project);
    assert.equal(first.alerts.length, 1);
    const [alert] = first.alerts;
    assert.equal(alert.class, "recovery");
    assert.match(alert.title, /Telegram places the bot cannot manage/);
    assert.match(alert.body, new RegExp(`VIP channel \\(${chats[0]}\\): Forbidden: bot was kicked`));
    assert.doesNotMatch(alert.body, new RegExp(chats[1]!));
    assert.match(
      alert.body,
      new RegExp(
        `Make @${bot.username} \\(https://t.me/${bot.username}\\) an administrator of each place above \\(add it back where it was removed\\)`,
      ),
    );
    assert.equal(first.mails.length, 1, "recovery is critical: always also by email");
    assert.deepEqual(
      first.messages.map((m: { purpose: string; status: string; text: string }) => [m.purpose, m.status, m.text.split("\n")[0]]),
      [["alert", "queued", alert.title]],
    );
    // The bot message worker delivers it through the project's bot, which still reaches the creator privately.
    const mark = platform.calls.length;
    const { db } = await testDatabase();
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    await sendDueBotMessages({ db, kv: await testKv(), env, logger: testLogger, now: minutes(15), installations: [installation.id] });
    const delivered = platform.calls.slice(mark).filter((c) => c.name === "sendMessage" && c.bot === String(bot.id));
    assert.deepEqual(
      delivered.map((c) => [c.params.chat_id, String(c.params.text).split("\n")[0]]),
      [[telegramAccount, alert.title]],
    );

    assert.equal(await run(minutes(30)), 1, "the probe runs again and moves last_probe_at");
    assert.deepEqual(await state(setting.id), { status: "degraded", last_probe_at: minutes(30).toISOString() });
    const again = await sent(project);
    assert.deepEqual([again.alerts.length, again.mails.length, again.messages.length], [1, 1, 1], "the same state raises nothing more");

    platform.setTelegramBotStatus(bot.id, chats[0]!, "administrator");
    assert.equal(await run(minutes(45)), 1);
    assert.equal((await state(setting.id)).status, "healthy");
    const back = await sent(project);
    assert.equal(back.alerts.length, 2);
    assert.match(back.alerts[1].title, /works again/);
    const statuses = (await eventsOf(suite.creator.teamId, "recovery_setting.status_changed"))
      .filter((e) => e.project_id === project)
      .map((e) => [e.data.previous_status, e.data.recovery_setting.status]);
    assert.deepEqual(statuses, [
      [null, "healthy"],
      ["healthy", "degraded"],
      ["degraded", "healthy"],
    ]);
  });

  it("a revoked bot token: lost, with what to do (a new token) [claim telegram.capabilities.recovery_probes telegram.recovery.probes]", async () => {
    const { project, setting, bot } = await probedProject();
    await run(T0);
    (await testPlatform()).revokeTelegramToken(bot.token);
    assert.equal(await run(minutes(15)), 1);
    assert.equal((await state(setting.id)).status, "lost");
    const { alerts, mails, messages } = await sent(project);
    assert.equal(alerts.length, 1);
    assert.match(alerts[0].title, /Telegram installation lost/);
    assert.match(alerts[0].body, /Telegram refused the bot token/);
    assert.match(alerts[0].body, new RegExp(`PATCH /v1/projects/${project}/connectors/telegram with fields.bot_token`));
    assert.deepEqual([mails.length, messages.length], [1, 1]);
  });

  it("an unreachable platform is no verdict: status and last_probe_at stay, nothing is raised", async () => {
    const { project, setting } = await probedProject();
    await run(T0);
    const gone = await env();
    gone.platforms = { ...gone.platforms, telegramApiUrl: "http://127.0.0.1:9" };
    assert.equal(await run(minutes(15), gone), 0);
    assert.deepEqual(await state(setting.id), { status: "healthy", last_probe_at: T0.toISOString() });
    assert.deepEqual((await sent(project)).alerts, []);
  });

  it("probes follow the setting: none while probes are off", async () => {
    const { setting } = await probedProject({ enabled: false });
    assert.equal(await run(T0), 0);
    assert.deepEqual(await state(setting.id), { status: null, last_probe_at: null });
  });

  it("Telegram's my_chat_member (the bot removed from a chat, made an administrator again, demoted) probes the installation at once", async () => {
    const { project, setting, bot, chats } = await probedProject();
    await run(T0);
    const platform = await testPlatform();
    const standing = async (status: string) => {
      const res = await fetch(`${platform.url}/_sim/telegram/bot-status`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ bot: String(bot.id), chat: chats[0]!, status }).toString(),
        redirect: "manual",
      });
      assert.equal(res.status, 303, await res.text());
    };
    const updates = () => platform.calls.filter((c) => c.name === "getChatMember" && c.bot === String(bot.id)).length;
    const before = updates();
    await standing("kicked");
    assert.ok(updates() > before, "the webhook's update made the API probe the chats");
    const after = await state(setting.id);
    assert.equal(after.status, "degraded", "no run of the job was needed");
    assert.notEqual(after.last_probe_at, T0.toISOString());
    assert.equal((await sent(project)).alerts.length, 1);
    await standing("administrator");
    assert.equal((await state(setting.id)).status, "healthy");
    const alerts = (await sent(project)).alerts.map((a: { title: string }) => a.title);
    assert.equal(alerts.length, 2);
    assert.match(alerts[1]!, /works again/i);
    // Demoted to a plain member on the page (it can no longer invite or remove): degraded again, and the page offers it back.
    await standing("member");
    assert.equal((await state(setting.id)).status, "degraded");
    assert.match((await sent(project)).alerts[2].body, /not an administrator|rights/i);
    assert.match(
      await (await fetch(`${platform.url}/_sim/telegram`)).text(),
      /The bot: <span class="state removed">a plain member<\/span>.*Make it an administrator/,
    );
  });

  it("probes are on by default: an installation without a setting gets one with probes on, written by the system, and is probed", async () => {
    const project = await newProject(suite.creator, `Unset ${randomInt(1e6)}`);
    const { installation } = await installTelegram(suite.client, project);
    const { db } = await testDatabase();
    assert.equal((await db("recovery_settings").where({ installation_id: installation.id })).length, 0);
    const withPackages = { ...(await env()), connectors: repositoryConnectorRegistry() };
    const runWithPackages = (now: Date) => runRecoveryProbes(db, withPackages, now, { teamId: suite.creator.teamId });
    assert.ok((await runWithPackages(T0)) >= 2, "the default setting written, then its probe");
    const [setting] = await db("recovery_settings").where({ installation_id: installation.id });
    assert.deepEqual(
      [setting.probes_enabled, setting.probe_interval_minutes, setting.status, new Date(setting.last_probe_at).toISOString()],
      [true, 5, "healthy", T0.toISOString()],
    );
    const created = (await eventsOf(suite.creator.teamId, "recovery_setting.created")).filter((e) => e.data.recovery_setting?.id === setting.id);
    assert.equal(created.length, 1, "recorded like a creator's setting");
    // A creator who turns probes off is heard: the default is not written again.
    await db("recovery_settings").where({ id: setting.id }).update({ probes_enabled: false });
    await runWithPackages(minutes(60));
    assert.equal((await db("recovery_settings").where({ installation_id: installation.id })).length, 1);
    assert.equal((await state(setting.id)).last_probe_at, T0.toISOString());
  });

  describe("on Discord: gated roles as well as channels", () => {
    const snowflake = () => String(100_000_000_000_000_000n + BigInt(randomInt(1, 2 ** 47)));

    /** A new project running Discord with a gated role (below the bot's) and a channel, and a setting with probes on. */
    async function discordProject() {
      const project = await newProject(suite.creator, `Discord probed ${randomInt(1e6)}`);
      const { code, guild } = await newDiscordAuthorization();
      const install = await suite.client.post(installPath(project, "discord"), { oauth: { code, redirect_uri: "https://dashboard.test/discord" } });
      assert.equal(install.status, 201, JSON.stringify(install.body));
      const [role, channel] = [snowflake(), snowflake()];
      const platform = await testPlatform();
      platform.setDiscordRole(guild.id, role, { position: 1 });
      platform.setDiscordChannel(channel, guild.id);
      await createResource(suite.client, project, { connector: "discord", kind: "role", title: "Gold role", platform_ref: role });
      await createResource(suite.client, project, { connector: "discord", kind: "channel", title: "Gold lounge", platform_ref: channel });
      const setting = await createSetting(suite.client, project, { connector: "discord", probes: { enabled: true } });
      return { project, guild: guild.id, role, channel, setting, platform };
    }

    it("healthy with the role there and below the bot's; the role deleted: degraded naming it; the channel gone too: lost [claim discord.capabilities.recovery_probes discord.recovery.probes]", async () => {
      const { project, guild, role, channel, setting, platform } = await discordProject();
      const mark = platform.calls.length;
      assert.equal(await run(T0), 1);
      assert.equal((await state(setting.id)).status, "healthy");
      const routes = platform.calls.slice(mark).map((c) => `${c.method} ${c.name}`);
      assert.deepEqual(
        routes.filter((r) => r.startsWith(`GET /guilds/${guild}`) || r === "GET /users/@me" || r === `GET /channels/${channel}`),
        [
          `GET /guilds/${guild}`,
          `GET /channels/${channel}`,
          `GET /guilds/${guild}/roles`,
          "GET /users/@me",
          `GET /guilds/${guild}/members/${platform.discordBot.userId}`,
          `GET /guilds/${guild}/roles/${role}`,
        ],
        "the guild's roles are read once, then each gated role",
      );

      platform.setDiscordRole(guild, role, null);
      assert.equal(await run(minutes(15)), 1);
      assert.equal((await state(setting.id)).status, "degraded");
      const [alert, ...more] = (await sent(project)).alerts;
      assert.deepEqual(more, []);
      assert.match(alert.title, /Discord places the bot cannot manage/);
      assert.match(alert.body, new RegExp(`- Gold role \\(${role}\\): the role no longer exists`));
      assert.doesNotMatch(alert.body, new RegExp(channel));
      const [event] = (await eventsOf(suite.creator.teamId, "recovery_setting.status_changed")).filter(
        (e) => e.project_id === project && e.data.recovery_setting.status === "degraded",
      );
      assert.deepEqual(event!.data.failing_places, [{ place: role, titles: ["Gold role"], reason: "the role no longer exists" }]);

      platform.setDiscordChannel(channel, null);
      assert.equal(await run(minutes(30)), 1);
      assert.equal((await state(setting.id)).status, "lost");
      const lost = (await sent(project)).alerts[1];
      assert.match(lost.body, new RegExp(`- Gold role \\(${role}\\): the role no longer exists`));
      assert.match(lost.body, new RegExp(`- Gold lounge \\(${channel}\\): the channel no longer exists`));
    });

    it("a role the simulated server was never told of (an npm start walk) is an ordinary role below the bot's: healthy", async () => {
      const { project, setting, platform } = await discordProject();
      const unplaced = snowflake();
      await createResource(suite.client, project, { connector: "discord", kind: "role", title: "Silver role", platform_ref: unplaced });
      const mark = platform.calls.length;
      assert.equal(await run(T0), 1);
      assert.equal((await state(setting.id)).status, "healthy");
      assert.ok(platform.calls.slice(mark).some((c) => c.method === "GET" && c.name.endsWith(`/roles/${unplaced}`)));
    });

    it("a role moved above the bot's: degraded, saying the bot's role is not above it", async () => {
      const { project, guild, role, setting, platform } = await discordProject();
      await run(T0);
      platform.setDiscordRole(guild, role, { position: 11 });
      assert.equal(await run(minutes(15)), 1);
      assert.equal((await state(setting.id)).status, "degraded");
      const { alerts } = await sent(project);
      assert.equal(alerts.length, 1);
      assert.match(alerts[0].body, new RegExp(`- Gold role \\(${role}\\): the bot's role is not above this role`));
      assert.match(alerts[0].body, /Drag the SubBridge role above each role listed above/);
    });

    it("a role an integration manages: degraded, saying so, and the alert says to gate with a role of one's own", async () => {
      const { project, guild, role, setting, platform } = await discordProject();
      await run(T0);
      platform.setDiscordRole(guild, role, { position: 2, managed: true });
      assert.equal(await run(minutes(15)), 1);
      assert.equal((await state(setting.id)).status, "degraded");
      const { alerts } = await sent(project);
      assert.match(alerts[0].body, new RegExp(`- Gold role \\(${role}\\): the role is managed by an integration`));
      assert.match(alerts[0].body, /Gate with a role of your own instead of an integration's/);
    });

    it("the driver's probe: each role ok, deleted, an integration's, above or level with the bot's, or the bot without Manage Roles (Administrator will do)", async () => {
      const platform = await testPlatform();
      const guild = snowflake();
      const [below, deleted, above, level, managed] = [snowflake(), snowflake(), snowflake(), snowflake(), snowflake()];
      platform.setDiscordRole(guild, below, { position: 3 });
      platform.setDiscordRole(guild, managed, { position: 4, managed: true });
      platform.setDiscordRole(guild, deleted, { position: 2 });
      platform.setDiscordRole(guild, deleted, null);
      platform.setDiscordRole(guild, above, { position: 12 });
      platform.setDiscordRole(guild, level, { position: 10 });
      const session = driverFor("discord", await testPlatformEndpoints())!.session({ fields: {}, accountId: guild });
      assert.deepEqual(await session.probe([], { roles: [below, deleted, above, level, managed] }), {
        account: { ok: true },
        places: [
          { place: below, ok: true },
          { place: deleted, ok: false, reason: "the role no longer exists" },
          { place: above, ok: false, reason: "the bot's role is not above this role" },
          { place: level, ok: false, reason: "the bot's role is not above this role" },
          { place: managed, ok: false, reason: "the role is managed by an integration" },
        ],
      });
      // Discord refuses the grants the probe warned about.
      await assert.rejects(session.addRole(snowflake(), above), (err: Error & { kind?: string }) => err.kind === "refused");
      await assert.rejects(session.addRole(snowflake(), managed), (err: Error & { kind?: string }) => err.kind === "refused");

      const bot = platform.discordBot.roleId;
      platform.setDiscordRole(guild, bot, { position: 10, permissions: String(1024 | 2048) });
      const stripped = await session.probe([], { roles: [below] });
      assert.deepEqual(stripped.places, [{ place: below, ok: false, reason: "the bot lacks Manage Roles" }]);
      platform.setDiscordRole(guild, bot, { position: 10, permissions: String(1 << 3) });
      assert.deepEqual((await session.probe([], { roles: [below] })).places, [{ place: below, ok: true }]);

      platform.removeDiscordBot(guild);
      const out = await session.probe([], { roles: [below] });
      assert.deepEqual(out.places, [{ place: below, ok: false, reason: "the bot is no longer in the Discord server" }]);
    });
  });

  it("is the scheduled job recovery.probe, every 5 minutes, needing the platform settings", async () => {
    const [job, ...others] = scheduledJobs;
    assert.deepEqual([job!.name, job!.cron, others.length], ["recovery.probe", "*/5 * * * *", 0]);
    const { db } = await testDatabase();
    await assert.rejects(job!.run({ db, now: T0 }), /without the platform settings/);
  });
});
