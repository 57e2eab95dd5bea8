// Pass windows sell seats (issue 46): a plan with windows is bought for one (422 naming
// pass_window_id without it or for an ended one, 404 for another plan's or team's), a window of
// capacity 1 refuses the second buyer (PASS_WINDOW_FULL, 409) and of N concurrent buyers exactly
// one gets the seat; a pass is one payment whose access starts at the window's start and ends at
// its end; a payment for a lost seat or an ended window buys nothing and is refunded; the read
// shows seats_taken and seats_left.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiError } from "../../../src/errors.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import type { MemberRow } from "../../../src/modules/members/tables.ts";
import { applyProviderEvent } from "../../../src/modules/payments/apply.ts";
import { checkoutPrice, noteProviderCheckout, openCheckout } from "../../../src/modules/payments/checkouts.ts";
import type { CheckoutRow } from "../../../src/modules/payments/tables.ts";
import { scheduledJobs as passJobs } from "../../../src/modules/pass-windows/jobs.ts";
import { PASS_SEAT_HOLD_MS } from "../../../src/modules/pass-windows/seats.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { scheduledJobs as subscriptionJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { cancelSubscriptionRow } from "../../../src/modules/subscriptions/subscriptions.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { completionReport } from "../payments/reports.ts";
import { account, asDomain, DAY, runJob, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";

const ACCOUNT = "acct_pass_seats";
const MINUTE = 60_000;

describe("pass windows: seats, checkout and access", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { label: "pass-seats", projects: 1 } });

  /** A published plan (a creator task) with one window [start, end) of `capacity`; answers the plan and the window's id. */
  async function passPlan(start: Date, end: Date, capacity: number | null, options: { trialDays?: number } = {}) {
    const { db } = await testDatabase();
    const plan = await seedPlan(suite.creator, { windows: [[start, end]], ...options });
    const window = await db("pass_windows").where({ plan_id: plan.planId }).first();
    await db("pass_windows").where({ id: window.id }).update({ capacity });
    return { plan, windowId: window.id as string };
  }

  async function member(plan: SeededPlan): Promise<MemberRow> {
    return asDomain(suite.creator, async (ctx) => (await findOrCreateMember(ctx, plan.projectId, account())).member, { system: true });
  }

  /** `who` opens a Stripe checkout of the plan for `windowId` at `now`, its Checkout Session noted. */
  async function open(plan: SeededPlan, who: MemberRow, windowId: string | null, now = new Date()): Promise<CheckoutRow> {
    return asDomain(
      suite.creator,
      async (ctx) => {
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const { checkout } = await openCheckout(ctx, {
          member: who,
          plan: planRow,
          provider: "stripe",
          paymentMethodId: null,
          providerAccount: ACCOUNT,
          passWindowId: windowId,
        });
        const session = `cs_${randomUUID()}`;
        await noteProviderCheckout(ctx, checkout.id, session);
        return { ...checkout, provider_checkout_id: session };
      },
      { system: true, now },
    );
  }

  /** The provider's report of a one-off payment of 5.00 USD for `checkout`. */
  const paidOnce = (checkout: CheckoutRow) => completionReport(checkout, ACCOUNT, { providerSubscriptionId: null, periodEndsAt: null });

  async function refusal(work: Promise<unknown>): Promise<ApiError> {
    const err = await work.then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError, `refused with an ApiError, got ${String(err)}`);
    return err;
  }

  const windowPath = (plan: SeededPlan, windowId: string) => `/v1/projects/${plan.projectId}/plans/${plan.planId}/pass-windows/${windowId}`;

  it("a pass window of capacity 1 refuses the second buyer (PASS_WINDOW_FULL, 409); the read shows the seat taken", async () => {
    const { db } = await testDatabase();
    const { plan, windowId } = await passPlan(new Date(Date.now() + 2 * DAY), new Date(Date.now() + 3 * DAY), 1);
    const first = await open(plan, await member(plan), windowId);
    assert.deepEqual([first.pass_window_id, first.recurring, first.trial_days], [windowId, false, 0]);
    const second = await member(plan);
    const full = await refusal(open(plan, second, windowId));
    assert.deepEqual([full.code, full.status, full.context?.pass_window_id], ["PASS_WINDOW_FULL", 409, windowId]);
    assert.equal((await db("payment_checkouts").where({ member_id: second.id })).length, 0, "the refused buyer holds nothing");
    const read = await suite.client.get(windowPath(plan, windowId));
    assert.equal(read.status, 200);
    assert.deepEqual([read.body.data.capacity, read.body.data.seats_taken, read.body.data.seats_left], [1, 1, 0]);
    const listed = await suite.client.get(`/v1/projects/${plan.projectId}/plans/${plan.planId}/pass-windows`);
    assert.deepEqual([listed.body.data[0].seats_taken, listed.body.data[0].seats_left], [1, 0]);
  });

  it("a buyer trying again frees their own seat; an unpaid checkout frees it after the hold", async () => {
    const { plan, windowId } = await passPlan(new Date(Date.now() + 2 * DAY), new Date(Date.now() + 3 * DAY), 1);
    const buyer = await member(plan);
    await open(plan, buyer, windowId);
    const again = await open(plan, buyer, windowId);
    assert.equal(again.status, "open", "their earlier checkout closed, its seat free for them");
    const other = await member(plan);
    assert.equal((await refusal(open(plan, other, windowId))).code, "PASS_WINDOW_FULL");
    const later = new Date(Date.now() + PASS_SEAT_HOLD_MS + MINUTE);
    assert.equal((await open(plan, other, windowId, later)).pass_window_id, windowId, "the abandoned checkout's hold lapsed");
  });

  it("of concurrent buyers of a window of capacity 1, exactly one gets the seat", async () => {
    const { db } = await testDatabase();
    const { plan, windowId } = await passPlan(new Date(Date.now() + 2 * DAY), new Date(Date.now() + 3 * DAY), 1);
    const buyers = await Promise.all(Array.from({ length: 6 }, () => member(plan)));
    const results = await Promise.allSettled(buyers.map((b) => open(plan, b, windowId)));
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    assert.equal(won.length, 1, JSON.stringify(lost.map((l) => String(l.reason))));
    for (const l of lost) assert.equal((l.reason as ApiError).code, "PASS_WINDOW_FULL", String(l.reason));
    const held = await db("payment_checkouts").where({ pass_window_id: windowId, status: "open" });
    assert.equal(held.length, 1);
  });

  it("needs a window for a plan with windows (422 naming pass_window_id), refuses an ended one (422) and another's (404)", async () => {
    const { db } = await testDatabase();
    const { plan, windowId } = await passPlan(new Date(Date.now() + 2 * DAY), new Date(Date.now() + 3 * DAY), null);
    const buyer = await member(plan);
    const missing = await refusal(open(plan, buyer, null));
    assert.deepEqual([missing.code, missing.status, Object.keys(missing.fields ?? {})], ["VALIDATION_FAILED", 422, ["pass_window_id"]]);
    const past = await passPlan(new Date(Date.now() - 3 * DAY), new Date(Date.now() - DAY), 10);
    const ended = await refusal(open(past.plan, buyer, past.windowId));
    assert.deepEqual([ended.code, Object.keys(ended.fields ?? {})], ["VALIDATION_FAILED", ["pass_window_id"]]);
    // Another plan's window, of the same team: not this plan's.
    assert.equal((await refusal(open(plan, buyer, past.windowId))).code, "RESOURCE_NOT_FOUND");
    const other = await createTestCreator({ label: "pass-seats-other" });
    const theirs = await seedPlan(other, { windows: [[new Date(Date.now() + DAY), new Date(Date.now() + 2 * DAY)]] });
    const theirWindow = (await db("pass_windows").where({ plan_id: theirs.planId }).first()).id;
    assert.equal((await refusal(open(plan, buyer, theirWindow))).code, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(windowPath(theirs, theirWindow)), 404, "RESOURCE_NOT_FOUND");
    assert.equal((await db("payment_checkouts").where({ member_id: buyer.id })).length, 0, "nothing opened");
    assert.equal((await open(plan, buyer, windowId)).pass_window_id, windowId);
  });

  it("sells a pass as one payment without a trial; access starts at the window's start and ends at its end", async () => {
    const { db } = await testDatabase();
    const start = new Date(Date.now() + 2 * DAY);
    const end = new Date(Date.now() + 4 * DAY);
    const { plan, windowId } = await passPlan(start, end, 5, { trialDays: 7 });
    const buyer = await member(plan);
    const checkout = await open(plan, buyer, windowId);
    const planRow = (await db("plans").where({ id: plan.planId }).first()) as PlanRow;
    assert.deepEqual([checkoutPrice(planRow, checkout).cycle, checkout.trial_days], ["lifetime", 0]);
    assert.equal((await applyProviderEvent(db, "stripe", paidOnce(checkout), new Date())).outcome, "applied");
    const sub = await db("subscriptions").where({ member_id: buyer.id }).first();
    assert.deepEqual([sub.status, sub.pass_window_id, new Date(sub.ends_at).getTime()], ["active", windowId, end.getTime()]);
    assert.equal(new Date(sub.grants_due_at).getTime(), start.getTime());
    const grants = () => db("access_grants").where({ subscription_id: sub.id });
    assert.equal((await grants()).length, 0, "bought before the window opens: nothing granted yet");
    assert.equal((await suite.client.get(windowPath(plan, windowId))).body.data.seats_taken, 1, "the paid pass holds its seat");

    assert.equal(await runJob(passJobs, "pass-windows.open-passes", new Date(start.getTime() - MINUTE)), 0);
    assert.equal((await grants()).length, 0);
    assert.equal(await runJob(passJobs, "pass-windows.open-passes", new Date(start.getTime() + MINUTE)), 1);
    assert.deepEqual(
      (await grants()).map((g) => g.status),
      ["pending"],
    );
    assert.equal(await runJob(passJobs, "pass-windows.open-passes", new Date(start.getTime() + 2 * MINUTE)), 0, "a second run changes nothing");
    assert.equal((await db("subscriptions").where({ id: sub.id }).first()).grants_due_at, null);

    await runJob(subscriptionJobs, "subscriptions.expire", new Date(end.getTime() - MINUTE));
    assert.equal((await db("subscriptions").where({ id: sub.id }).first()).status, "active", "access lasts the whole window");
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(end.getTime() + MINUTE));
    assert.equal((await db("subscriptions").where({ id: sub.id }).first()).status, "expired", "and ends with it, with no payment grace");
    assert.deepEqual(
      (await grants()).map((g) => g.status),
      ["revoked"],
    );
  });

  it("a pass ended before its window opens (a ban) never grants", async () => {
    const { db } = await testDatabase();
    const start = new Date(Date.now() + DAY);
    const { plan, windowId } = await passPlan(start, new Date(Date.now() + 2 * DAY), null);
    const buyer = await member(plan);
    assert.equal((await applyProviderEvent(db, "stripe", paidOnce(await open(plan, buyer, windowId)), new Date())).outcome, "applied");
    const sub = await db("subscriptions").where({ member_id: buyer.id }).first();
    await asDomain(suite.creator, (ctx) => cancelSubscriptionRow(ctx, sub, { endsNow: true }), { system: true });
    assert.equal(await runJob(passJobs, "pass-windows.open-passes", new Date(start.getTime() + MINUTE)), 0);
    assert.equal((await db("access_grants").where({ subscription_id: sub.id })).length, 0);
  });

  it("a pass bought while its window runs grants at once", async () => {
    const { db } = await testDatabase();
    const { plan, windowId } = await passPlan(new Date(Date.now() - DAY), new Date(Date.now() + DAY), null);
    const buyer = await member(plan);
    const checkout = await open(plan, buyer, windowId);
    assert.equal((await applyProviderEvent(db, "stripe", paidOnce(checkout), new Date())).outcome, "applied");
    const sub = await db("subscriptions").where({ member_id: buyer.id }).first();
    assert.equal(sub.grants_due_at, null);
    assert.equal((await db("access_grants").where({ subscription_id: sub.id })).length, 1);
  });

  it("refunds a payment whose seat was lost after its hold lapsed, or whose window ended; the seat's holder keeps it", async () => {
    const { db } = await testDatabase();
    const { plan, windowId } = await passPlan(new Date(Date.now() + 2 * DAY), new Date(Date.now() + 3 * DAY), 1);
    const slow = await member(plan);
    const late = await open(plan, slow, windowId);
    const after = new Date(Date.now() + PASS_SEAT_HOLD_MS + MINUTE);
    const quick = await member(plan);
    const taken = await open(plan, quick, windowId, after);
    const lost = await applyProviderEvent(db, "stripe", paidOnce(late), after);
    assert.equal(lost.outcome, "superseded");
    assert.equal((await db("payment_checkouts").where({ id: late.id }).first()).status, "superseded");
    assert.equal((await db("subscriptions").where({ member_id: slow.id })).length, 0, "no pass for a lost seat");
    assert.equal((await db("payment_refunds_owed").where({ checkout_id: late.id })).length, 1, "its money is owed back");
    assert.equal((await applyProviderEvent(db, "stripe", paidOnce(taken), after)).outcome, "applied", "the holder's payment buys the seat");

    const ending = await passPlan(new Date(Date.now() - DAY), new Date(Date.now() + DAY), null);
    const tooLate = await open(ending.plan, await member(ending.plan), ending.windowId);
    assert.equal((await applyProviderEvent(db, "stripe", paidOnce(tooLate), new Date(Date.now() + DAY + MINUTE))).outcome, "superseded");
    assert.equal((await db("payment_refunds_owed").where({ checkout_id: tooLate.id })).length, 1);
  });

  it("keeps a sold window's dates and refuses deleting a window someone started to buy (422)", async () => {
    const { plan, windowId } = await passPlan(new Date(Date.now() + 2 * DAY), new Date(Date.now() + 3 * DAY), 3);
    const checkout = await open(plan, await member(plan), windowId);
    const path = windowPath(plan, windowId);
    expectError(await suite.client.delete(path), 422, "VALIDATION_FAILED");
    const { db } = await testDatabase();
    assert.equal((await applyProviderEvent(db, "stripe", paidOnce(checkout), new Date())).outcome, "applied");
    const moved = { ends_at: new Date(Date.now() + 5 * DAY).toISOString() };
    expectError(await suite.client.request("PATCH", path, { body: moved }), 422, "VALIDATION_FAILED");
    const resized = await suite.client.request("PATCH", path, { body: { capacity: 1 } });
    assert.equal(resized.status, 200, JSON.stringify(resized.body));
    assert.deepEqual([resized.body.data.seats_taken, resized.body.data.seats_left], [1, 0]);
  });
});
