// /cancel in a member's private chat with the Telegram bot (issue 33): "/cancel" lists the member's
// live subscription of the installation's project with what cancelling does, "/cancel 1" cancels it
// the way the portal does (a Stars one: Telegram told first), with the member as causer, and the bot
// answers with the date access ends; a wrong number, a member with nothing live, and a repeat say so.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { testDatabase } from "../helpers/backends.ts";
import { testPlatform } from "../helpers/platforms.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { activityOf, seedPlan } from "../modules/subscriptions/commerce.ts";
import { addStarsMethod } from "../modules/payments/methods.ts";
import { botMessage, botStart, projectWithPlan, type PortalProjectFixture } from "../portal/support.ts";

describe("connector bot: /cancel", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let fixture: PortalProjectFixture;
  let starsPlanId: string;

  before(async () => {
    fixture = await projectWithPlan(suite);
    const { db } = await testDatabase();
    await addStarsMethod(suite.creator, fixture.projectId);
    starsPlanId = (await seedPlan(suite.creator)).planId;
    await db("plans").where({ id: starsPlanId }).update({ currency: "XTR", amount_minor: 250, name: "Stars monthly" });
  });

  const say = (userId: number, text: string) => botMessage(suite.api.url, fixture.installation.id, fixture.bot.id, userId, text);

  it("lists the live subscription, cancels it on /cancel 1 (Telegram told first) and answers with the end date", async () => {
    const { db } = await testDatabase();
    const userId = randomInt(10_000_000, 99_999_999);
    const link = /Pay with Telegram Stars: (\S+)/.exec(
      await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, userId, starsPlanId),
    )?.[1];
    assert.ok(link);
    assert.equal((await (await testPlatform()).payInvoice({ invoice: link, user: { id: userId, first_name: "Ada" } })).status, "paid");
    const sub = await db("subscriptions")
      .join("members", "members.id", "subscriptions.member_id")
      .where({ "members.project_id": fixture.projectId, "members.external_user_id": String(userId) })
      .first("subscriptions.*");
    const until = new Date(sub.ends_at).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

    const listed = await say(userId, "/cancel");
    assert.match(listed, /^If you cancel:\n1\. Stars monthly: Renewals stop: Telegram stops charging your Stars for this subscription\./);
    assert.ok(listed.includes(`You keep your access until ${until}; then it ends.`), listed);
    assert.match(listed, /To cancel it, send \/cancel 1$/);
    assert.equal((await db("subscriptions").where({ id: sub.id }).first()).status, "active", "listing changes nothing");

    assert.match(await say(userId, "/cancel 2"), /There is no subscription number 2\. Send \/cancel to see your subscriptions\./);
    const mark = (await testPlatform()).calls.length;
    const done = await say(userId, "/cancel 1");
    assert.ok(done.startsWith(`Stars monthly is cancelled.`), done);
    assert.ok(done.includes(`You keep your access until ${until}`), done);
    const edits = (await testPlatform()).calls.slice(mark).filter((c) => c.name === "editUserStarSubscription");
    assert.equal(edits.length, 1);
    assert.equal(edits[0]!.params.is_canceled, true);
    const after = await db("subscriptions").where({ id: sub.id }).first();
    assert.equal(after.status, "canceled");
    assert.equal(new Date(after.ends_at).getTime(), new Date(sub.ends_at).getTime());
    const entry = (await activityOf(suite.creator.teamId, sub.id)).find((e) => e.event === "cancelled") as Record<string, unknown> | undefined;
    assert.deepEqual([entry?.causer_type, entry?.causer_id, entry?.actor_kind], ["member", sub.member_id, "webhook"]);

    assert.equal(await say(userId, "/cancel 1"), "You have no subscription to cancel here.");
    assert.equal(await say(randomInt(10_000_000, 99_999_999), "/cancel"), "You have no subscription to cancel here.", "a stranger");
  });
});
