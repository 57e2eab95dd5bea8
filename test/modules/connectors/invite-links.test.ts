// Telegram invite links that end when access ends (issue 34, item 6): a member's link is made with
// an expiry and a member limit of one and remembered; an unused link is revoked when the subscription
// ends or the member is banned, and then admits nobody on the simulated Telegram page, nor does an
// expired one; a join the platform reports without a covering grant is removed by the sweep.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { updatesSecret } from "../../../src/modules/connectors/bot/session.ts";
import { banMember } from "../../../src/modules/members/ban.ts";
import { expireSubscription } from "../../../src/modules/subscriptions/subscriptions.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { asDomain, codesFor, DAY, redeem, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { installTelegram, postTelegramStart } from "./support.ts";

describe("Telegram invite links that end when access ends", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let installation: { id: string };
  let bot: { id: number };
  let plan: SeededPlan;
  const CHAT = "-1009876543210";

  before(async () => {
    ({ installation, bot } = await installTelegram(suite.client, suite.creator.projectIds[0]!));
    plan = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link", title: "VIP chat" }] });
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ platform_ref: CHAT });
  });

  const env = async () => ({ platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY });
  const callsSince = async (from: number, name: string) =>
    (await testPlatform()).calls.slice(from).filter((c) => c.bot === String(bot.id) && c.name === name);

  /** A member who redeems a code through the bot's /start: their member id and the link the bot sent them. */
  async function memberWithLink() {
    const [code] = await codesFor(suite.creator, plan);
    const user = randomInt(1_000_000, 9_999_999);
    const mark = (await testPlatform()).calls.length;
    assert.equal((await postTelegramStart(suite.api.url, installation.id, user, code!)).status, 200);
    const { db } = await testDatabase();
    const member = await db("members")
      .where({ project_id: plan.projectId, external_user_id: String(user) })
      .first();
    const [made] = await callsSince(mark, "createChatInviteLink");
    const link = await db("connector_invite_links").where({ member_id: member.id }).first();
    return { user, member, made: made!, link };
  }

  /** Joins the chat through `link` on the simulated Telegram page, as a person would; answers what Telegram said. */
  async function joinOnSimPage(user: number, link: string): Promise<string> {
    const fake = await testPlatform();
    const res = await fetch(`${fake.url}/_sim/telegram/join`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: fake.url },
      body: new URLSearchParams({ bot: String(bot.id), user_id: String(user), first_name: "Joiner", link }).toString(),
    });
    assert.equal(res.status, 303);
    return decodeURIComponent(res.headers.get("location") ?? "");
  }

  it("creates the link with an expiry a day on and a member limit of one, and remembers it [claim telegram.capabilities.access_control telegram.resource_kinds.channel telegram.overview.each-member-gets-a-single-use]", async () => {
    const before = Date.now();
    const { member, made, link } = await memberWithLink();
    assert.equal(String(made.params.chat_id), CHAT);
    assert.equal(Number(made.params.member_limit), 1);
    const expireDate = Number(made.params.expire_date);
    assert.ok(Math.abs(expireDate * 1000 - (before + DAY)) < 60_000, `expire_date ${expireDate} is a day on`);
    assert.ok(link, "the link is remembered");
    assert.equal(link.place, CHAT);
    assert.equal(link.installation_id, installation.id);
    assert.equal(new Date(link.expires_at).getTime(), expireDate * 1000);
    const grant = await (await testDatabase()).db("access_grants").where({ member_id: member.id }).first();
    assert.equal(link.grant_id, grant.id);
    assert.equal(link.revoked_at, null);
    assert.equal(link.used_at, null);
  });

  it("revokes an unused link when the subscription expires, and Telegram then admits nobody through it [claim telegram.overview.members-who-cancel-or-stop-paying]", async () => {
    const { user, member, link } = await memberWithLink();
    const { db } = await testDatabase();
    const subscription = await db("subscriptions").where({ member_id: member.id }).first();
    await asDomain(suite.creator, (ctx) => expireSubscription(ctx, subscription.id), { system: true });
    const mark = (await testPlatform()).calls.length;
    assert.ok((await syncPlatformAccess(db, await env(), new Date(), { memberId: member.id })) >= 1);
    const [revoke] = await callsSince(mark, "revokeChatInviteLink");
    assert.deepEqual([String(revoke?.params.chat_id), revoke?.params.invite_link], [CHAT, link.link]);
    assert.notEqual((await db("connector_invite_links").where({ id: link.id }).first()).revoked_at, null);
    assert.match(await joinOnSimPage(user, link.link), /invite link is invalid or has expired/);
  });

  it("revokes an unused link on a ban", async () => {
    const { member, link } = await memberWithLink();
    await asDomain(suite.creator, (ctx) => banMember(ctx, plan.projectId, member.id, { reason: "test" }));
    const { db } = await testDatabase();
    const mark = (await testPlatform()).calls.length;
    await syncPlatformAccess(db, await env(), new Date(), { memberId: member.id });
    const revokes = await callsSince(mark, "revokeChatInviteLink");
    assert.deepEqual(
      revokes.map((c) => c.params.invite_link),
      [link.link],
      "revoked once",
    );
    assert.notEqual((await db("connector_invite_links").where({ id: link.id }).first()).revoked_at, null);
    const bans = await callsSince(mark, "banChatMember");
    assert.ok(bans.some((c) => String(c.params.user_id) === member.external_user_id));
  });

  it("an expired link admits nobody; a live one admits its member, marked used, whom the sweep keeps", async () => {
    const [code] = await codesFor(suite.creator, plan);
    const user = randomInt(1_000_000, 9_999_999);
    const stale = await redeem(suite.creator, plan.projectId, code!, { connectorKey: "telegram", externalUserId: String(user), displayName: "Old" });
    const { db } = await testDatabase();
    // The sweep ran two days ago: the link it made then expired a day ago.
    await syncPlatformAccess(db, await env(), new Date(Date.now() - 2 * DAY), { memberId: stale.member.id });
    const old = await db("connector_invite_links").where({ member_id: stale.member.id }).first();
    assert.match(await joinOnSimPage(user, old.link), /invite link is invalid or has expired/);

    const { user: fresh, link } = await memberWithLink();
    assert.match(await joinOnSimPage(fresh, link.link), /joined chat/);
    assert.notEqual((await db("connector_invite_links").where({ id: link.id }).first()).used_at, null, "the chat_member update marks it used");
    const mark = (await testPlatform()).calls.length;
    await syncPlatformAccess(db, await env(), new Date());
    assert.equal((await callsSince(mark, "banChatMember")).filter((c) => Number(c.params.user_id) === fresh).length, 0, "a covered join stays");
    const join = await db("connector_platform_joins")
      .where({ external_user_id: String(fresh) })
      .first();
    assert.notEqual(join.checked_at, null);
    assert.equal(join.removed_at, null);
  });

  it("removes on the sweep someone who joined without a covering grant [claim telegram.capabilities.access_control]", async () => {
    const stranger = randomInt(10_000_000, 99_999_999);
    const status = (s: string) => ({ user: { id: stranger, is_bot: false, first_name: "Eve" }, status: s });
    const update = {
      update_id: randomInt(1, 1e9),
      chat_member: {
        chat: { id: Number(CHAT), type: "supergroup", title: "VIP chat" },
        from: { id: stranger, is_bot: false, first_name: "Eve" },
        date: Math.floor(Date.now() / 1000),
        old_chat_member: status("left"),
        new_chat_member: status("member"),
      },
    };
    const res = await fetch(`${suite.api.url}/connectors/telegram/${installation.id}/updates`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, installation.id) },
      body: JSON.stringify(update),
    });
    assert.equal(res.status, 200);
    const { db } = await testDatabase();
    const mark = (await testPlatform()).calls.length;
    assert.ok((await syncPlatformAccess(db, await env(), new Date())) >= 1);
    const removal = (await testPlatform()).calls
      .slice(mark)
      .filter((c) => c.bot === String(bot.id) && Number(c.params.user_id) === stranger)
      .map((c) => [c.name, String(c.params.chat_id)]);
    assert.deepEqual(removal, [
      ["banChatMember", CHAT],
      ["unbanChatMember", CHAT],
    ]);
    const join = await db("connector_platform_joins")
      .where({ external_user_id: String(stranger) })
      .first();
    assert.notEqual(join.removed_at, null);
    const again = (await testPlatform()).calls.length;
    await syncPlatformAccess(db, await env(), new Date());
    assert.equal((await callsSince(again, "banChatMember")).filter((c) => Number(c.params.user_id) === stranger).length, 0, "checked once");
  });
});
