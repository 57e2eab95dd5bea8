// Access the platform refuses (stuck-access.ts): a member redeems a code for a Telegram chat whose
// bot is no administrator there. The grant waits a minute, then two, before the next try, so it
// never holds up the member's other access; the member hears once that their access is delayed and
// the creator gets one recovery alert a day per place, with Telegram's words and what to mend. Made
// an administrator again, the bot gives the access on the next try. On Discord, a role above the
// bot's fails the same way; moved below it, the member is told the access works now. A ban the bot
// may not apply waits too and alerts the creator, and is applied once the bot may ban.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { newDiscordAuthorization, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { banMember } from "../../../src/modules/members/ban.ts";
import { asDomain, codesFor, redeem, seedPlan } from "../subscriptions/commerce.ts";
import { ensureTelegram, installationRow, installPath, installTelegram, postTelegramStart } from "./support.ts";

const MINUTE = 60_000;

describe("access the platform refuses", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth", projects: 2 } });
  const env = async () => ({ platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY });
  const alerts = async (titled: RegExp) =>
    (
      (await (await testDatabase()).db("creator_alerts").where({ user_id: suite.creator.userId })) as { class: string; title: string; body: string }[]
    ).filter((a) => titled.test(a.title));
  const messagesTo = async (user: string) =>
    (await (await testDatabase()).db("bot_messages").where({ recipient: user }).orderBy("created_at")) as {
      purpose: string;
      text: string;
      dedupe_key: string;
    }[];

  it("on Telegram: waits before each new try, tells the member once and the creator once a day per place, and gives the access once the bot is an administrator again", async () => {
    const project = suite.creator.projectIds[0]!;
    const { installation, bot } = await installTelegram(suite.client, project);
    const [refused, open] = ["-1001111111111", "-1002222222222"];
    const plan = await seedPlan(suite.creator, {
      resources: [
        { mode: "bearer_link", title: "VIP chat" },
        { mode: "bearer_link", title: "Lobby" },
      ],
    });
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ platform_ref: refused });
    await db("resources").where({ id: plan.resourceIds[1] }).update({ platform_ref: open });
    const fake = await testPlatform();
    fake.setTelegramBotStatus(bot.id, refused, "member");

    // Lin redeems a code with /start: the bot syncs her access at once; the VIP chat is refused.
    const lin = String(randomInt(1_000_000, 9_999_999));
    const [code, second] = await codesFor(suite.creator, plan, 2);
    assert.equal((await postTelegramStart(suite.api.url, installation.id, Number(lin), code!)).status, 200);
    const member = await db("members").where({ project_id: project, external_user_id: lin }).first();
    const grantOf = async (resource: string) => db("access_grants").where({ member_id: member.id, resource_id: resource }).first();
    const vip = await grantOf(plan.resourceIds[0]!);
    assert.equal(vip.status, "pending");
    assert.equal(vip.platform_attempts, 1);
    assert.match(vip.platform_error, /^refused: /);
    const firstTry = new Date(vip.platform_retry_at).getTime() - MINUTE;
    assert.ok(Math.abs(firstTry - Date.now()) < 30_000, "the next try is a minute on");
    assert.equal((await grantOf(plan.resourceIds[1]!)).status, "granted", "the refused chat does not hold up the other");

    const [alert, ...more] = await alerts(/^Access not given/);
    assert.equal(more.length, 0);
    assert.equal(alert!.class, "recovery");
    assert.match(alert!.title, /is waiting for VIP chat$/);
    assert.match(
      alert!.body,
      new RegExp(`Make @${installation.platform_account_name} an administrator of the chat ${refused} with the rights to invite users`),
    );
    assert.match(alert!.body, /next at \d{4}-\d\d-\d\dT/);
    const delayed = (await messagesTo(lin)).filter((m) => m.dedupe_key === `access-delayed:${vip.id}`);
    assert.equal(delayed.length, 1);
    assert.equal(delayed[0]!.purpose, "notice");
    assert.match(delayed[0]!.text, /could not give you access to VIP chat yet: Telegram refused\. The creator has been told/);

    // Not due yet: the sweep leaves it alone. Due: tried again, and the wait doubles.
    const invites = () => fake.calls.filter((c) => c.name === "createChatInviteLink" && String(c.params.chat_id) === refused).length;
    let mark = invites();
    assert.equal(await syncPlatformAccess(db, await env(), new Date(), { memberId: member.id }), 0);
    assert.equal(invites(), mark);
    const later = new Date(Date.now() + 2 * MINUTE);
    await syncPlatformAccess(db, await env(), later, { memberId: member.id });
    assert.equal(invites(), mark + 1);
    const again = await grantOf(plan.resourceIds[0]!);
    assert.equal(again.platform_attempts, 2);
    assert.equal(new Date(again.platform_retry_at).getTime(), later.getTime() + 2 * MINUTE);

    // Another member refused on the same place the same day: their own notice, no second alert.
    const bo = String(randomInt(1_000_000, 9_999_999));
    assert.equal((await postTelegramStart(suite.api.url, installation.id, Number(bo), second!)).status, 200);
    assert.equal((await alerts(/^Access not given/)).length, 1);
    assert.equal((await messagesTo(bo)).filter((m) => m.dedupe_key.startsWith("access-delayed:")).length, 1);
    assert.equal((await messagesTo(lin)).filter((m) => m.dedupe_key.startsWith("access-delayed:")).length, 1, "told once");

    // The creator makes the bot an administrator: the next try gives the access, and the link is the member's news.
    fake.setTelegramBotStatus(bot.id, refused, "administrator");
    mark = invites();
    await syncPlatformAccess(db, await env(), new Date(Date.now() + 10 * MINUTE), { memberId: member.id });
    assert.equal(invites(), mark + 1);
    const given = await grantOf(plan.resourceIds[0]!);
    assert.deepEqual([given.status, given.platform_attempts, given.platform_retry_at, given.platform_error], ["granted", 0, null, null]);
    const lines = (await messagesTo(lin)).map((m) => m.dedupe_key);
    assert.ok(lines.includes(`access-link:${vip.id}`), "the invite link is sent");
    assert.ok(!lines.includes(`access-given:${vip.id}`), "the link says it all");
  });

  it("on Discord: a role above the bot's is refused with the role settings' remedy; moved below, the member hears the access works now", async () => {
    const project = suite.creator.projectIds[1]!;
    const { code: oauth, guild } = await newDiscordAuthorization();
    const install = await suite.client.post(installPath(project, "discord"), {
      oauth: { code: oauth, redirect_uri: "https://dashboard.test/discord" },
    });
    assert.equal(install.status, 201, JSON.stringify(install.body));
    const plan = await seedPlan(suite.creator, { projectIndex: 1, resources: [{ mode: "role", title: "Supporter role" }] });
    const role = String(500000000000000000n + BigInt(randomInt(1, 1e9)));
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ connector_key: "discord", kind: "role", platform_ref: role });
    const fake = await testPlatform();
    fake.setDiscordRole(guild.id, role, { position: 20 });

    const [code] = await codesFor(suite.creator, plan);
    const user = String(400000000000000000n + BigInt(randomInt(1, 1e9)));
    const redemption = await redeem(suite.creator, project, code!, { connectorKey: "discord", externalUserId: user, displayName: "Dee" });
    const now = Date.now();
    await syncPlatformAccess(db, await env(), new Date(now), { memberId: redemption.member.id });
    const grant = await db("access_grants").where({ member_id: redemption.member.id }).first();
    assert.equal(grant.status, "pending");
    const [alert] = await alerts(/^Access not given: Dee is waiting for Supporter role$/);
    assert.ok(alert, "the creator is alerted");
    assert.match(alert.body, new RegExp(`give the SubBridge role Manage Roles and drag it above the role ${role}`));
    assert.equal((await messagesTo(user)).filter((m) => m.dedupe_key === `access-delayed:${grant.id}`).length, 1);

    fake.setDiscordRole(guild.id, role, { position: 5 });
    await syncPlatformAccess(db, await env(), new Date(now + 2 * MINUTE), { memberId: redemption.member.id });
    assert.equal((await db("access_grants").where({ id: grant.id }).first()).status, "granted");
    const given = (await messagesTo(user)).filter((m) => m.dedupe_key === `access-given:${grant.id}`);
    assert.deepEqual(
      given.map((m) => [m.purpose, m.text]),
      [["notice", "You have access to Supporter role now. Thank you for waiting."]],
    );
  });

  it("a ban the platform refuses: tried again later, the creator alerted once a day per project; applied once the bot may ban", async () => {
    const project = suite.creator.projectIds[0]!;
    await ensureTelegram(suite.client, project);
    const installation = (await installationRow(project))!;
    const bot = { id: Number(installation.platform_account_id) };
    const chat = "-1003333333333";
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link", title: "Members chat" }] });
    const { db } = await testDatabase();
    await db("resources").where({ id: plan.resourceIds[0] }).update({ platform_ref: chat });
    const fake = await testPlatform();
    fake.setTelegramBotStatus(bot.id, chat, "member");
    const [code] = await codesFor(suite.creator, plan);
    const user = String(randomInt(1_000_000, 9_999_999));
    assert.equal((await postTelegramStart(suite.api.url, installation.id, Number(user), code!)).status, 200);
    const member = await db("members").where({ project_id: project, external_user_id: user }).first();
    const grant = () => db("access_grants").where({ member_id: member.id }).first();
    assert.equal((await grant()).platform_attempts, 1, "the grant was refused");

    await asDomain(suite.creator, (ctx) => banMember(ctx, project, member.id, { reason: "spam" }));
    // Revoking is new work: the grant's refusals are forgotten and it is due at once.
    const revoked = await grant();
    assert.deepEqual([revoked.status, revoked.platform_attempts, revoked.platform_retry_at, revoked.platform_error], ["revoked", 0, null, null]);
    const bans = () => fake.calls.filter((c) => c.name === "banChatMember" && String(c.params.user_id) === user).length;
    const now = Date.now();
    await syncPlatformAccess(db, await env(), new Date(now), { memberId: member.id });
    const refused = await db("members").where({ id: member.id }).first();
    assert.deepEqual([refused.platform_synced_at, refused.platform_attempts], [null, 1]);
    assert.match(refused.platform_error, /^refused: Bad Request: not enough rights to /);
    const [alert, ...more] = await alerts(/^Ban not applied/);
    assert.equal(more.length, 0);
    assert.match(alert!.body, new RegExp(`Places: [^\\n]*${chat}`));
    assert.match(alert!.body, /an administrator with the right to ban users in each place; meanwhile remove the member by hand/);

    let mark = bans();
    await syncPlatformAccess(db, await env(), new Date(now + 30_000), { memberId: member.id });
    assert.equal(bans(), mark, "not due yet");
    fake.setTelegramBotStatus(bot.id, chat, "administrator");
    mark = bans();
    await syncPlatformAccess(db, await env(), new Date(now + 2 * MINUTE), { memberId: member.id });
    assert.ok(bans() > mark, "the ban is applied");
    const applied = await db("members").where({ id: member.id }).first();
    assert.deepEqual([applied.platform_attempts, applied.platform_retry_at, applied.platform_error], [0, null, null]);
    assert.notEqual(applied.platform_synced_at, null);
    assert.equal((await alerts(/^Ban not applied/)).length, 1);
  });
});
