// The Telegram bot's commands for the linked creator (issue 46): each creator command, by its name
// and by its management command id, answers a creator linked to the team with the ability (never
// the support acknowledgement, never "no such command"); a stranger, a creator of another team and
// a team member whose role lacks the ability are refused in words; /codes makes real codes; a
// member's support message reaches the linked creator's chat and /reply (or a reply to it) reaches
// the member; the bot's command menus are set with setMyCommands (the simulated Telegram records them).
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { SUPPORT_ACKNOWLEDGEMENT } from "../../src/apps/api/telegram-updates.ts";
import { linkIdentity } from "../../src/modules/account/identities.ts";
import { startIdentityLink } from "../../src/modules/account/identity-links.ts";
import { hashCode } from "../../src/modules/access-codes/codes.ts";
import { CREATOR_COMMANDS, MEMBER_COMMANDS } from "../../src/modules/connectors/bot/bot-commands.ts";
import { NOT_A_CREATOR, notAllowed } from "../../src/modules/connectors/bot/creator-commands.ts";
import { updatesSecret } from "../../src/modules/connectors/bot/session.ts";
import { createDefaultSetting } from "../../src/modules/recovery/recovery-settings.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { testDatabase } from "../helpers/backends.ts";
import { createTestCreator, joinTeamWithToken, type TestCreator } from "../helpers/fixtures.ts";
import { newTelegramBot, testPlatform } from "../helpers/platforms.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { codesFor } from "../modules/subscriptions/commerce.ts";
import { installPath, installTelegram, newProject } from "../modules/connectors/support.ts";
import { botStart, projectWithPlan, type PortalProjectFixture } from "../portal/support.ts";

describe("connector bot: the linked creator's commands", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let fixture: PortalProjectFixture;
  const owner = randomInt(10_000_000, 99_999_999);
  const teammate = randomInt(10_000_000, 99_999_999);
  const outsider = randomInt(10_000_000, 99_999_999);
  let colleague: TestCreator;

  /** Links `account` (a Telegram user id) to `creator`, as the bot's identity link does. */
  async function link(creator: TestCreator, teamId: string, account: number) {
    const { db } = await testDatabase();
    const actor = { userId: creator.userId, teamId, projectIds: null, kind: "api_token" as const, credentialKind: null, requestId: null };
    await db.transaction((trx) =>
      linkIdentity(createDomainContext(trx, actor, new Date()), { connector: "telegram", accountId: String(account), displayName: "Creator" }),
    );
  }

  before(async () => {
    fixture = await projectWithPlan(suite);
    await link(suite.creator, suite.creator.teamId, owner);
    colleague = await createTestCreator({ label: "colleague" });
    // A member of the team whose built-in role reads but does not change.
    await joinTeamWithToken(suite.creator, colleague, ["dashboard:read"], "member");
    await link(colleague, suite.creator.teamId, teammate);
    const stranger = await createTestCreator({ label: "other-team" });
    await link(stranger, stranger.teamId, outsider);
  });

  /**
   * Telegram delivering a private message `text` from `userId` (replying to the bot's message
   * `replyTo` when given); answers what the bot sent back in that chat.
   */
  async function say(userId: number, text: string, replyTo?: string): Promise<string> {
    const mark = (await testPlatform()).calls.length;
    const from = { id: userId, is_bot: false, first_name: "Ada", last_name: "Member" };
    const quoted = replyTo ? { reply_to_message: { message_id: 7, date: 1, chat: { id: userId, type: "private" }, text: replyTo, from: bot() } } : {};
    const message = {
      message_id: randomInt(1, 1e6),
      date: Math.floor(Date.now() / 1000),
      chat: { id: userId, type: "private" },
      from,
      text,
      ...quoted,
    };
    const res = await fetch(`${suite.api.url}/connectors/telegram/${fixture.installation.id}/updates`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, fixture.installation.id) },
      body: JSON.stringify({ update_id: randomInt(1, 1e9), message }),
    });
    assert.equal(res.status, 200);
    const sent = (await testPlatform()).calls
      .slice(mark)
      .filter((c) => c.bot === String(fixture.bot.id) && c.name === "sendMessage" && String(c.params.chat_id) === String(userId));
    return sent.map((c) => String(c.params.text)).join("\n");
  }
  const bot = () => ({ id: fixture.bot.id, is_bot: true, first_name: "bot", username: "bot" });

  /** A real answer: not the support relay's acknowledgement, not "no such command", not silence. */
  function answered(text: string, command: string) {
    assert.ok(text.length > 0, `${command}: no answer`);
    assert.notEqual(text, SUPPORT_ACKNOWLEDGEMENT, command);
    assert.doesNotMatch(text, /There is no \/\w+ command here|This command is for the community's creators|does not allow/, `${command}: ${text}`);
  }

  it("answers every creator command of the table by its name and by its management command id, for the linked owner [claim telegram.capabilities.management_surface telegram.management_commands.access_codes_generate telegram.management_commands.recovery_status telegram.management_commands.creator_tasks]", async () => {
    for (const command of CREATOR_COMMANDS) {
      for (const word of [command.name, ...(command.id ? [command.id] : [])]) answered(await say(owner, `/${word}`), `/${word}`);
    }
    const stats = await say(owner, "/stats");
    assert.match(stats, /^Today \(UTC \d{4}-\d{2}-\d{2}\):\nActive members: \d+\nMRR: .+\nFailed payments today: \d+/);
    // The bot's @name after the command is Telegram's form in a chat with several bots.
    assert.equal(await say(owner, "/stats@some_bot"), stats);
  });

  it("lists the commands a creator may use on /help, and only the member commands for anyone else", async () => {
    const mine = await say(owner, "/help");
    for (const c of [...MEMBER_COMMANDS.map((m) => m.command), ...CREATOR_COMMANDS.map((m) => m.name)])
      assert.ok(mine.includes(`/${c}:`), `${c} in ${mine}`);
    const theirs = await say(randomInt(10_000_000, 99_999_999), "/help");
    assert.match(theirs, /^Commands:\n\/start: /);
    assert.ok(!theirs.includes("For the team"), theirs);
    assert.ok(!theirs.includes("/codes"), theirs);
  });

  it("refuses a stranger and a creator of another team in words, and a teammate the commands their role does not grant", async () => {
    const { db } = await testDatabase();
    const codesBefore = Number((await db("access_codes").where({ project_id: fixture.projectId }).count({ n: "*" }).first())!.n);
    for (const who of [randomInt(10_000_000, 99_999_999), outsider]) {
      for (const command of ["/stats", "/codes 1 2", "/access_codes_generate 1 2", "/reply 12345678 hi", "/recovery_status", "/tasks"])
        assert.equal(await say(who, command), NOT_A_CREATOR, `${who} ${command}`);
    }
    // The member role reads (dashboard, recovery, tasks) but neither generates codes nor answers support.
    answered(await say(teammate, "/stats"), "/stats by a member");
    answered(await say(teammate, "/recovery"), "/recovery by a member");
    assert.equal(await say(teammate, "/codes 1 2"), notAllowed("codes"));
    assert.equal(await say(teammate, "/support_reply 12345678 hi"), notAllowed("reply"));
    const teammateHelp = await say(teammate, "/help");
    assert.ok(teammateHelp.includes("/stats:") && !teammateHelp.includes("/codes:"), teammateHelp);
    assert.equal(Number((await db("access_codes").where({ project_id: fixture.projectId }).count({ n: "*" }).first())!.n), codesBefore);
    assert.match(await say(owner, "/nonsense"), /^There is no \/nonsense command here\. Send \/help/);
  });

  it("/codes lists the published plans, makes real codes of the numbered one (at most 20) and counts them as the API does", async () => {
    assert.match(await say(owner, "/codes"), /^Plans:\n1\. Night Owl monthly \(.+\)\nSend \/codes <plan number>/);
    const made = await say(owner, "/access_codes_generate 1 3");
    const codes = made.split("\n").filter((line) => /^[0-9a-f-]{36}$/.test(line));
    assert.equal(codes.length, 3, made);
    assert.ok(made.startsWith("3 access codes for Night Owl monthly"), made);
    assert.ok(made.includes(`${fixture.installation.bot_url}?start=<code>`), made);
    const { db } = await testDatabase();
    const rows = await db("access_codes").whereIn("code_hash", codes.map(hashCode));
    assert.deepEqual(
      rows.map((r: { plan_id: string; status: string; created_by_user_id: string }) => [r.plan_id, r.status, r.created_by_user_id]),
      codes.map(() => [fixture.plan.planId, "unredeemed", suite.creator.userId]),
    );
    const entry = await db("activity_log")
      .where({ team_id: suite.creator.teamId, event: "access_codes_generated" })
      .orderBy("created_at", "desc")
      .first();
    assert.equal(entry.causer_id, suite.creator.userId);
    assert.match(await say(owner, "/codes 1 21"), /at most 20 codes at a time: generate more on the dashboard/);
    assert.match(await say(owner, "/codes 9"), /^There is no plan 9\./);
  });

  it("/recovery shows the settings and last probe; /tasks the open hand-overs", async () => {
    const { db } = await testDatabase();
    const row = await db("connector_installations").where({ id: fixture.installation.id }).first();
    await db.transaction((trx) => createDefaultSetting(createDomainContext(trx, systemActor(suite.creator.teamId), new Date()), row));
    await db("recovery_settings")
      .where({ installation_id: fixture.installation.id })
      .update({ status: "degraded", last_probe_at: new Date("2026-11-20T10:00:00Z"), failing_places: JSON.stringify(["-100555"]) });
    const recovery = await say(owner, "/recovery_status");
    assert.match(recovery, /^Recovery:\ntelegram \(.+\): degraded, last probe 2026-11-20 10:00 UTC\n• probes every \d+ min/);
    assert.ok(recovery.includes("• failing: -100555"), recovery);

    const [code] = await codesFor(suite.creator, fixture.plan);
    await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, randomInt(10_000_000, 99_999_999), code!);
    const tasks = await say(owner, "/creator_tasks");
    assert.match(tasks, /^Open creator tasks \(\d+\):\n• Signed print for Ada Member/);
  });

  it("relays a member's support message to the linked creators who answer support, and /reply or a reply to it reaches the member [claim telegram.management_commands.support_reply]", async () => {
    const { db } = await testDatabase();
    const member = randomInt(10_000_000, 99_999_999);
    const messagesTo = async (recipient: number, purpose: string) =>
      (await db("bot_messages")
        .where({ installation_id: fixture.installation.id, purpose, recipient: String(recipient) })
        .orderBy("seq")) as {
        text: string;
      }[];
    // The owner's support alerts go to this account by default: the alert names the conversation, no second message.
    assert.equal(await say(member, "Where is my invite?"), SUPPORT_ACKNOWLEDGEMENT);
    const conversation = await db("support_conversations")
      .join("members", "members.id", "support_conversations.member_id")
      .where({ "members.external_user_id": String(member), "support_conversations.project_id": fixture.projectId })
      .first("support_conversations.id");
    const alert = (await messagesTo(owner, "alert")).find((m) => m.text.includes(`(${conversation.id}).`));
    assert.ok(alert, "the support alert reached the owner's account");
    assert.equal((await messagesTo(owner, "support_relay")).length, 0);
    assert.equal(await say(owner, "It is on its way", alert.text), "Your reply is on its way to the member.");

    // The member role does not answer support: the teammate gets nothing yet.
    assert.equal((await messagesTo(teammate, "support_relay")).length, 0);
    assert.equal(await say(teammate, "/reply 12345678 hi"), notAllowed("reply"));

    // A group gives the teammate support on the project (no support alerts: they are no admin): the message is forwarded to them.
    await db("groups").insert({
      id: randomUUID(),
      team_id: suite.creator.teamId,
      code: `support-${randomInt(1e6)}`,
      name: "Support desk",
      abilities: JSON.stringify(["support-conversation:update"]),
      project_ids: JSON.stringify([fixture.projectId]),
      member_user_ids: JSON.stringify([colleague.userId]),
      created_at: new Date(),
      updated_at: new Date(),
    });
    // The owner routes support alerts away from this account: neither the alert nor the forwarded message comes here.
    const routing = db("alert_destinations").where({ user_id: suite.creator.userId, kind: "connector_identity", target: String(owner) });
    assert.equal(await routing.clone().update({ classes: JSON.stringify(["sales"]) }), 1);
    const alertsBefore = (await messagesTo(owner, "alert")).length;
    await say(member, "Still nothing?");
    assert.equal((await messagesTo(owner, "support_relay")).length, 0);
    assert.equal((await messagesTo(owner, "alert")).length, alertsBefore);
    await routing.clone().update({ classes: null });
    const [relayed] = await messagesTo(teammate, "support_relay");
    const short = String(conversation.id).slice(0, 8);
    assert.match(relayed!.text, new RegExp(`^Support: Ada Member wrote \\(conversation ${short}\\):\\n\\nStill nothing\\?\\n\\n`));
    assert.ok(relayed!.text.endsWith(`send /reply ${short} <your answer>.`), relayed!.text);

    assert.equal(await say(teammate, `/reply ${short} Here is the link`), "Your reply is on its way to the member.");
    assert.equal(await say(teammate, "And the rules", relayed!.text), "Your reply is on its way to the member.");
    assert.deepEqual(
      (await messagesTo(member, "support_reply")).map((r) => r.text),
      ["It is on its way", "Here is the link", "And the rules"],
    );
    const authors = await db("support_messages")
      .where({ conversation_id: conversation.id, direction: "out" })
      .orderBy("created_at")
      .pluck("author_user_id");
    assert.deepEqual(authors, [suite.creator.userId, colleague.userId, colleague.userId]);
    assert.match(await say(owner, `/support_reply ${randomUUID()} hello`), /^There is no conversation [0-9a-f-]{36} in this community\.$/);
    // A member's reply to the bot's message is a support message as before (no answer after the first).
    assert.equal(await say(member, "Thanks", SUPPORT_ACKNOWLEDGEMENT), "");
  });

  it("/broadcast previews the message with the members it reaches; yes in reply to the preview sends it to them, as the creator [claim telegram.management_commands.broadcast telegram.overview.reply-to-members-support-messages-and]", async () => {
    const { db } = await testDatabase();
    const [code] = await codesFor(suite.creator, fixture.plan, 1);
    const member = randomInt(10_000_000, 99_999_999);
    await say(member, `/start ${code}`);
    const text = `Live tonight at 8 (${randomUUID().slice(0, 8)})`;
    const preview = await say(owner, `/broadcast ${text}`);
    assert.match(preview, /^📣 Broadcast preview: to [1-9]\d* members? with a live membership on this bot \(\d+ opted out\)\.\n/);
    assert.ok(preview.includes(`\n———\n${text}\n———\n`), preview);
    const ofText = () => db("broadcasts").where({ project_id: fixture.projectId, text });
    assert.equal((await ofText()).length, 0, "a preview sends nothing");
    assert.equal(await say(owner, "/broadcast yes"), 'To send a broadcast, reply "yes" to its preview.');
    // A teammate whose role lacks broadcast:send can neither preview nor confirm.
    assert.equal(await say(teammate, `/broadcast ${text}`), notAllowed("broadcast"));
    assert.equal(await say(teammate, "yes", preview), notAllowed("broadcast"));
    assert.equal((await ofText()).length, 0);

    assert.match(await say(owner, "yes", preview), /^Sending to [1-9]\d* members? \(\d+ opted out\)\./);
    const [row] = await ofText();
    assert.equal(row.created_by_user_id, suite.creator.userId);
    const queued = await db("bot_messages").where({ installation_id: fixture.installation.id, purpose: "broadcast", recipient: String(member) });
    assert.equal(queued.length, 1);
    assert.ok(String(queued[0].text).includes(text));
  });

  it("[claim telegram.settings.language] answers the creator in the installation's language: /stats, /help, refusals, and a /broadcast preview confirmed with yes", async () => {
    const language = (value: string) => suite.client.request("PATCH", installPath(fixture.projectId), { body: { settings: { language: value } } });
    assert.equal((await language("de")).status, 200);
    try {
      assert.match(
        await say(owner, "/stats"),
        /^Heute \(UTC \d{4}-\d{2}-\d{2}\):\nAktive Mitglieder: \d+\nMRR: .+\nFehlgeschlagene Zahlungen heute: \d+/,
      );
      assert.match(
        await say(owner, "/help"),
        /^Befehle:\n\/start: Pläne und deinen Zugang ansehen\n[\s\S]*\nFür das Team:\n\/stats: aktive Mitglieder/,
      );
      assert.equal(await say(teammate, "/codes 1"), "Deine Rolle in diesem Team erlaubt /codes nicht. Frag den Besitzer des Teams danach.");
      assert.match(await say(owner, "/nope"), /^Hier gibt es keinen Befehl \/nope\./);
      const preview = await say(owner, `/broadcast Heute Abend live (${randomUUID().slice(0, 8)})`);
      assert.match(preview, /^📣 Vorschau der Rundnachricht: an \d+ Mitglieder? mit laufender Mitgliedschaft/);
      assert.match(await say(owner, "yes", preview), /^Wird an \d+ Mitglied(?:er)? gesendet/);
    } finally {
      assert.equal((await language("en")).status, 200);
    }
  });

  it("sets the member menu for every private chat at install and the creator's menu in their chat when they link", async () => {
    const platform = await testPlatform();
    assert.deepEqual(
      platform.telegramCommands(fixture.bot.id, { type: "all_private_chats" }).map((c) => c.command),
      MEMBER_COMMANDS.map((c) => c.command),
    );
    const { db } = await testDatabase();
    const admin = randomInt(10_000_000, 99_999_999);
    const installation = await db("connector_installations").where({ id: fixture.installation.id }).first();
    const actor = { ...systemActor(suite.creator.teamId), userId: suite.creator.userId };
    const { payload } = await db.transaction((trx) => startIdentityLink(createDomainContext(trx, actor, new Date()) as never, installation));
    await db("identities").where({ user_id: suite.creator.userId }).delete();
    assert.match(await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, admin, payload), /now linked/);
    const menu = platform.telegramCommands(fixture.bot.id, { type: "chat", chat_id: String(admin) }).map((c) => c.command);
    assert.deepEqual(menu, [...MEMBER_COMMANDS.map((c) => c.command), ...CREATOR_COMMANDS.map((c) => c.name)]);
    const task = await db("connector_platform_tasks").where({ installation_id: fixture.installation.id, action: "advertise_commands" }).first();
    assert.deepEqual([task.chat_id, task.outcome], [String(admin), "done"]);

    // Another bot of the team, installed once the creator is linked: their chat's menu is set at install.
    const other = await installTelegram(suite.client, await newProject(suite.creator, "Second community"));
    const otherMenu = platform.telegramCommands(other.bot.id, { type: "chat", chat_id: String(admin) }).map((c) => c.command);
    assert.deepEqual(otherMenu, menu);
    assert.deepEqual(
      platform.telegramCommands(other.bot.id, { type: "chat", chat_id: String(teammate) }).map((c) => c.command),
      [...MEMBER_COMMANDS.map((c) => c.command), "stats", "recovery", "tasks"],
      "the member role's commands, without the group's project",
    );
  });

  it("the simulated Telegram takes setMyCommands and getMyCommands as the Bot API does", async () => {
    const platform = await testPlatform();
    const { token } = await newTelegramBot();
    const call = async (method: string, params: Record<string, unknown>) => {
      const res = await fetch(`${platform.url}/bot${token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params),
      });
      return { status: res.status, body: (await res.json()) as { ok: boolean; result?: unknown; description?: string } };
    };
    const scope = { type: "chat", chat_id: 4242 };
    assert.deepEqual(await call("setMyCommands", { commands: [{ command: "Stats!", description: "x" }], scope }), {
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: BOT_COMMAND_INVALID" },
    });
    assert.equal((await call("setMyCommands", { commands: [{ command: "stats", description: "x" }], scope: { type: "nowhere" } })).status, 400);
    assert.deepEqual((await call("setMyCommands", { commands: [{ command: "stats", description: "Numbers" }], scope })).body, {
      ok: true,
      result: true,
    });
    assert.deepEqual((await call("getMyCommands", { scope })).body.result, [{ command: "stats", description: "Numbers" }]);
    assert.deepEqual((await call("getMyCommands", {})).body.result, [], "the default scope is another menu");
    assert.deepEqual((await call("deleteMyCommands", { scope })).body, { ok: true, result: true });
    assert.deepEqual((await call("getMyCommands", { scope })).body.result, []);
  });
});
