// Applying provider events (issue 33): a completed checkout starts the member's subscription with
// the provider's dates, its payment transaction and the plan's grants, once, however often the
// event arrives; a renewal records its payment and only moves the period forward; an ended
// subscription expires and is not revived by a late renewal; a second paid checkout while one is
// live is superseded (the caller refunds it); an event of no checkout of ours changes nothing.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { applyProviderEvent } from "../../../src/modules/payments/apply.ts";
import { noteProviderCheckout, openCheckout } from "../../../src/modules/payments/checkouts.ts";
import type { ProviderEvent } from "../../../src/modules/payments/provider.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { account, activityOf, asDomain, DAY, runJob, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { PAYMENT_GRACE_MS } from "../../../src/modules/subscriptions/subscriptions.ts";
import { scheduledJobs as subscriptionJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { CHECKOUT_OPEN_MS, scheduledJobs as paymentJobs } from "../../../src/modules/payments/jobs.ts";
import { assertNoFee, assertValidEvent, eventsOf, type OutboxEvent } from "../../helpers/events.ts";
import { completionReport } from "./reports.ts";

describe("payments: applying provider events", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator({ projects: 1 });
  });

  /** The connected account the test's checkouts are sold through: every report here comes from it. */
  const ACCOUNT = "acct_apply_test";

  /** A member of the plan's project with an open Stripe checkout of it, its Checkout Session noted. */
  async function checkoutOf(plan: SeededPlan, person = account()) {
    return asDomain(
      creator,
      async (ctx) => {
        const { member } = await findOrCreateMember(ctx, plan.projectId, person);
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const { checkout } = await openCheckout(ctx, { member, plan: planRow, provider: "stripe", paymentMethodId: null, providerAccount: ACCOUNT });
        const session = `cs_${randomUUID()}`;
        await noteProviderCheckout(ctx, checkout.id, session);
        return { member, checkout: { ...checkout, provider_checkout_id: session } };
      },
      { system: true },
    );
  }

  const paid = (checkout: { id: string; provider_checkout_id: string | null }, subscriptionId: string, periodEndsAt: Date): ProviderEvent =>
    completionReport(checkout, ACCOUNT, {
      providerSubscriptionId: subscriptionId,
      periodEndsAt,
      payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: 45, paidAt: new Date() },
    });

  it("starts the subscription once, with its payment and grants, however often the event arrives", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator, { resources: [{ mode: "creator_task" }] });
    const { member, checkout } = await checkoutOf(plan);
    const periodEnd = new Date(Date.now() + 30 * DAY);
    const event = paid(checkout, `sub_${randomUUID()}`, periodEnd);

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
    assertNoFee(succeeded!.data, "the fee never leaves the transactions table");
  });

  it("records each renewal once, moves the period only forward, and does not revive an ended subscription", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { member, checkout } = await checkoutOf(plan);
    const providerId = `sub_${randomUUID()}`;
    const start = Date.now();
    await applyProviderEvent(db, "stripe", paid(checkout, providerId, new Date(start + 30 * DAY)), new Date());
    const renewal = (days: number): ProviderEvent => ({
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
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
      source: ACCOUNT,
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
    const first = paid(checkout, providerId, periodEnd);
    await applyProviderEvent(db, "stripe", first, new Date());
    const paymentId = first.kind === "checkout.completed" ? first.payment!.providerPaymentId : "";

    const cancel: ProviderEvent = {
      kind: "subscription.cancel_scheduled",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
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
      source: ACCOUNT,
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
    await applyProviderEvent(db, "stripe", paid(checkout, providerId, new Date(t0 + 30 * DAY)), new Date(t0));
    const failed = (at: number): ProviderEvent => ({
      kind: "payment.failed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(at),
      source: ACCOUNT,
      providerSubscriptionId: providerId,
      reason: "card_declined",
      amountDueMinor: null,
      currency: null,
      attemptCount: null,
      nextRetryAt: null,
    });
    const failedAt = t0 + 30 * DAY + 3_600_000;
    assert.equal((await applyProviderEvent(db, "stripe", failed(failedAt), new Date(failedAt))).outcome, "applied");
    let row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(row.status, "past_due");
    assert.equal(new Date(row.ends_at).getTime(), failedAt + PAYMENT_GRACE_MS, "access through the grace");
    assert.equal((await db("members").where({ id: member.id }).first()).status, "customer", "still a customer in the grace");
    assert.equal((await applyProviderEvent(db, "stripe", failed(failedAt + DAY), new Date(failedAt + DAY))).outcome, "applied");
    row = await db("subscriptions").where({ member_id: member.id }).first();
    assert.equal(new Date(row.ends_at).getTime(), failedAt + PAYMENT_GRACE_MS, "a retry's failure does not extend the grace");

    const renewed: ProviderEvent = {
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
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
    await applyProviderEvent(db, "stripe", paid(checkout, `sub_${randomUUID()}`, new Date(t0 + 30 * DAY)), new Date(t0));
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
    const late = await applyProviderEvent(db, "stripe", paid(checkout, `sub_${randomUUID()}`, new Date(Date.now() + 30 * DAY)), new Date());
    assert.equal(late.outcome, "applied", "money taken starts the subscription");
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "completed");
  });

  it("supersedes a second paid checkout while the first is live (the caller refunds it), and ignores what is not ours", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const person = account();
    const one = await checkoutOf(plan, person);
    const two = await checkoutOf(plan, person);
    await applyProviderEvent(db, "stripe", paid(one.checkout, `sub_${randomUUID()}`, new Date(Date.now() + 30 * DAY)), new Date());
    const late = paid(two.checkout, `sub_${randomUUID()}`, new Date(Date.now() + 30 * DAY));
    const outcome = await applyProviderEvent(db, "stripe", late, new Date());
    assert.equal(outcome.outcome, "superseded");
    assert.equal(outcome.outcome === "superseded" && outcome.refund?.amountMinor, 500);
    assert.equal((await db("subscriptions").where({ member_id: one.member.id })).length, 1);
    assert.equal((await db("payment_checkouts").where({ id: two.checkout.id }).first()).status, "superseded");
    assert.equal((await db("payment_provider_events").where({ event_id: late.eventId })).length, 1, "kept: a retry changes nothing");

    const stranger = await applyProviderEvent(
      db,
      "stripe",
      paid({ id: randomUUID(), provider_checkout_id: null }, `sub_${randomUUID()}`, new Date()),
      new Date(),
    );
    assert.equal(stranger.outcome, "ignored");
  });

  /** The subscription's events of `types`, oldest first, each checked against its spec schema. */
  async function subscriptionEvents(subscriptionId: string, types: string[]) {
    const about = (e: OutboxEvent) =>
      e.data.subscription?.id === subscriptionId ||
      e.data.failure?.subscription_id === subscriptionId ||
      e.data.payment?.subscription_id === subscriptionId;
    const events = (await eventsOf(creator.teamId)).filter((e) => types.includes(e.type) && about(e));
    for (const event of events) {
      assertValidEvent(event);
      assertNoFee(event.data, `${event.type} carries no fee`);
    }
    return events;
  }

  /** A live Stripe subscription paid at `t0` for 30 days: its row, its payment's provider id and its Stripe id. */
  async function paidSubscription(t0: number) {
    const plan = await seedPlan(creator);
    const { member, checkout } = await checkoutOf(plan);
    const providerId = `sub_${randomUUID()}`;
    const event = paid(checkout, providerId, new Date(t0 + 30 * DAY));
    assert.equal((await applyProviderEvent(db(), "stripe", event, new Date(t0))).outcome, "applied");
    const row = await db()("subscriptions").where({ member_id: member.id }).first();
    const paymentId = event.kind === "checkout.completed" ? event.payment!.providerPaymentId : "";
    return { row, member, providerId, paymentId };
  }
  let database: Awaited<ReturnType<typeof testDatabase>>["db"];
  const db = () => database;
  before(async () => {
    database = (await testDatabase()).db;
  });

  const failure = (providerId: string, at: number, attemptCount: number, nextRetryAt: Date | null): ProviderEvent => ({
    kind: "payment.failed",
    eventId: `evt_${randomUUID()}`,
    occurredAt: new Date(at),
    source: ACCOUNT,
    providerSubscriptionId: providerId,
    reason: "insufficient_funds",
    amountDueMinor: 700,
    currency: "USD",
    attemptCount,
    nextRetryAt,
  });

  it("sends payment.failed with subscription.past_due for each failed attempt, once each; the provider giving up ends it", async () => {
    const t0 = Date.now();
    const { row, providerId } = await paidSubscription(t0);
    const failedAt = t0 + 30 * DAY + 3_600_000;
    const first = failure(providerId, failedAt, 1, new Date(failedAt + 3 * DAY));
    assert.equal((await applyProviderEvent(db(), "stripe", first, new Date(failedAt))).outcome, "applied");
    assert.deepEqual(await applyProviderEvent(db(), "stripe", first, new Date(failedAt)), { outcome: "duplicate" });
    const retry = failure(providerId, failedAt + 3 * DAY, 2, null);
    assert.equal((await applyProviderEvent(db(), "stripe", retry, new Date(failedAt + 3 * DAY))).outcome, "applied");
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "past_due");

    const types = ["subscription.past_due", "payment.failed", "subscription.expired"];
    let events = await subscriptionEvents(row.id, types);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.past_due", "payment.failed", "payment.failed"],
    );
    const grace = new Date(failedAt + PAYMENT_GRACE_MS).toISOString();
    assert.deepEqual(events[1]!.data.failure, {
      subscription_id: row.id,
      member_id: row.member_id,
      plan_id: row.plan_id,
      amount: { amount: 700, currency: "USD" },
      reason: "insufficient_funds",
      attempt_count: 1,
      next_retry_at: new Date(failedAt + 3 * DAY).toISOString(),
      grace_ends_at: grace,
      failed_at: new Date(failedAt).toISOString(),
    });
    assert.deepEqual(
      [events[2]!.data.failure.attempt_count, events[2]!.data.failure.next_retry_at, events[2]!.data.failure.grace_ends_at],
      [2, null, grace],
    );

    // Stripe gives up after its last retry and deletes the subscription: access ends now.
    const ended: ProviderEvent = {
      kind: "subscription.ended",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(failedAt + 3 * DAY),
      source: ACCOUNT,
      providerSubscriptionId: providerId,
      endedAt: new Date(failedAt + 3 * DAY),
    };
    const outcome = await applyProviderEvent(db(), "stripe", ended, new Date(failedAt + 3 * DAY));
    assert.equal(outcome.outcome, "applied", "access sync runs");
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "expired");
    assert.equal((await applyProviderEvent(db(), "stripe", failure(providerId, failedAt + 4 * DAY, 3, null), new Date())).outcome, "ignored");
    events = await subscriptionEvents(row.id, types);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.past_due", "payment.failed", "payment.failed", "subscription.expired"],
    );
  });

  it("a trial's failed first charge is past_due too; a failure reported after the payment that settled it changes nothing", async () => {
    const t0 = Date.now();
    const plan = await seedPlan(creator, { trialDays: 7 });
    const { checkout } = await checkoutOf(plan);
    const providerId = `sub_${randomUUID()}`;
    const trialEnd = new Date(t0 + 7 * DAY);
    const trial: ProviderEvent = { ...paid(checkout, providerId, trialEnd), payment: null, trialEndsAt: trialEnd } as ProviderEvent;
    await applyProviderEvent(db(), "stripe", trial, new Date(t0));
    const row = await db()("subscriptions").where({ provider_subscription_id: providerId }).first();
    assert.equal(row.status, "trialing");
    const failedAt = t0 + 7 * DAY + 3_600_000;
    const first = failure(providerId, failedAt, 1, new Date(failedAt + 3 * DAY));
    const second = failure(providerId, failedAt + 3 * DAY, 2, new Date(failedAt + 5 * DAY));
    await applyProviderEvent(db(), "stripe", first, new Date(failedAt));
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "past_due");
    // The third attempt pays; the second attempt's failure is delivered after it.
    const renewed: ProviderEvent = {
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(failedAt + 5 * DAY),
      source: ACCOUNT,
      providerSubscriptionId: providerId,
      payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date(failedAt + 5 * DAY) },
      periodEndsAt: new Date(t0 + 37 * DAY),
    };
    await applyProviderEvent(db(), "stripe", renewed, new Date(failedAt + 5 * DAY));
    const late = await applyProviderEvent(db(), "stripe", second, new Date(failedAt + 5 * DAY + 60_000));
    assert.deepEqual(late, { outcome: "ignored", reason: "a later payment settled it" });
    const after = await db()("subscriptions").where({ id: row.id }).first();
    assert.deepEqual([after.status, new Date(after.ends_at).getTime()], ["active", t0 + 37 * DAY]);
    const events = await subscriptionEvents(row.id, ["subscription.past_due", "payment.failed", "subscription.renewed"]);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.past_due", "payment.failed", "subscription.renewed"],
    );
    assert.equal(events[1]!.data.failure.grace_ends_at, new Date(failedAt + PAYMENT_GRACE_MS).toISOString());
  });

  const dispute = (paymentId: string, disputeId: string, closed?: "won" | "lost"): ProviderEvent => {
    const common = {
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
      providerPaymentId: paymentId,
      disputeId,
      amountMinor: 500,
      currency: "USD",
      reason: "fraudulent",
    };
    return closed ? { ...common, kind: "payment.dispute_closed", outcome: closed } : { ...common, kind: "payment.disputed" };
  };
  const disputeRows = (paymentRowId: string) =>
    db()("transactions").where({ kind: "dispute", refunded_transaction_id: paymentRowId }).select("status", "amount_minor", "provider_reference");

  it("a dispute of the covering payment is its own row and ends access now; won, it records its closing and nothing more", async () => {
    const { row, paymentId } = await paidSubscription(Date.now());
    const payment = await db()("transactions").where({ provider_reference: paymentId }).first();
    const disputeId = `du_${randomUUID()}`;
    const opened = dispute(paymentId, disputeId);
    const outcome = await applyProviderEvent(db(), "stripe", opened, new Date());
    assert.equal(outcome.outcome, "applied", "access sync runs");
    assert.equal(outcome.outcome === "applied" && outcome.memberId, row.member_id);
    assert.deepEqual(await applyProviderEvent(db(), "stripe", opened, new Date()), { outcome: "duplicate" });
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "expired", "no access without a covering payment");
    assert.deepEqual(
      (await disputeRows(payment.id)).map((d: Record<string, unknown>) => [d.status, Number(d.amount_minor), d.provider_reference]),
      [["pending", 500, disputeId]],
    );
    assert.equal((await db()("transactions").where({ id: payment.id }).first()).status, "succeeded", "the payment keeps its status");

    const won = dispute(paymentId, disputeId, "won");
    assert.equal((await applyProviderEvent(db(), "stripe", won, new Date())).outcome, "applied");
    assert.deepEqual(await applyProviderEvent(db(), "stripe", won, new Date()), { outcome: "duplicate" });
    const again = await applyProviderEvent(db(), "stripe", dispute(paymentId, disputeId, "won"), new Date());
    assert.deepEqual(again, { outcome: "ignored", reason: "the dispute is decided already" });
    assert.deepEqual(
      (await disputeRows(payment.id)).map((d: Record<string, unknown>) => d.status),
      ["failed"],
    );
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "expired", "a win does not give access back");

    const events = await subscriptionEvents(row.id, ["payment.disputed", "payment.dispute_closed", "subscription.expired"]);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.dispute?.status ?? null]),
      [
        ["payment.disputed", "open"],
        ["subscription.expired", null],
        ["payment.dispute_closed", "won"],
      ],
    );
    assert.deepEqual(
      [
        events[0]!.data.payment.kind,
        events[0]!.data.payment.refunded_payment_id,
        events[0]!.data.payment.provider_reference,
        events[0]!.data.dispute.reason,
      ],
      ["dispute", payment.id, disputeId, "fraudulent"],
    );
  });

  it("a dispute's closing that arrives before its opening: lost ends access, won changes nothing; the late opening adds nothing", async () => {
    const lostCase = await paidSubscription(Date.now());
    const lostId = `du_${randomUUID()}`;
    assert.equal((await applyProviderEvent(db(), "stripe", dispute(lostCase.paymentId, lostId, "lost"), new Date())).outcome, "applied");
    const lateOpening = await applyProviderEvent(db(), "stripe", dispute(lostCase.paymentId, lostId), new Date());
    assert.deepEqual(lateOpening, { outcome: "ignored", reason: "the dispute is recorded already (its closing came first)" });
    const lostPayment = await db()("transactions").where({ provider_reference: lostCase.paymentId }).first();
    assert.deepEqual(
      (await disputeRows(lostPayment.id)).map((d: Record<string, unknown>) => d.status),
      ["succeeded"],
    );
    assert.equal((await db()("subscriptions").where({ id: lostCase.row.id }).first()).status, "expired");
    const lostEvents = await subscriptionEvents(lostCase.row.id, ["payment.disputed", "payment.dispute_closed", "subscription.expired"]);
    assert.deepEqual(
      lostEvents.map((e) => [e.type, e.data.dispute?.status ?? null]),
      [
        ["payment.dispute_closed", "lost"],
        ["subscription.expired", null],
      ],
    );

    const wonCase = await paidSubscription(Date.now());
    const wonId = `du_${randomUUID()}`;
    assert.equal((await applyProviderEvent(db(), "stripe", dispute(wonCase.paymentId, wonId, "won"), new Date())).outcome, "applied");
    assert.equal((await applyProviderEvent(db(), "stripe", dispute(wonCase.paymentId, wonId), new Date())).outcome, "ignored");
    assert.equal((await db()("subscriptions").where({ id: wonCase.row.id }).first()).status, "active", "a won dispute never took access");
    const wonEvents = await subscriptionEvents(wonCase.row.id, ["payment.disputed", "payment.dispute_closed", "subscription.expired"]);
    assert.deepEqual(
      wonEvents.map((e) => [e.type, e.data.dispute?.status ?? null]),
      [["payment.dispute_closed", "won"]],
    );
  });

  it("a dispute of an earlier payment leaves the period a later payment covers; one of no payment of ours is ignored", async () => {
    const t0 = Date.now();
    const { row, providerId, paymentId } = await paidSubscription(t0);
    const renewed: ProviderEvent = {
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
      providerSubscriptionId: providerId,
      payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date() },
      periodEndsAt: new Date(t0 + 60 * DAY),
    };
    await applyProviderEvent(db(), "stripe", renewed, new Date(t0 + 1000));
    assert.equal((await applyProviderEvent(db(), "stripe", dispute(paymentId, `du_${randomUUID()}`), new Date(t0 + 2000))).outcome, "applied");
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "active");
    const stranger = await applyProviderEvent(db(), "stripe", dispute(`pi_${randomUUID()}`, `du_${randomUUID()}`), new Date());
    assert.deepEqual(stranger, { outcome: "ignored", reason: "no payment of ours has this id" });
  });

  it("a cancellation withdrawn at the provider makes the subscription renew again, once; not after its access ended", async () => {
    const t0 = Date.now();
    const { row, providerId } = await paidSubscription(t0);
    const scheduled = (cancelAtPeriodEnd: boolean): ProviderEvent => ({
      kind: "subscription.cancel_scheduled",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
      providerSubscriptionId: providerId,
      cancelAtPeriodEnd,
      periodEndsAt: new Date(t0 + 30 * DAY),
    });
    await applyProviderEvent(db(), "stripe", scheduled(true), new Date(t0 + 1000));
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "canceled");
    const withdrawn = scheduled(false);
    const outcome = await applyProviderEvent(db(), "stripe", withdrawn, new Date(t0 + 2000));
    assert.equal(outcome.outcome, "applied");
    assert.deepEqual(await applyProviderEvent(db(), "stripe", withdrawn, new Date(t0 + 3000)), { outcome: "duplicate" });
    assert.deepEqual(await applyProviderEvent(db(), "stripe", scheduled(false), new Date(t0 + 3000)), {
      outcome: "ignored",
      reason: "no cancellation to withdraw: the subscription is active",
    });
    const after = await db()("subscriptions").where({ id: row.id }).first();
    assert.deepEqual([after.status, after.canceled_at, new Date(after.ends_at).getTime()], ["active", null, t0 + 30 * DAY]);
    const events = await subscriptionEvents(row.id, ["subscription.cancelled", "subscription.reactivated"]);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.subscription.status]),
      [
        ["subscription.cancelled", "canceled"],
        ["subscription.reactivated", "active"],
      ],
    );
    assert.deepEqual(
      (await activityOf(creator.teamId, row.id)).map((a) => a.event).filter((e) => e === "cancelled" || e === "reactivated"),
      ["cancelled", "reactivated"],
    );

    // Cancelled again, and the withdrawal reported only after the period ended: access is over, nothing changes.
    await applyProviderEvent(db(), "stripe", scheduled(true), new Date(t0 + 4000));
    const tooLate = await applyProviderEvent(db(), "stripe", scheduled(false), new Date(t0 + 30 * DAY + 1000));
    assert.equal(tooLate.outcome, "ignored");
    assert.equal((await db()("subscriptions").where({ id: row.id }).first()).status, "canceled");
  });
});
