// raiseAlert's choices (rule 5): the bot a creator linked their account through carries their
// alerts, a team's alert reaches its owner and admins only, a dedupe key makes raising it again a
// no-op, and an account no bot can reach gets the alert by email instead.
import assert from "node:assert/strict";
import { raiseAlert } from "../../../src/modules/alerts/raise.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import type { InstallationRow } from "../../../src/modules/connectors/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, joinTeamWithToken } from "../../helpers/fixtures.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { link } from "../account/support.ts";
import { installationRow, installTelegram } from "../connectors/support.ts";
import { deliveries, linkThrough } from "./support.ts";

const alert = (title: string, extra: Record<string, unknown> = {}) => ({ class: "sales" as const, title, body: `${title}: body`, ...extra });

describe("raising a creator alert (raiseAlert)", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth", projects: 2 } });
  let first: InstallationRow;
  let second: InstallationRow;

  before(async () => {
    await installTelegram(suite.client, suite.creator.projectIds[0]!);
    await installTelegram(suite.client, suite.creator.projectIds[1]!);
    first = await installationRow(suite.creator.projectIds[0]!);
    second = await installationRow(suite.creator.projectIds[1]!);
  });

  it("goes through the bot the account was linked through, even for another project's alert", async () => {
    const { db } = await testDatabase();
    const account = await linkThrough(suite.creator, second);
    const [id] = await raiseAlert(db, new Date(), { userIds: [suite.creator.userId] }, alert("A sale", { projectId: first.project_id }));
    const row = await db("creator_alerts").where({ id }).first();
    assert.deepEqual(row.sent_to_accounts, [{ connector: "telegram", account_id: account }]);
    assert.equal(row.sent_to_email, false, "a non-critical class routed to a reachable account: no mail");
    const [message] = await db("bot_messages").where({ subject_id: id });
    assert.deepEqual(
      [message.installation_id, message.recipient, message.purpose, message.status, message.text],
      [second.id, account, "alert", "queued", "A sale\n\nA sale: body"],
    );
  });

  it("addresses a team's alert to its owner and admins, not its other members", async () => {
    const { db } = await testDatabase();
    const admin = await createTestCreator({ label: "admin" });
    const member = await createTestCreator({ label: "member" });
    await joinTeamWithToken(suite.creator, admin, ["team:view"], "admin");
    await joinTeamWithToken(suite.creator, member, ["team:view"], "member");
    const ids = await raiseAlert(db, new Date(), { team: suite.creator.teamId }, alert("Team news", { teamId: suite.creator.teamId }));
    const rows = await db("creator_alerts").whereIn("id", ids);
    assert.deepEqual(rows.map((r: { user_id: string }) => r.user_id).sort(), [suite.creator.userId, admin.userId].sort());
  });

  it("raises an alert with a dedupe key once per creator", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ label: "dedupe" });
    const account = (await link(creator)).account_id;
    const raise = () => raiseAlert(db, new Date(), { userIds: [creator.userId] }, alert("Once", { class: "security", dedupeKey: "once" }));
    assert.equal((await raise()).length, 1);
    assert.deepEqual(await raise(), []);
    const { alerts, mail } = await deliveries(creator, account);
    assert.equal(alerts.length, 1);
    assert.equal(mail.filter((m: { subject: string }) => m.subject.endsWith("Once")).length, 1, "one mail (security is critical)");
  });

  it("mails an alert the bot could not deliver (the creator blocked it) once, saying why", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ label: "blocked", tier: "growth" });
    const { bot } = await installTelegram(suite.client.withToken(creator.token), creator.projectIds[0]!);
    const installation = await installationRow(creator.projectIds[0]!);
    const account = await linkThrough(creator, installation);
    const [id] = await raiseAlert(db, new Date(), { userIds: [creator.userId] }, alert("Blocked sale", { projectId: installation.project_id }));
    assert.equal((await db("creator_alerts").where({ id }).first()).sent_to_email, false);
    (await testPlatform()).setTelegramBotStatus(bot.id, account, "kicked");
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const send = () => sendDueBotMessages({ db, kv: suite.api.deps.kv, env, logger: testLogger, now: new Date(), installations: [installation.id] });
    assert.deepEqual(
      (await send()).filter((o) => o.message.recipient === account).map((o) => o.result),
      ["failed"],
    );
    const { messages, mail: all } = await deliveries(creator, account);
    const sale = (mail: { subject: string; body: string }[]) => mail.filter((m) => m.subject.endsWith("Blocked sale"));
    const mail = sale(all);
    assert.deepEqual(
      messages.map((m: { status: string; last_error: string }) => [m.status, m.last_error]),
      [["failed", "Telegram refused sendMessage: Forbidden: bot was blocked by the user."]],
    );
    assert.deepEqual(
      mail.map((m: { subject: string; body: string }) => [m.subject, m.body]),
      [
        [
          "SubBridge: Blocked sale",
          "Blocked sale: body\n\nThis alert comes by email: the bot could not reach your Telegram account: Telegram refused sendMessage: Forbidden: bot was blocked by the user.",
        ],
      ],
    );
    assert.equal((await db("creator_alerts").where({ id }).first()).sent_to_email, true);
    await send();
    assert.equal(sale((await deliveries(creator, account)).mail).length, 1, "mailed once");
  });

  it("sends an account no bot can reach its alert by email instead", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ label: "unreachable" });
    const account = (await link(creator)).account_id;
    const [id] = await raiseAlert(db, new Date(), { userIds: [creator.userId] }, alert("Nobody's bot"));
    const row = await db("creator_alerts").where({ id }).first();
    assert.deepEqual([row.sent_to_accounts, row.sent_to_email], [[], true]);
    const { messages, mail } = await deliveries(creator, account);
    assert.equal(messages.length, 0);
    assert.deepEqual(
      mail.map((m: { subject: string; body: string }) => [m.subject, m.body]),
      [["SubBridge: Nobody's bot", "Nobody's bot: body"]],
    );
  });
});
