// Join requests (issue 46, item 2): a place under an early admission hold gets join-request links
// instead of single-use invite links; a chat_join_request is approved when the requester holds a
// covering grant and declined otherwise, with a message to the portal sent before the decline; a
// link passed on admits nobody else; a repeated update is answered once; an approval the platform
// did not take is made by the next connector sweep; a place without the hold keeps its invite links.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { syncPlatformAccess } from "../../../src/modules/connectors/access-sync.ts";
import { updatesSecret } from "../../../src/modules/connectors/bot/session.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { PORTAL_URL, testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { codesFor, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { installTelegram, postTelegramStart } from "./support.ts";

describe("Telegram join requests for a place under an early admission hold", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let installation: { id: string };
  let bot: { id: number; token: string };
  let held: SeededPlan;
  let open: SeededPlan;
  let heldGroup: SeededPlan;
  const HELD = "-1005550001111";
  const HELD_GROUP = "-1005550003333";
  const OPEN = "-1005550002222";

  before(async () => {
    ({ installation, bot } = await installTelegram(suite.client, suite.creator.projectIds[0]!));
    held = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link", title: "Held chat" }] });
    open = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link", title: "Open chat" }] });
    const { db } = await testDatabase();
    await db("resources").where({ id: held.resourceIds[0] }).update({ platform_ref: HELD, early_admission_hold: true });
    await db("resources").where({ id: open.resourceIds[0] }).update({ platform_ref: OPEN });
    heldGroup = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link", title: "Held group" }] });
    await db("resources").where({ id: heldGroup.resourceIds[0] }).update({ kind: "group", platform_ref: HELD_GROUP, early_admission_hold: true });
  });

  const env = async () => ({ platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY });
  const callsSince = async (from: number, name?: string) =>
    (await testPlatform()).calls.slice(from).filter((c) => c.bot === String(bot.id) && (!name || c.name === name));
  const person = (id: number, first_name = "Requester") => ({ id, first_name });

  /** A member who redeems a code of `plan` through the bot's /start: their Telegram id, member row and remembered link. */
  async function memberWithLink(plan: SeededPlan) {
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

  it("points the bot's webhook at chat_join_request, keeping every update it asked for before", async () => {
    const hook = (await testPlatform()).telegramWebhook(bot.id);
    for (const type of ["message", "pre_checkout_query", "chat_member", "my_chat_member", "chat_join_request"])
      assert.ok(hook?.allowed_updates?.includes(type), `allowed_updates has ${type}: ${JSON.stringify(hook?.allowed_updates)}`);
  });

  it("gives a held channel's or group's member a join-request link (no member limit), remembered as one [claim telegram.resource_kinds.channel.supports_early_admission_hold telegram.resource_kinds.group.supports_early_admission_hold]", async () => {
    for (const [plan, place] of [
      [held, HELD],
      [heldGroup, HELD_GROUP],
    ] as const) {
      const { made, link } = await memberWithLink(plan);
      assert.equal(String(made.params.chat_id), place);
      assert.equal(made.params.creates_join_request, true);
      assert.equal(made.params.member_limit, undefined, "Telegram refuses member_limit beside creates_join_request");
      assert.equal(link.creates_join_request, true);
      assert.equal(link.place, place);
    }
  });

  it("gives a place without the hold a single-use invite link, as before", async () => {
    const { made, link } = await memberWithLink(open);
    assert.equal(Number(made.params.member_limit), 1);
    assert.equal(made.params.creates_join_request, undefined);
    assert.equal(link.creates_join_request, false);
  });

  it("approves the member's own request at once: they are in the chat, the link used, the join recorded", async () => {
    const fake = await testPlatform();
    const { user, member, link } = await memberWithLink(held);
    const mark = fake.calls.length;
    const asked = await fake.requestToJoin({ link: link.link, user: person(user) });
    assert.equal(asked.delivered, true);
    const answers = await callsSince(mark);
    assert.deepEqual(
      answers.map((c) => [c.name, String(c.params.chat_id), Number(c.params.user_id)]),
      [["approveChatJoinRequest", HELD, user]],
    );
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, user), "member");
    const { db } = await testDatabase();
    const request = await db("connector_join_requests")
      .where({ installation_id: installation.id, external_user_id: String(user) })
      .first();
    assert.equal(request.decision, "approve");
    assert.equal(request.member_id, member.id);
    assert.notEqual(request.decided_at, null);
    assert.notEqual((await db("connector_invite_links").where({ id: link.id }).first()).used_at, null);
    await fake.settled();
    const join = await db("connector_platform_joins")
      .where({ installation_id: installation.id, external_user_id: String(user) })
      .first();
    assert.ok(join, "Telegram's chat_member update after the approval is recorded for the sweep");
    const entry = await db("activity_log").where({ event: "connector_join_approved", subject_id: member.id }).first();
    assert.ok(entry, "the approval is in the activity log");
  });

  it("declines someone without access after telling them where the portal is", async () => {
    const fake = await testPlatform();
    const { link } = await memberWithLink(held);
    const stranger = randomInt(10_000_000, 99_999_999);
    const mark = fake.calls.length;
    await fake.requestToJoin({ link: link.link, user: person(stranger, "Forwarded") });
    const calls = (await callsSince(mark)).map((c) => [c.name, String(c.params.chat_id)]);
    assert.deepEqual(calls, [
      ["sendMessage", String(stranger)],
      ["declineChatJoinRequest", HELD],
    ]);
    const [dm] = await callsSince(mark, "sendMessage");
    const { db } = await testDatabase();
    const project = await db("projects").where({ id: held.projectId }).first();
    assert.ok(String(dm!.params.text).includes(`${PORTAL_URL}/${project.handle}`), String(dm!.params.text));
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, stranger), "left");
    const request = await db("connector_join_requests")
      .where({ external_user_id: String(stranger) })
      .first();
    assert.deepEqual([request.decision, request.member_id, request.notice], ["decline", null, null]);
    assert.ok(await db("activity_log").where({ event: "connector_join_declined", subject_id: held.projectId }).first());
  });

  it("declines a forwarded link's user but still approves the member it was made for [claim telegram.capabilities.early_admission_hold]", async () => {
    const fake = await testPlatform();
    const { user, link } = await memberWithLink(held);
    const other = randomInt(10_000_000, 99_999_999);
    const mark = fake.calls.length;
    await fake.requestToJoin({ link: link.link, user: person(other, "Friend") });
    await fake.requestToJoin({ link: link.link, user: person(user) });
    const answers = (await callsSince(mark)).filter((c) => c.name.endsWith("ChatJoinRequest"));
    assert.deepEqual(
      answers.map((c) => [c.name, Number(c.params.user_id)]),
      [
        ["declineChatJoinRequest", other],
        ["approveChatJoinRequest", user],
      ],
    );
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, other), "left");
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, user), "member");
  });

  it("answers a repeated update once", async () => {
    const fake = await testPlatform();
    const { user, link } = await memberWithLink(held);
    const mark = fake.calls.length;
    const { update } = await fake.requestToJoin({ link: link.link, user: person(user) });
    const res = await fetch(`${suite.api.url}/connectors/telegram/${installation.id}/updates`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, installation.id) },
      body: JSON.stringify(update),
    });
    assert.equal(res.status, 200);
    assert.equal((await callsSince(mark, "approveChatJoinRequest")).length, 1);
    const { db } = await testDatabase();
    assert.equal((await db("connector_join_requests").where({ external_user_id: String(user) })).length, 1);
  });

  it("makes an approval the platform did not take on the next connector sweep", async () => {
    const fake = await testPlatform();
    const { user, link } = await memberWithLink(held);
    fake.throttleTelegramBot(bot.token, 1, 1);
    const mark = fake.calls.length;
    await fake.requestToJoin({ link: link.link, user: person(user) });
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, user), "requested", "the throttled approval did not land");
    const { db } = await testDatabase();
    const request = await db("connector_join_requests")
      .where({ external_user_id: String(user) })
      .first();
    assert.equal(request.decided_at, null);
    assert.equal(request.attempts, 1);
    await syncPlatformAccess(db, await env(), new Date(Date.now() + 2_000));
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, user), "member");
    assert.equal((await callsSince(mark, "approveChatJoinRequest")).length, 2);
    assert.notEqual((await db("connector_join_requests").where({ id: request.id }).first()).decided_at, null);
  });

  it("asks a bot set up before join requests for them again when a hold is turned on", async () => {
    const fake = await testPlatform();
    const hook = fake.telegramWebhook(bot.id)!;
    const older = ["message", "pre_checkout_query", "chat_member", "my_chat_member"];
    const set = await fetch(`${fake.url}/bot${bot.token}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: hook.url, secret_token: hook.secret_token, allowed_updates: older }),
    });
    assert.equal(set.status, 200);
    const later = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link", title: "Later held chat", platformRef: "-1005550003333" }] });
    // The seeded kind is no package's: the resource is made the Telegram channel the manifest lets hold.
    await (await testDatabase()).db("resources").where({ id: later.resourceIds[0] }).update({ kind: "channel" });
    const res = await suite.client.patch(`/v1/projects/${later.projectId}/resources/${later.resourceIds[0]}`, { early_admission_hold: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(fake.telegramWebhook(bot.id)?.allowed_updates?.includes("chat_join_request"), "setWebhook again, with chat_join_request");
  });

  it("lets a person ask to join through a join-request link on the simulator page, answered by the bot", async () => {
    const fake = await testPlatform();
    const { user, link } = await memberWithLink(held);
    const res = await fetch(`${fake.url}/_sim/telegram/join`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: fake.url },
      body: new URLSearchParams({ bot: String(bot.id), user_id: String(user), first_name: "Asker", link: link.link }).toString(),
    });
    assert.equal(res.status, 303);
    const said = decodeURIComponent(res.headers.get("location") ?? "");
    assert.match(said, /asked to join/, `${res.status} ${said} ${await res.text()}`);
    assert.equal(fake.telegramChatMemberState(bot.id, HELD, user), "member");
  });

  it("the simulated Telegram refuses member_limit on a join-request link, and answering no pending request", async () => {
    const fake = await testPlatform();
    const call = (method: string, params: Record<string, unknown>) =>
      fetch(`${fake.url}/bot${bot.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params),
      }).then((r) => r.json() as Promise<{ ok: boolean; description?: string }>);
    const both = await call("createChatInviteLink", { chat_id: HELD, creates_join_request: true, member_limit: 1 });
    assert.equal(both.ok, false);
    const none = await call("approveChatJoinRequest", { chat_id: HELD, user_id: 424242 });
    assert.deepEqual(none, { ok: false, error_code: 400, description: "Bad Request: HIDE_REQUESTER_MISSING" });
    const unknown = await fetch(`${fake.url}/_sim/telegram/requestToJoin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ link: "https://t.me/+nosuchlink", user: { id: 5, first_name: "Nobody" } }),
    });
    assert.equal(unknown.status, 400, "the simulator's HTTP route refuses a link it did not make");
  });
});
