// Applying a provider's normalized report (ProviderEvent) to the domain, once: the event is stored
// in the inbox by its provider id in the same transaction as the change it causes, so a second
// arrival (a provider retry, a replay, reconciliation finding it again) changes nothing. Order is
// not trusted: a renewal only moves ends_at forward, and an ended subscription is not revived.
// A scheduled cancellation keeps access to the end of the period and its withdrawal makes the
// subscription renew again; a whole refund, or a dispute, of the payment that covers the period
// ends access now. A failed renewal is past_due through the grace, each failed attempt a
// payment.failed event. A kind this file does not know is kept in the inbox and answered
// "unhandled", so the provider is not asked to send it again. A completion or renewal that does
// not match what it names (binding.ts: the account, the provider's checkout, the payer, the amount
// and currency, the trial, the plan's mode) grants nothing and is kept as "mismatched" (mismatched.ts).
import type { Db } from "../../db/tenant.ts";
import { commitEffectsOf, createDomainContext, systemActor, unscoped, type CommitEffect, type DomainContext } from "../../db/tenant.ts";
import { ApiError } from "../../errors.ts";
import { UUID } from "../../uuid.ts";
import { alertSale } from "../alerts/producers.ts";
import { countCouponRedemption } from "../coupons/checkout.ts";
import { emitEvent } from "../events/outbox.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { queuePaymentFailedNotice } from "../notices/notices.ts";
import { memberSubscribed } from "../members/joining.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { lockedWindow, seatLost } from "../pass-windows/seats.ts";
import { grantPlanResources } from "../subscriptions/grants.ts";
import {
  cancelSubscriptionRow,
  createSubscription,
  expireSubscription,
  PAYMENT_GRACE_MS,
  recordSubscriptionChange,
  withdrawCancellation,
} from "../subscriptions/subscriptions.ts";
import { LIVE_STATUSES, subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { closeDispute, recordDispute, recordPayment, recordRefund } from "../transactions/transactions.ts";
import { transactionsTable, type TransactionRow } from "../transactions/tables.ts";
import type { ProviderEvent, ProviderName, ProviderPayment } from "./provider.ts";
import { completionMismatch, renewalMismatch } from "./binding.ts";
import { firstArrival, recordInboxOutcome, tagInbox } from "./inbox.ts";
import { refuseMismatched, type MismatchedOutcome } from "./mismatched.ts";
import { recordOwedRefund } from "./reconcile-owed.ts";
import { checkoutsTable, type CheckoutRow } from "./tables.ts";

export type ApplyOutcome =
  /** The change was made, to `memberId`'s subscription (their platform access follows). */
  | { outcome: "applied"; memberId: string; effects: readonly CommitEffect[] }
  /** Seen before: nothing changed. */
  | { outcome: "duplicate" }
  /** Nothing of ours matches it (another deployment's checkout, an unknown subscription), or it changes nothing now. */
  | { outcome: "ignored"; reason: string }
  /** Kept, not acted on yet. */
  | { outcome: "unhandled" }
  /** Paid while the member already had a live subscription: the caller refunds `refund`. */
  | { outcome: "superseded"; refund: ProviderPayment | null }
  /** It did not match what it named (binding.ts): nothing granted; the caller settles the refund owed with `owedRefundId`. */
  | MismatchedOutcome;

/** The subscription the provider bills under `providerSubscriptionId`, with a context on its team, or null. */
async function providerSubscription(
  db: Db,
  provider: ProviderName,
  providerSubscriptionId: string,
  now: Date,
): Promise<{ ctx: DomainContext; row: SubscriptionRow } | null> {
  const found = (await unscoped(
    db,
    "a provider's subscription id names no team",
  )("subscriptions")
    .where({ provider, provider_subscription_id: providerSubscriptionId })
    .forUpdate()
    .first()) as SubscriptionRow | undefined;
  return found ? { ctx: createDomainContext(db, systemActor(found.team_id), now), row: found } : null;
}

async function completeCheckout(db: Db, provider: ProviderName, event: Extract<ProviderEvent, { kind: "checkout.completed" }>, now: Date) {
  // A reference that is no checkout id (a session or invoice someone made with their own) never reaches the uuid column.
  if (!UUID.test(event.reference)) return { outcome: "ignored" as const, reason: "no checkout of ours has this reference" };
  const checkout = (await unscoped(
    db,
    "a checkout reference names no team",
  )("payment_checkouts")
    .where({ id: event.reference, provider })
    .forUpdate()
    .first()) as CheckoutRow | undefined;
  if (!checkout) return { outcome: "ignored" as const, reason: "no checkout of ours has this reference" };
  const ctx = createDomainContext(db, systemActor(checkout.team_id), now);
  const member = (await membersTable.rows(ctx).where({ id: checkout.member_id }).first()) as MemberRow;
  // Held to what was sold before anything else: a report for another checkout's money completes nothing, whatever its state.
  const mismatch = await completionMismatch(db, provider, event, checkout, member, now);
  if (mismatch)
    return refuseMismatched(
      ctx,
      provider,
      event,
      {
        projectId: checkout.project_id,
        currency: checkout.currency,
        subject: { type: "member", id: member.id },
        what: `the checkout ${checkout.id}`,
      },
      mismatch,
    );
  await tagInbox(ctx, provider, event);
  // An expired checkout that was paid anyway (the provider's report came late) is still honoured: money taken starts it.
  if (checkout.status !== "open" && checkout.status !== "expired")
    return { outcome: "ignored" as const, reason: `the checkout is already ${checkout.status}` };
  const plan = (await plansTable.rows(ctx).where({ id: checkout.plan_id }).first()) as PlanRow;
  const superseded = async () => {
    await checkoutsTable.rows(ctx).where({ id: checkout.id }).update({ status: "superseded", completed_at: now });
    // Owed from this commit on: the refund made after it is retried until the provider confirms.
    if (event.payment) await recordOwedRefund(ctx, checkout, event.payment);
    return { outcome: "superseded" as const, refund: event.payment };
  };
  // A window's pass is bought only while its seat stands: money for an ended window or a lost seat is refunded.
  const window = checkout.pass_window_id ? await lockedWindow(ctx, checkout.pass_window_id) : null;
  if (window && (await seatLost(ctx, checkout, window, now))) return superseded();
  const terms = {
    provider,
    providerSubscriptionId: event.providerSubscriptionId,
    paymentMethodId: checkout.payment_method_id,
    trialEndsAt: event.trialEndsAt,
    endsAt: window ? new Date(window.ends_at) : event.periodEndsAt,
  };
  // A pass bought before its window opens grants nothing until then (the pass-windows job issues its grants).
  const pass = window ? { windowId: window.id, grantsDueAt: new Date(window.starts_at) > now ? new Date(window.starts_at) : null } : undefined;
  let subscription: SubscriptionRow;
  try {
    // A savepoint: a refusal leaves the rest of this transaction (the inbox row) intact.
    subscription = await db.transaction((trx) =>
      createSubscription(createDomainContext(trx, ctx.actor, now), { member, plan, source: provider, terms, ...(pass ? { pass } : {}) }),
    );
  } catch (err) {
    if (!(err instanceof ApiError && err.code === "SUBSCRIPTION_ALREADY_ACTIVE")) throw err;
    return superseded();
  }
  await checkoutsTable.rows(ctx).where({ id: checkout.id }).update({ status: "completed", completed_at: now, subscription_id: subscription.id });
  // The coupon the checkout was started with is redeemed now that it bought something (a superseded payment is refunded: not counted).
  if (checkout.coupon_id) await countCouponRedemption(ctx, checkout.coupon_id);
  const joined = await memberSubscribed(ctx, member, { subscriptionId: subscription.id, planId: plan.id, through: "a payment" });
  if (event.payment) {
    await recordPayment(ctx, {
      plan,
      memberId: member.id,
      subscriptionId: subscription.id,
      provider,
      paymentMethodId: checkout.payment_method_id,
      payment: event.payment,
    });
    await alertSale(ctx, { provider, plan, memberId: member.id, renewal: false, payment: event.payment });
  }
  if (!subscription.grants_due_at) await grantPlanResources(ctx, { subscription, member: joined, plan });
  return { outcome: "applied" as const, memberId: member.id, effects: commitEffectsOf(ctx) };
}

async function renew(db: Db, provider: ProviderName, event: Extract<ProviderEvent, { kind: "subscription.renewed" }>, now: Date) {
  const found = await providerSubscription(db, provider, event.providerSubscriptionId, now);
  if (!found) return { outcome: "ignored" as const, reason: "no subscription of ours is billed under this id" };
  const { ctx, row } = found;
  const started = (await checkoutsTable.rows(ctx).where({ subscription_id: row.id, status: "completed" }).first()) as CheckoutRow | undefined;
  const paidBefore = (await latestPayment(ctx, row.id)) !== undefined;
  const mismatch = await renewalMismatch(db, provider, event, row, started ?? null, paidBefore);
  if (mismatch)
    return refuseMismatched(
      ctx,
      provider,
      event,
      {
        projectId: row.project_id,
        currency: started?.currency ?? event.payment.currency,
        subject: { type: "subscription", id: row.id },
        what: `the subscription ${row.id}`,
      },
      mismatch,
    );
  await tagInbox(ctx, provider, event);
  const plan = (await plansTable.rows(ctx).where({ id: row.plan_id }).first()) as PlanRow;
  // The payment happened whatever the order of arrival; the period only ever moves forward.
  await recordPayment(ctx, {
    plan,
    memberId: row.member_id,
    subscriptionId: row.id,
    provider,
    paymentMethodId: row.payment_method_id ?? null,
    payment: event.payment,
  });
  await alertSale(ctx, { provider, plan, memberId: row.member_id, renewal: true, payment: event.payment });
  if (row.status === "expired") return { outcome: "applied" as const, memberId: row.member_id, effects: commitEffectsOf(ctx) };
  const later = row.ends_at === null || new Date(row.ends_at) < event.periodEndsAt;
  if (later || row.status === "past_due") {
    const changes = {
      ...(later ? { ends_at: event.periodEndsAt } : {}),
      ...(row.status === "past_due" || row.status === "trialing" ? { status: "active" as const } : {}),
      updated_at: now,
    };
    await subscriptionsTable.rows(ctx).where({ id: row.id }).update(changes);
    await recordSubscriptionChange(ctx, { ...row, ...changes }, { event: "renewed", description: "Subscription renewed: the next period is paid" });
  }
  return { outcome: "applied" as const, memberId: row.member_id, effects: commitEffectsOf(ctx) };
}

async function end(db: Db, provider: ProviderName, event: Extract<ProviderEvent, { kind: "subscription.ended" }>, now: Date) {
  const found = await providerSubscription(db, provider, event.providerSubscriptionId, now);
  if (!found) return { outcome: "ignored" as const, reason: "no subscription of ours is billed under this id" };
  await tagInbox(found.ctx, provider, event);
  if (found.row.status === "expired") return { outcome: "ignored" as const, reason: "the subscription has already ended" };
  await expireSubscription(found.ctx, found.row.id);
  return { outcome: "applied" as const, memberId: found.row.member_id, effects: commitEffectsOf(found.ctx) };
}

/** The subscription's newest payment, or undefined: the one that pays for its current period. */
export async function latestPayment(ctx: DomainContext, subscriptionId: string): Promise<TransactionRow | undefined> {
  return (await transactionsTable.rows(ctx).where({ subscription_id: subscriptionId, kind: "payment" }).orderBy("created_at", "desc").first()) as
    TransactionRow | undefined;
}

/**
 * A failed renewal (or a trial's first charge): past_due, access kept through the payment grace,
 * subscription.past_due; every failed attempt is a payment.failed event, a retry's failure without
 * extending the grace. When the provider gives up it ends the subscription (subscription.ended).
 */
async function fail(db: Db, provider: ProviderName, event: Extract<ProviderEvent, { kind: "payment.failed" }>, now: Date) {
  const found = await providerSubscription(db, provider, event.providerSubscriptionId, now);
  if (!found) return { outcome: "ignored" as const, reason: "no subscription of ours is billed under this id" };
  const { ctx, row } = found;
  await tagInbox(ctx, provider, event);
  if (row.status !== "active" && row.status !== "trialing" && row.status !== "past_due")
    return { outcome: "ignored" as const, reason: `the subscription is ${row.status}` };
  // Order is not trusted: a failure that happened before the newest payment we recorded was settled by it.
  const settled = await latestPayment(ctx, row.id);
  if (settled && new Date(settled.created_at) > event.occurredAt) return { outcome: "ignored" as const, reason: "a later payment settled it" };
  let current = row;
  if (row.status !== "past_due") {
    const changes = { status: "past_due" as const, ends_at: new Date(now.getTime() + PAYMENT_GRACE_MS), updated_at: now };
    await subscriptionsTable.rows(ctx).where({ id: row.id }).update(changes);
    current = { ...row, ...changes };
    await recordSubscriptionChange(ctx, current, {
      event: "past_due",
      description: `Renewal payment failed (${event.reason}); access kept through the grace period`,
    });
  }
  const plan = (await plansTable.rows(ctx).where({ id: row.plan_id }).first()) as PlanRow;
  const due =
    event.amountDueMinor !== null && event.currency !== null
      ? { amount: event.amountDueMinor, currency: event.currency }
      : { amount: Number(plan.amount_minor), currency: plan.currency };
  const failure = {
    subscription_id: row.id,
    member_id: row.member_id,
    plan_id: row.plan_id,
    amount: due,
    reason: event.reason,
    attempt_count: event.attemptCount,
    next_retry_at: event.nextRetryAt?.toISOString() ?? null,
    grace_ends_at: current.ends_at === null ? null : new Date(current.ends_at).toISOString(),
    failed_at: event.occurredAt.toISOString(),
  };
  await emitEvent(ctx, { type: "payment.failed", projectId: row.project_id, data: { failure } });
  await queuePaymentFailedNotice(ctx, current, event.nextRetryAt);
  return { outcome: "applied" as const, memberId: row.member_id, effects: commitEffectsOf(ctx) };
}

async function scheduleCancel(db: Db, provider: ProviderName, event: Extract<ProviderEvent, { kind: "subscription.cancel_scheduled" }>, now: Date) {
  const found = await providerSubscription(db, provider, event.providerSubscriptionId, now);
  if (!found) return { outcome: "ignored" as const, reason: "no subscription of ours is billed under this id" };
  await tagInbox(found.ctx, provider, event);
  const { ctx, row } = found;
  if (!event.cancelAtPeriodEnd) {
    const renewing = await withdrawCancellation(ctx, row);
    if (!renewing) return { outcome: "ignored" as const, reason: `no cancellation to withdraw: the subscription is ${row.status}` };
    return { outcome: "applied" as const, memberId: row.member_id, effects: commitEffectsOf(ctx) };
  }
  if (!LIVE_STATUSES.includes(row.status)) return { outcome: "ignored" as const, reason: `the subscription is already ${row.status}` };
  await cancelSubscriptionRow(ctx, row);
  return { outcome: "applied" as const, memberId: row.member_id, effects: commitEffectsOf(ctx) };
}

/** The payment a provider names, locked, or undefined when it is not ours. */
async function providerPaymentRow(db: Db, provider: ProviderName, providerPaymentId: string): Promise<TransactionRow | undefined> {
  return (await unscoped(
    db,
    "a provider's payment id names no team",
  )("transactions")
    .where({ provider, provider_reference: providerPaymentId, kind: "payment" })
    .forUpdate()
    .first()) as TransactionRow | undefined;
}

/** Ends the subscription now when `payment` is the one paying its current period: no access without a covering payment. */
async function endIfItCovered(ctx: DomainContext, payment: TransactionRow): Promise<void> {
  if (payment.subscription_id && (await latestPayment(ctx, payment.subscription_id))?.id === payment.id)
    await expireSubscription(ctx, payment.subscription_id);
}

/**
 * A refund: its own transaction row; once the payment is wholly refunded, the subscription it paid
 * for ends now (no access without a covering payment), unless another payment covers it since.
 */
async function refund(db: Db, provider: ProviderName, event: Extract<ProviderEvent, { kind: "payment.refunded" }>, now: Date) {
  const payment = await providerPaymentRow(db, provider, event.providerPaymentId);
  if (!payment) return { outcome: "ignored" as const, reason: "no payment of ours has this id" };
  const ctx = createDomainContext(db, systemActor(payment.team_id), now);
  await tagInbox(ctx, provider, event);
  const whole = await recordRefund(ctx, payment, { refundId: event.refundId, amountMinor: event.amountMinor, currency: event.currency });
  if (whole) await endIfItCovered(ctx, payment);
  return { outcome: "applied" as const, memberId: payment.member_id, effects: commitEffectsOf(ctx) };
}

/**
 * A dispute opened or decided: one row per dispute, whichever report arrives first. Opening one of
 * the payment that covers the period ends access now (the money is being taken back); a loss
 * reported first does the same; a win records its closing and nothing more (access comes back with
 * a new payment, not with the verdict).
 */
async function dispute(
  db: Db,
  provider: ProviderName,
  event: Extract<ProviderEvent, { kind: "payment.disputed" | "payment.dispute_closed" }>,
  now: Date,
) {
  const payment = await providerPaymentRow(db, provider, event.providerPaymentId);
  if (!payment) return { outcome: "ignored" as const, reason: "no payment of ours has this id" };
  const ctx = createDomainContext(db, systemActor(payment.team_id), now);
  await tagInbox(ctx, provider, event);
  const recorded = (await transactionsTable.rows(ctx).where({ kind: "dispute", provider, provider_reference: event.disputeId }).first()) as
    TransactionRow | undefined;
  const applied = () => ({ outcome: "applied" as const, memberId: payment.member_id, effects: commitEffectsOf(ctx) });
  if (event.kind === "payment.disputed") {
    if (recorded) return { outcome: "ignored" as const, reason: "the dispute is recorded already (its closing came first)" };
    await recordDispute(ctx, payment, { ...event, status: "open" });
    await endIfItCovered(ctx, payment);
    return applied();
  }
  if (recorded) {
    if (!(await closeDispute(ctx, recorded, event.outcome, event.reason)))
      return { outcome: "ignored" as const, reason: "the dispute is decided already" };
    return applied();
  }
  await recordDispute(ctx, payment, { ...event, status: event.outcome });
  if (event.outcome === "lost") await endIfItCovered(ctx, payment);
  return applied();
}

/** Applies `event` once, in one transaction with its inbox row. */
export function applyProviderEvent(db: Db, provider: ProviderName, event: ProviderEvent, now: Date): Promise<ApplyOutcome> {
  return db.transaction(async (trx): Promise<ApplyOutcome> => {
    if (!(await firstArrival(trx, provider, event, now))) return { outcome: "duplicate" };
    const result = await applyOnce(trx, provider, event, now);
    await recordInboxOutcome(
      trx,
      provider,
      event,
      result.outcome,
      result.outcome === "ignored" || result.outcome === "mismatched" ? result.reason : null,
    );
    return result;
  });
}

function applyOnce(trx: Db, provider: ProviderName, event: ProviderEvent, now: Date): Promise<ApplyOutcome> {
  switch (event.kind) {
    case "checkout.completed":
      return completeCheckout(trx, provider, event, now);
    case "subscription.renewed":
      return renew(trx, provider, event, now);
    case "subscription.ended":
      return end(trx, provider, event, now);
    case "payment.failed":
      return fail(trx, provider, event, now);
    case "subscription.cancel_scheduled":
      return scheduleCancel(trx, provider, event, now);
    case "payment.refunded":
      return refund(trx, provider, event, now);
    case "payment.disputed":
    case "payment.dispute_closed":
      return dispute(trx, provider, event, now);
    default:
      return Promise.resolve({ outcome: "unhandled" });
  }
}
