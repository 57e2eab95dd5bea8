// No platform call inside a transaction: an install's credentials are verified before its
// transaction opens, and what the change asks of the platform (a bot's updates pointed here, or
// stopped) is a task written with the change and carried out after COMMIT, tried again by the
// connectors.platform-tasks job while the platform fails.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../helpers/http.ts";
import { startApi, TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase, usingPostgres } from "../../helpers/backends.ts";
import { newTelegramBot, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { fakePlatformEndpoints } from "../../../src/outside/platforms.ts";
import { PLATFORM_SETUP_VERSION, queuePlatformTask, reintroduceBots, runPlatformTasks } from "../../../src/modules/connectors/platform-tasks.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import type { InstallationRow } from "../../../src/modules/connectors/tables.ts";
import { installPath, installTelegram, newProject } from "./support.ts";

async function tasksOf(installationId: string) {
  const { db } = await testDatabase();
  return db("connector_platform_tasks").where({ installation_id: installationId }).orderBy("created_at").orderBy("action");
}

function botCalls(fake: FakePlatform, bot: { id: number }, from = 0) {
  return fake.calls
    .slice(from)
    .filter((c) => c.bot === String(bot.id))
    .map((c) => c.name);
}

describe("connector platform calls outside transactions", () => {
  const suite = useApiWithCreator({ creator: { label: "platform-tasks" } });

  it("verifies the credentials before the install's transaction opens: the project changes meanwhile", async () => {
    const slow = await startFakePlatform();
    const bot = { token: `876543219:${"C".repeat(35)}`, id: 876543219 };
    slow.addTelegramBot(bot.token, { id: bot.id, username: "patient_bot" });
    slow.delay(5_000);
    const api = await startApi({ platforms: fakePlatformEndpoints(slow, 15_000) });
    try {
      const client = new ApiClient(api.url, suite.creator.token);
      const project = await newProject(suite.creator);
      const install = client.post(installPath(project), { fields: { bot_token: bot.token } });
      // The install now waits on getMe: a transaction open around it would hold the project (and,
      // embedded, the whole database) until the platform answers.
      await new Promise((r) => setTimeout(r, 600));
      const renamed = await client.patch(`/v1/projects/${project}`, { name: "Renamed while the platform thinks" });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.deepEqual(botCalls(slow, bot), [], "the rename answered before the platform answered the install's getMe");
      if (usingPostgres) {
        // On PostgreSQL the rename would pass a transaction that holds no lock yet: none may stay open
        // since before the rename (another test's brief commit is younger).
        const { db } = await testDatabase();
        const open = await db.raw(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%' and now() - xact_start > interval '400 milliseconds'",
        );
        assert.equal(open.rows[0].n, 0, "no transaction is open while the platform answers");
      }
      const res = await install;
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(botCalls(slow, bot), ["getMe", "setWebhook", "setMyCommands"]);
      const [task] = await tasksOf(res.body.data.id);
      assert.equal(task.action, "deliver_updates");
      assert.equal(task.outcome, "done");
      assert.equal(task.target_url, `${api.url}/connectors/telegram/${res.body.data.id}/updates`);
    } finally {
      await api.close();
      await slow.close();
    }
  });

  it("uninstalls while the platform is down; the job stops the bot's updates once it answers", async () => {
    const platform = await startFakePlatform();
    const token = `765432198:${"D".repeat(35)}`;
    const bot = { id: 765432198, username: "gone_bot" };
    platform.addTelegramBot(token, bot);
    const api = await startApi({ platforms: fakePlatformEndpoints(platform, 1_000) });
    let later: FakePlatform | null = null;
    try {
      const client = new ApiClient(api.url, suite.creator.token);
      const project = await newProject(suite.creator);
      const installed = await client.post(installPath(project), { fields: { bot_token: token } });
      assert.equal(installed.status, 201, JSON.stringify(installed.body));
      const id = installed.body.data.id as string;
      await platform.close();

      const removed = await client.request("DELETE", installPath(project));
      assert.equal(removed.status, 204, "the platform being down does not keep an installation the creator removes");
      const [, stop] = await tasksOf(id);
      assert.equal(stop.action, "stop_updates");
      assert.equal(stop.finished_at, null, "the stop waits for the platform");
      assert.equal(stop.attempts, 1);
      assert.ok(stop.last_error, "the failure is recorded on the task");

      later = await startFakePlatform();
      later.addTelegramBot(token, bot);
      const { db } = await testDatabase();
      const env = { platforms: fakePlatformEndpoints(later), appKey: TEST_APP_KEY };
      assert.equal(await runPlatformTasks(db, env, new Date(), { taskIds: [stop.id] }), 0, "not due before its retry delay");
      const due = new Date(Date.now() + 31_000);
      assert.equal(await runPlatformTasks(db, env, due, { taskIds: [stop.id] }), 1);
      assert.deepEqual(botCalls(later, bot), ["deleteWebhook"]);
      const [, done] = await tasksOf(id);
      assert.equal(done.outcome, "done");
      assert.equal(done.attempts, 2);
      assert.equal(await runPlatformTasks(db, env, new Date(due.getTime() + 3_600_000), { taskIds: [stop.id] }), 0, "a done task never runs again");
    } finally {
      await api.close();
      await platform.close();
      await later?.close();
    }
  });

  it("a new bot token: the old bot's updates stop and the new bot's point at the installation", async () => {
    const fake = await testPlatform();
    const project = await newProject(suite.creator);
    const { installation, bot: first } = await installTelegram(suite.client, project);
    const second = await newTelegramBot("successor");
    const mark = fake.calls.length;
    const res = await suite.client.patch(installPath(project), { fields: { bot_token: second.token } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(botCalls(fake, first, mark), ["deleteWebhook"]);
    // With its updates, the new bot gets the members' command menu (setMyCommands for all private chats).
    assert.deepEqual(botCalls(fake, second, mark), ["getMe", "setWebhook", "setMyCommands"]);
    const tasks = await tasksOf(installation.id);
    assert.deepEqual(
      tasks.map((t) => [t.action, t.platform_account_id, t.outcome]),
      [
        ["deliver_updates", String(first.id), "done"],
        ["deliver_updates", String(second.id), "done"],
        ["stop_updates", String(first.id), "done"],
      ],
    );
  });

  it("a new simulation (every npm start serves one) learns the active installations' bots, as Telegram would have kept their webhooks", async () => {
    const { installation, bot } = await installTelegram(suite.client, await newProject(suite.creator));
    const kept = (await testPlatform()).telegramWebhook(bot.id);
    assert.ok(kept, "the install pointed the bot's updates at the installation");
    const gone = await newProject(suite.creator);
    const uninstalled = await installTelegram(suite.client, gone);
    assert.equal((await suite.client.request("DELETE", installPath(gone))).status, 204);

    const fresh = await startFakePlatform({ acceptAny: true });
    try {
      assert.equal(fresh.telegramWebhook(bot.id), null, "a new simulation knows no bot");
      const { db } = await testDatabase();
      const env = { platforms: fakePlatformEndpoints(fresh), appKey: TEST_APP_KEY, baseUrl: suite.api.url };
      const carried = await reintroduceBots(db, env, new Date(), { teamId: suite.creator.teamId });
      assert.ok(carried >= 1);
      assert.deepEqual(fresh.telegramWebhook(bot.id), kept, "the same address and secret as the install set");
      assert.equal(fresh.telegramWebhook(uninstalled.bot.id), null, "an uninstalled bot stays silent");
      assert.equal((await tasksOf(installation.id)).at(-1).outcome, "done");
    } finally {
      await fresh.close();
    }
  });

  it("sets up once more, at a start, a bot an older release set up: the updates a hold needs (chat_join_request) and the members' menu", async () => {
    const { installation, bot } = await installTelegram(suite.client, await newProject(suite.creator));
    const { db } = await testDatabase();
    const row = () => db("connector_installations").where({ id: installation.id }).first("platform_setup_version");
    assert.equal((await row()).platform_setup_version, PLATFORM_SETUP_VERSION, "an install sets the bot up as this release does");
    // As a bot set up before issue 46 was: its webhook without chat_join_request, no menu.
    await db("connector_installations").where({ id: installation.id }).update({ platform_setup_version: 1 });
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY, baseUrl: suite.api.url };
    const mark = (await testPlatform()).calls.length;
    assert.ok((await reintroduceBots(db, env, new Date(), { teamId: suite.creator.teamId, outdated: true })) >= 1);
    const calls = botCalls(await testPlatform(), bot, mark);
    assert.ok(calls.includes("setWebhook") && calls.includes("setMyCommands"), calls.join(", "));
    assert.ok((await testPlatform()).telegramWebhook(bot.id)?.allowed_updates?.includes("chat_join_request"));
    assert.equal((await row()).platform_setup_version, PLATFORM_SETUP_VERSION);
    const again = (await testPlatform()).calls.length;
    await reintroduceBots(db, env, new Date(), { teamId: suite.creator.teamId, outdated: true });
    assert.deepEqual(botCalls(await testPlatform(), bot, again), [], "once: the next start asks nothing of it");
  });

  it("asks nothing of the platform for a change that rolls back, and keeps only a bot's latest wish", async () => {
    const { db } = await testDatabase();
    const project = await newProject(suite.creator);
    const installation = {
      id: randomUUID(),
      project_id: project,
      connector_key: "telegram",
      platform_account_id: "42",
      credentials: null,
    } as unknown as InstallationRow;
    const env = { baseUrl: "https://api.example.test" };
    await assert.rejects(
      db.transaction(async (trx) => {
        await queuePlatformTask(createDomainContext(trx, systemActor(suite.creator.teamId), new Date()), env, installation, "deliver_updates");
        throw new Error("the change failed after queueing");
      }),
      /the change failed/,
    );
    assert.deepEqual(await tasksOf(installation.id), [], "nothing was queued");

    await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(suite.creator.teamId), new Date());
      await queuePlatformTask(ctx, env, installation, "deliver_updates");
      await queuePlatformTask(ctx, env, installation, "stop_updates");
    });
    const tasks = await tasksOf(installation.id);
    assert.deepEqual(tasks.map((t) => [t.action, t.outcome]).sort(), [
      ["deliver_updates", "superseded"],
      ["stop_updates", null],
    ]);
    await db("connector_platform_tasks").where({ installation_id: installation.id }).delete();
  });
});
