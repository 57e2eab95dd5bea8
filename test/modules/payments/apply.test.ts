// Applying provider events (issue 33): a completed checkout starts the member's subscription with
// the provider's dates, its payment transaction and the plan's grants, once, however often the
// event arrives; a renewal records its payment and only moves the period forward; an ended
// subscription expires and is not revived by a late renewal; a second paid checkout while one is
// live is superseded (the caller refunds it); an event of no checkout of ours changes nothing.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { applyProviderEvent } from "../../../src/modules/payments/apply.ts";
import { openCheckout } from "../../../src/modules/payments/checkouts.ts";
import type { ProviderEvent } from "../../../src/modules/payments/provider.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { account, asDomain, DAY, runJob, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { PAYMENT_GRACE_MS } from "../../../src/modules/subscriptions/subscriptions.ts";
import { scheduledJobs as subscriptionJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { CHECKOUT_OPEN_MS, scheduledJobs as paymentJobs } from "../../../src/modules/payments/jobs.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";

describe("payments: applying provider events", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator({ projects: 1 });
  });

  /** A member of the plan's project with an open Stripe checkout of it. */
  async function checkoutOf(plan: SeededPlan, person = account()) {
    return asDomain(
      creator,
      async (ctx) => {
        const { member } = await findOrCreateMember(ctx, plan.projectId, person);
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        return { member, checkout: await openCheckout(ctx, { member, plan: planRow, provider: "stripe", paymentMethodId: null }) };
      },
      { system: true },
    );
  }

  const paid = (reference: string, subscriptionId: string, periodEndsAt: Date): ProviderEvent => ({
    kind: "checkout.completed",
    eventId: `evt_${randomUUID()}`,
    occurredAt: new Date(),
    reference,
    providerSubscriptionId: subscriptionId,
    providerCustomerId: "cus_1",
    payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: 45, paidAt: new Date() },
    trialEndsAt: null,
    periodEndsAt,
  });

  it("starts the subscription once, with its payment and grants, however often the event arrives", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator, { resources: [{ mode: "creator_task" }] });
    const { member, checkout } = await checkoutOf(plan);
    const periodEnd = new Date(Date.now() + 30 * DAY);
    const event = paid(checkout.id, `sub_${randomUUID()}`, periodEnd);

    const first = await applyProviderEvent(db, "stripe", event, new Date());
    assert.equal(first.outcome, "applied");
    assert.deepEqual(await applyProviderEvent(db, "stripe", event, new Date()), { outcome: "duplicate" });

    const subscriptions = await db("subscriptions").where({ member_id: member.id });
    assert.equal(subscriptions.length, 1);
    assert.equal(subscriptions[0].status, "active");
    assert.equal(subscriptions[0].provider, "stripe");
    assert.equal(new Date(subscriptions[0].ends_at).getTime(), periodEnd.getTime(), "the provider's period, not the plan's arithmetic");
    const transactions = await db("transactions").where({ member_id: member.id });
    assert.deepEqual(
      transactions.map((t: Record<string, unknown>) => [t.kind, Number(t.amount_minor), t.currency, Number(t.fee_minor), t.provider]),
      [["payment", 500, "USD", 45, "stripe"]],
    );
    assert.equal((await db("access_grants").where({ subscription_id: subscriptions[0].id })).length, 1);
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "completed");
    assert.equal((await db("payment_provider_events").where({ event_id: event.eventId }).first()).team_id, creator.teamId);
    assert.notEqual((await db("members").where({ id: member.id }).first()).joined_at, null, "the member joined");
    const [succeeded] = (await eventsOf(creator.teamId, "payment.succeeded")).filter((e) => e.data.payment.subscription_id === subscriptions[0].id);
    assertValidEvent(succeeded!);
    assert.deepEqual(succeeded!.data.payment.amount, { amount: 500, currency: "USD" });
    assert.ok(!JSON.stringify(succeeded!.data).includes("fee"), "the fee never leaves the transactions table");
  });

  it("records each renewal once, moves the period only forward, and does not revive an ended subscription", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { member, checkout } = await checkoutOf(plan);
    const providerId = `sub_${randomUUID()}`;
    const start = Date.now();
    await applyProviderEvent(db, "stripe", paid(checkout.id, providerId, new Date(start + 30 * DAY)), new Date());
    const renewal = (days: number): ProviderEvent => ({
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      providerSubscriptionId: providerId,
      payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date() },
      periodEndsAt: new Date(start + days * DAY),
    });
    const second = renewal(90);
    const first = renewal(60);
    // Out of order: the later period arrives first, the earlier one cannot move ends_at back.
    assert.equal((await applyProviderEvent(db, "stripe", second, new Date())).outcome, "applied");
    assert.equal((await applyProviderEvent(db, "stripe", first, new Date())).outcome, "applied");
    assert.equal((await applyProviderEvent(db, "stripe", second, new Date())).outcome, "duplicate");
    const row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(new Date(row.ends_at).getTime(), start + 90 * DAY);
    assert.equal((await db("transactions").where({ member_id: member.id, kind: "payment" })).length, 3);

    const ended: ProviderEvent = {
      kind: "subscription.ended",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      providerSubscriptionId: providerId,
      endedAt: new Date(),
    };
    assert.equal((await applyProviderEvent(db, "stripe", ended, new Date())).outcome, "applied");
    assert.equal((await db("subscriptions").where({ id: row.id }).first()).status, "expired");
    await applyProviderEvent(db, "stripe", renewal(120), new Date());
    const after = await db("subscriptions").where({ id: row.id }).first();
    assert.equal(after.status, "expired", "a late renewal report does not revive it");
    assert.equal(new Date(after.ends_at).getTime(), start + 90 * DAY);
  });

  it("a scheduled cancellation keeps access to the period's end; a whole refund of the covering payment ends it now, a part does not", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { member, checkout } = await checkoutOf(plan);
    const providerId = `sub_${randomUUID()}`;
    const periodEnd = new Date(Date.now() + 30 * DAY);
    const first = paid(checkout.id, providerId, periodEnd);
    await applyProviderEvent(db, "stripe", first, new Date());
    const paymentId = first.kind === "checkout.completed" ? first.payment!.providerPaymentId : "";

    const cancel: ProviderEvent = {
      kind: "subscription.cancel_scheduled",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      providerSubscriptionId: providerId,
      cancelAtPeriodEnd: true,
      periodEndsAt: periodEnd,
    };
    assert.equal((await applyProviderEvent(db, "stripe", cancel, new Date())).outcome, "applied");
    let row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(row.status, "canceled");
    assert.equal(new Date(row.ends_at).getTime(), periodEnd.getTime(), "access kept until the period's end");

    const refund = (amountMinor: number): ProviderEvent => ({
      kind: "payment.refunded",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      providerPaymentId: paymentId,
      refundId: `re_${randomUUID()}`,
      amountMinor,
      currency: "USD",
    });
    assert.equal((await applyProviderEvent(db, "stripe", refund(200), new Date())).outcome, "applied");
    row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(row.status, "canceled", "a partial refund leaves the period paid");
    const rest = refund(300);
    assert.equal((await applyProviderEvent(db, "stripe", rest, new Date())).outcome, "applied");
    assert.equal((await applyProviderEvent(db, "stripe", rest, new Date())).outcome, "duplicate");
    row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(row.status, "expired", "wholly refunded: no payment covers the period any more");
    const refunds = (await eventsOf(creator.teamId, "payment.refunded")).filter((e) => e.data.payment.subscription_id === row.id);
    assert.deepEqual(refunds.map((e) => e.data.payment.amount.amount).sort(), [200, 300]);
    for (const event of refunds) assertValidEvent(event);
    const rows = await db("transactions").where({ member_id: member.id }).orderBy("created_at");
    assert.deepEqual(rows.map((t: Record<string, unknown>) => [t.kind, t.status, Number(t.amount_minor)]).sort(), [
      ["payment", "refunded", 500],
      ["refund", "succeeded", 200],
      ["refund", "succeeded", 300],
    ]);
  });

  it("a failed renewal is past_due with access through the grace; a later payment makes it active again; without one it expires after the grace", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { member, checkout } = await checkoutOf(plan);
    const providerId = `sub_${randomUUID()}`;
    const t0 = Date.now();
    await applyProviderEvent(db, "stripe", paid(checkout.id, providerId, new Date(t0 + 30 * DAY)), new Date(t0));
    const failed = (at: number): ProviderEvent => ({
      kind: "payment.failed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(at),
      providerSubscriptionId: providerId,
      reason: "card_declined",
      nextRetryAt: null,
    });
    const failedAt = t0 + 30 * DAY + 3_600_000;
    assert.equal((await applyProviderEvent(db, "stripe", failed(failedAt), new Date(failedAt))).outcome, "applied");
    let row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(row.status, "past_due");
    assert.equal(new Date(row.ends_at).getTime(), failedAt + PAYMENT_GRACE_MS, "access through the grace");
    assert.equal((await db("members").where({ id: member.id }).first()).status, "customer", "still a customer in the grace");
    assert.equal(
      (await applyProviderEvent(db, "stripe", failed(failedAt + DAY), new Date(failedAt + DAY))).outcome,
      "ignored",
      "a retry's failure does not extend the grace",
    );

    const renewed: ProviderEvent = {
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      providerSubscriptionId: providerId,
      payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date() },
      periodEndsAt: new Date(t0 + 60 * DAY),
    };
    await applyProviderEvent(db, "stripe", renewed, new Date(failedAt + 2 * DAY));
    row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(row.status, "active");
    assert.equal(new Date(row.ends_at).getTime(), t0 + 60 * DAY);
    const types = (await eventsOf(creator.teamId, "subscription.renewed")).filter((e) => e.data.subscription.id === row.id);
    assert.equal(types.length, 1);

    // The next renewal fails for good: past_due, then the expiry job ends it once the grace is over.
    const secondFailure = t0 + 60 * DAY + 3_600_000;
    await applyProviderEvent(db, "stripe", failed(secondFailure), new Date(secondFailure));
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(secondFailure + PAYMENT_GRACE_MS - 1000));
    assert.equal((await db("subscriptions").where({ id: row.id }).first()).status, "past_due", "within the grace");
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(secondFailure + PAYMENT_GRACE_MS));
    assert.equal((await db("subscriptions").where({ id: row.id }).first()).status, "expired");
  });

  it("keeps a provider-billed period open through the grace while its renewal report is on its way", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { checkout } = await checkoutOf(plan);
    const t0 = Date.now();
    await applyProviderEvent(db, "stripe", paid(checkout.id, `sub_${randomUUID()}`, new Date(t0 + 30 * DAY)), new Date(t0));
    const row = await db("payment_checkouts").where({ id: checkout.id }).first();
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(t0 + 30 * DAY + 3_600_000));
    assert.equal((await db("subscriptions").where({ id: row.subscription_id }).first()).status, "active", "an hour late is not expired");
    await runJob(subscriptionJobs, "subscriptions.expire", new Date(t0 + 30 * DAY + PAYMENT_GRACE_MS));
    assert.equal((await db("subscriptions").where({ id: row.subscription_id }).first()).status, "expired", "no report within the grace");
  });

  it("expires a checkout left open for two days, and still honours a payment the provider reports for it late", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { checkout } = await checkoutOf(plan);
    const opened = new Date(checkout.created_at).getTime();
    await runJob(paymentJobs, "payments.expire-checkouts", new Date(opened + CHECKOUT_OPEN_MS - 60_000));
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "open");
    await runJob(paymentJobs, "payments.expire-checkouts", new Date(opened + CHECKOUT_OPEN_MS));
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "expired");
    const late = await applyProviderEvent(db, "stripe", paid(checkout.id, `sub_${randomUUID()}`, new Date(Date.now() + 30 * DAY)), new Date());
    assert.equal(late.outcome, "applied", "money taken starts the subscription");
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "completed");
  });

  it("supersedes a second paid checkout while the first is live (the caller refunds it), and ignores what is not ours", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const person = account();
    const one = await checkoutOf(plan, person);
    const two = await checkoutOf(plan, person);
    await applyProviderEvent(db, "stripe", paid(one.checkout.id, `sub_${randomUUID()}`, new Date(Date.now() + 30 * DAY)), new Date());
    const late = paid(two.checkout.id, `sub_${randomUUID()}`, new Date(Date.now() + 30 * DAY));
    const outcome = await applyProviderEvent(db, "stripe", late, new Date());
    assert.equal(outcome.outcome, "superseded");
    assert.equal(outcome.outcome === "superseded" && outcome.refund?.amountMinor, 500);
    assert.equal((await db("subscriptions").where({ member_id: one.member.id })).length, 1);
    assert.equal((await db("payment_checkouts").where({ id: two.checkout.id }).first()).status, "superseded");
    assert.equal((await db("payment_provider_events").where({ event_id: late.eventId })).length, 1, "kept: a retry changes nothing");

    const stranger = await applyProviderEvent(db, "stripe", paid(randomUUID(), `sub_${randomUUID()}`, new Date()), new Date());
    assert.equal(stranger.outcome, "ignored");
  });
});
