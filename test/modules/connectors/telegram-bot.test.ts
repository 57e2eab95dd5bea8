// The Telegram bot's side of the membership: updates arrive at the installation's webhook address,
// /start payloads are read in the description's order (a plan, then an access code; admin commands
// for project admins only; anything else the home screen), the bot answers in the chat, and the
// member's platform access follows the access ledger (invite links sent, bans applied).
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { updatesSecret } from "../../../src/modules/connectors/bot/session.ts";
import { linkIdentity } from "../../../src/modules/account/identities.ts";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { sendDueBotMessages } from "../../../src/workers/bot-messages/worker.ts";
import { eventsOf } from "../../helpers/events.ts";
import { repositoryConnectorRegistry, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { codesFor, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { installTelegram, postTelegramStart } from "./support.ts";

describe("the Telegram bot", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let installation: { id: string; bot_url: string };
  let bot: { id: number };
  let plan: SeededPlan;
  const CHAT = "-1001234567890";

  before(async () => {
    const project = suite.creator.projectIds[0]!;
    ({ installation, bot } = await installTelegram(suite.client, project, { welcome_message: "Hello from the test bot" }));
    plan = await seedPlan(suite.creator, {
      resources: [
        { mode: "bearer_link", title: "VIP channel" },
        { mode: "creator_task", title: "Signed print" },
      ],
    });
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ platform_ref: CHAT });
  });

  /** Posts a Telegram update with a private /start message from `userId`. */
  const start = (userId: number, payload: string | null, secret?: string) =>
    postTelegramStart(suite.api.url, installation.id, userId, payload, { lastName: "Member", ...(secret ? { secret } : {}) });

  /** What the fake Telegram received for this bot since `from`. */
  async function callsSince(from: number, name?: string) {
    const calls = (await testPlatform()).calls.slice(from).filter((c) => c.bot === String(bot.id));
    return name ? calls.filter((c) => c.name === name) : calls;
  }

  it("points the bot's webhook at the installation's updates address at install", async () => {
    const [hook] = await callsSince(0, "setWebhook");
    assert.equal(hook?.params.url, `${suite.api.url}/connectors/telegram/${installation.id}/updates`);
    assert.equal(hook?.params.secret_token, updatesSecret(TEST_APP_KEY, installation.id));
  });

  it("refuses an update without the installation's secret token (404, nothing read)", async () => {
    const res = await start(555, null, "not-the-secret");
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, "RESOURCE_NOT_FOUND");
  });

  it("opens the home screen on a bare /start and on a payload it does not act on [claim telegram.settings.welcome_message]", async () => {
    for (const payload of [null, "hello", `project_${plan.projectId}`]) {
      const mark = (await testPlatform()).calls.length;
      assert.equal((await start(777, payload)).status, 200);
      const [reply] = await callsSince(mark, "sendMessage");
      assert.equal(reply?.params.chat_id, "777");
      assert.match(String(reply?.params.text), /Hello from the test bot/);
    }
  });

  it("shows a plan's checkout for the plan's bare UUID", async () => {
    const mark = (await testPlatform()).calls.length;
    await start(778, plan.planId);
    const [reply] = await callsSince(mark, "sendMessage");
    assert.match(String(reply?.params.text), new RegExp(`plan=${plan.planId}`));
  });

  it("redeems an access code: subscription, an invite link for the channel, a task for the perk", async () => {
    const [code] = await codesFor(suite.creator, plan);
    const member = randomInt(1_000_000, 9_999_999);
    const mark = (await testPlatform()).calls.length;
    assert.equal((await start(member, code!)).status, 200);
    const invite = await callsSince(mark, "createChatInviteLink");
    assert.equal(invite.length, 1);
    assert.equal(String(invite[0]!.params.chat_id), CHAT);
    assert.equal(Number(invite[0]!.params.member_limit), 1);
    // The invite link is queued with the grant's marking; the bot message worker sends it (npm start runs one).
    const { db: queueDb } = await testDatabase();
    const queued = await queueDb("bot_messages").where({ installation_id: installation.id, purpose: "access_link", recipient: String(member) });
    assert.equal(queued.length, 1);
    const env = { connectors: repositoryConnectorRegistry(), platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    await sendDueBotMessages({ db: queueDb, kv: await testKv(), env, logger: testLogger, now: new Date(), installations: [installation.id] });
    const messages = (await callsSince(mark, "sendMessage")).map((c) => String(c.params.text));
    assert.match(messages[0]!, /Your access code worked/);
    assert.match(messages[0]!, /Signed print: the creator will hand this over/);
    assert.ok(
      messages.some((m) => m.includes("Your access to VIP channel: https://t.me/")),
      messages.join("\n"),
    );
    const { db } = await testDatabase();
    const grants = await db("access_grants").where({ project_id: plan.projectId }).whereIn("resource_id", plan.resourceIds).orderBy("created_at");
    const channel = grants.find((g: { resource_id: string }) => g.resource_id === plan.resourceIds[0]);
    assert.equal(channel.status, "granted");
    const types = (await eventsOf(suite.creator.teamId)).map((e) => e.type);
    for (const t of ["subscription.created", "access_code.redeemed", "member.resource_added"]) assert.ok(types.includes(t), `${t} in ${types}`);
    const entry = await db("activity_log")
      .where({ subject_type: "subscription", team_id: suite.creator.teamId })
      .orderBy("created_at", "desc")
      .first();
    assert.equal(entry.actor_kind, "webhook");

    // The same code again: the bot says it was used, nothing changes.
    const again = (await testPlatform()).calls.length;
    await start(member + 1, code!);
    const [refused] = await callsSince(again, "sendMessage");
    assert.match(String(refused?.params.text), /already been used/);
  });

  it("runs admin commands only for a creator linked to the platform account", async () => {
    const [code] = await codesFor(suite.creator, plan);
    const member = randomInt(1_000_000, 9_999_999);
    await start(member, code!);
    const admin = randomInt(10_000_000, 99_999_999);
    // Not linked yet: the command link opens the home screen.
    let mark = (await testPlatform()).calls.length;
    await start(admin, `-check_-${member}`);
    assert.match(String((await callsSince(mark, "sendMessage"))[0]?.params.text), /Hello from the test bot/);

    const { db } = await testDatabase();
    const actor = {
      userId: suite.creator.userId,
      teamId: suite.creator.teamId,
      projectIds: null,
      kind: "api_token" as const,
      credentialKind: null,
      requestId: null,
    };
    await db.transaction((trx) =>
      linkIdentity(createDomainContext(trx, actor, new Date()), { connector: "telegram", accountId: String(admin), displayName: "Owner" }),
    );

    mark = (await testPlatform()).calls.length;
    await start(admin, `-check_-${member}`);
    assert.match(String((await callsSince(mark, "sendMessage"))[0]?.params.text), /Ada Member: customer/);

    mark = (await testPlatform()).calls.length;
    await start(admin, `-ban_-${member}`);
    const confirm = String((await callsSince(mark, "sendMessage"))[0]?.params.text);
    const link = /start=(\S+)/.exec(confirm)?.[1];
    assert.ok(link?.startsWith("-ban_-") && link.endsWith("_-confirm"), confirm);

    mark = (await testPlatform()).calls.length;
    await start(admin, link!);
    assert.match(String((await callsSince(mark, "sendMessage"))[0]?.params.text), /is banned/);
    const row = await db("members")
      .where({ project_id: plan.projectId, external_user_id: String(member) })
      .first();
    assert.equal(row.status, "banned");

    // The connector sweep applies the ban on the platform, once.
    mark = (await testPlatform()).calls.length;
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    assert.ok((await syncPlatformAccess(db, env, new Date(), { memberId: row.id })) >= 1);
    const calls = await callsSince(mark);
    assert.ok(calls.some((c) => c.name === "banChatMember"));
    // The member's unused invite link is revoked first (issue 34), then every call is a ban.
    assert.deepEqual(
      calls.filter((c) => c.name === "revokeChatInviteLink").map((c) => String(c.params.chat_id)),
      [CHAT],
    );
    for (const c of calls.filter((c) => c.name !== "revokeChatInviteLink"))
      assert.deepEqual([c.name, String(c.params.chat_id), String(c.params.user_id)], ["banChatMember", CHAT, String(member)]);
    assert.equal(await syncPlatformAccess(db, env, new Date(), { memberId: row.id }), 0);
  });
});
