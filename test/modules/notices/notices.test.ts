// Member notices (issue 34 item 5) at an injected clock: the reminders job queues a renewal reminder
// (with the plan's amount) or an expiry reminder (with the portal link) three days before a period
// ends, once per subscription and period end, and not before; an expiry queues the access-ended
// notice; a member the bot cannot reach (no platform account, no installation of their connector)
// gets nothing. The bot_messages rows are the record.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { banMember } from "../../../src/modules/members/ban.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { scheduledJobs as noticeJobs } from "../../../src/modules/notices/jobs.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { scheduledJobs as subscriptionJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { cancelSubscriptionRow, createSubscription } from "../../../src/modules/subscriptions/subscriptions.ts";
import type { SubscriptionRow } from "../../../src/modules/subscriptions/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { noticesOf } from "./notices.ts";
import { account, asDomain, codesFor, DAY, redeem, runJob, seedPlan, subscribedMember } from "../subscriptions/commerce.ts";

const HOUR = 3_600_000;
const LEAD = 3 * DAY;

describe("notices: what the bot tells a member about their subscription", () => {
  let creator: TestCreator;
  let projectName: string;
  let handle: string;
  before(async () => {
    creator = await createTestCreator({ label: "notices" });
    const { db } = await testDatabase();
    ({ name: projectName, handle } = await db("projects").where({ id: creator.projectIds[0] }).first("name", "handle"));
  });

  /** A subscription a provider bills (Stripe), its period ending in 30 days. */
  async function billedSubscription(person = account()) {
    const plan = await seedPlan(creator);
    const start = new Date();
    return asDomain(creator, async (ctx) => {
      const { member } = await findOrCreateMember(ctx, plan.projectId, person);
      const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
      const terms = {
        provider: "stripe",
        providerSubscriptionId: `sub_${randomUUID()}`,
        paymentMethodId: null,
        trialEndsAt: null,
        endsAt: new Date(start.getTime() + 30 * DAY),
      };
      const row = await createSubscription(ctx, { member, plan: planRow, source: "stripe", terms });
      return { row: row as SubscriptionRow & { ends_at: Date }, member, plan: planRow };
    });
  }

  const remindAt = (row: { ends_at: Date }, offsetMs: number) =>
    runJob(noticeJobs, "notices.reminders", new Date(row.ends_at.getTime() - LEAD + offsetMs));

  it("reminds a renewing subscription three days before its period ends, with the amount, once; not before", async () => {
    const { row, member } = await billedSubscription();
    await remindAt(row, -HOUR);
    assert.deepEqual(await noticesOf(row.id), [], "nothing an hour before the reminder is due");

    await remindAt(row, 1000);
    const [notice, ...more] = await noticesOf(row.id);
    assert.equal(more.length, 0);
    assert.equal(notice!.purpose, "notice");
    assert.equal(notice!.status, "queued");
    assert.equal(notice!.connector_key, "telegram");
    assert.equal(notice!.recipient, member.external_user_id);
    assert.equal(notice!.dedupe_key, `notice:renewal-reminder:${row.ends_at.toISOString()}:${row.id}`);
    const end = row.ends_at.toISOString();
    assert.equal(
      notice!.text,
      `${projectName}: your ${(await plan(row)).name} membership renews on ${end.slice(0, 10)} ${end.slice(11, 16)} UTC for 5.00 USD. To change or cancel it: http://localhost:4005/${handle}/account`,
    );

    assert.equal(await remindAt(row, 1000), 0, "a second run at the same time queues nothing");
    await remindAt(row, 2 * HOUR);
    assert.equal((await noticesOf(row.id)).length, 1, "later runs in the window queue nothing more");
  });

  it("reminds a subscription cancelled at period end that access ends (an expiry reminder, no renewal one)", async () => {
    const { row } = await billedSubscription();
    await asDomain(creator, (ctx) => cancelSubscriptionRow(ctx, row), { system: true });
    await remindAt(row, 1000);
    await remindAt(row, 2 * HOUR);
    const notices = await noticesOf(row.id);
    assert.deepEqual(
      notices.map((n) => n.dedupe_key),
      [`notice:expiry-reminder:${row.ends_at.toISOString()}:${row.id}`],
    );
    assert.match(notices[0]!.text, new RegExp(`your .+ access ends on .+ UTC\\. To keep it, renew on http://localhost:4005/${handle}$`));
  });

  it("reminds a code-granted period that it ends; a period that began inside its own reminder window gets none", async () => {
    const granted = await subscribedMember(creator, { cycle: "month" });
    const row = { ends_at: new Date(granted.subscription.ends_at!) };
    await remindAt(row, 1000);
    assert.deepEqual(
      (await noticesOf(granted.subscription.id)).map((n) => [n.dedupe_key, n.recipient]),
      [[`notice:expiry-reminder:${row.ends_at.toISOString()}:${granted.subscription.id}`, granted.member.external_user_id]],
    );

    const day = await subscribedMember(creator, { cycle: "day" });
    await runJob(noticeJobs, "notices.reminders", new Date(Date.now() + HOUR));
    assert.deepEqual(await noticesOf(day.subscription.id), []);
  });

  it("tells the member their access ended when the subscription expires, once", async () => {
    const sub = await subscribedMember(creator, { cycle: "day" });
    const at = new Date(Date.now() + 2 * DAY);
    await runJob(subscriptionJobs, "subscriptions.expire", at);
    await runJob(subscriptionJobs, "subscriptions.expire", at);
    const notices = await noticesOf(sub.subscription.id);
    assert.deepEqual(
      notices.map((n) => [n.dedupe_key, n.recipient, n.status, n.text]),
      [
        [
          `notice:access-ended:${sub.subscription.id}`,
          sub.member.external_user_id,
          "queued",
          `Your access to ${projectName} has ended. To come back, choose a plan on http://localhost:4005/${handle}`,
        ],
      ],
    );
  });

  it("sends nothing to a member the bot cannot reach (no platform account, no installation of their connector) or one who is banned", async () => {
    const { db } = await testDatabase();
    const discord = await billedSubscription({ ...account(), connectorKey: "discord" });
    await remindAt(discord.row, 1000);
    assert.deepEqual(await noticesOf(discord.row.id), [], "the project has no Discord installation");

    const plan = await seedPlan(creator, { cycle: "day" });
    const [code] = await codesFor(creator, plan);
    const portalOnly = await redeem(creator, plan.projectId, code!);
    await db("members").where({ id: portalOnly.member.id }).update({ connector_key: null, external_user_id: null });
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(Date.now() + 2 * DAY));
    assert.equal((await db("subscriptions").where({ id: portalOnly.subscription.id }).first()).status, "expired");
    assert.deepEqual(await noticesOf(portalOnly.subscription.id), []);

    const banned = await subscribedMember(creator, { cycle: "month" });
    await asDomain(creator, (ctx) => banMember(ctx, banned.plan.projectId, banned.member.id, { reason: "spam" }));
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(Date.now() + HOUR));
    assert.equal((await db("subscriptions").where({ id: banned.subscription.id }).first()).status, "expired");
    assert.deepEqual(await noticesOf(banned.subscription.id), [], "a ban is no invitation to come back");
  });

  async function plan(row: SubscriptionRow) {
    const { db } = await testDatabase();
    return (await db("plans").where({ id: row.plan_id }).first()) as PlanRow;
  }
});
