// Stripe's webhooks, verified with the official client's constructEvent and normalized into
// ProviderEvents. Where the event's object lacks what the domain needs (a subscription's period,
// an invoice's payment, a charge's fee), the parser reads it from Stripe on the event's account.
import Stripe from "stripe";
import type { ProviderEvent, ProviderPayment } from "../provider.ts";
import { fromUnix, idOf, invoicePaymentIntent, invoiceSubscription, onAccount, paymentOfIntent, periodEnd, withPayments } from "./payments.ts";

/** A webhook whose Stripe-Signature does not verify under the endpoint's secret (forged, altered or too old). */
export class StripeWebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StripeWebhookSignatureError";
  }
}

/**
 * The event a webhook carries, verified with the official client's constructEvent; throws
 * StripeWebhookSignatureError for anything it refuses. constructEvent does no I/O, so whatever it
 * throws is about the request: an empty or non-ASCII v1 value ("t=1,v1=") makes the library's
 * secureCompare throw a plain Error or RangeError rather than its verification error.
 */
export function constructStripeEvent(client: Stripe, rawBody: Buffer | string, signatureHeader: string, secret: string): Stripe.Event {
  try {
    return client.webhooks.constructEvent(rawBody, signatureHeader, secret);
  } catch (error) {
    throw new StripeWebhookSignatureError(error instanceof Error ? error.message : String(error));
  }
}

type Base = { eventId: string; occurredAt: Date; source: string | null };
type Account = string | undefined;

async function checkoutCompleted(client: Stripe, account: Account, base: Base, session: Stripe.Checkout.Session): Promise<ProviderEvent[]> {
  const reference = session.client_reference_id ?? session.metadata?.reference;
  // A delayed payment method (a bank debit) completes the session unpaid: its async_payment_succeeded completes the checkout.
  if (!reference || session.payment_status === "unpaid") return [];
  const subscriptionId = idOf(session.subscription);
  let payment: ProviderPayment | null = null;
  let trialEndsAt: Date | null = null;
  let periodEndsAt: Date | null = null;
  if (subscriptionId) {
    const subscription = await client.subscriptions.retrieve(subscriptionId, {}, onAccount(account));
    trialEndsAt = subscription.trial_end ? fromUnix(subscription.trial_end) : null;
    periodEndsAt = periodEnd(subscription);
    const invoice = session.invoice ?? subscription.latest_invoice;
    const intent = invoice ? invoicePaymentIntent(await withPayments(client, account, invoice)) : null;
    payment = intent ? await paymentOfIntent(client, account, intent) : null;
  } else if (session.payment_intent) {
    payment = await paymentOfIntent(client, account, idOf(session.payment_intent)!);
  }
  return [
    {
      ...base,
      kind: "checkout.completed",
      reference,
      providerCheckoutId: session.id,
      providerSubscriptionId: subscriptionId,
      providerCustomerId: idOf(session.customer),
      payment,
      trialEndsAt,
      periodEndsAt,
    },
  ];
}

async function invoicePaid(client: Stripe, account: Account, base: Base, event: Stripe.Invoice): Promise<ProviderEvent[]> {
  const subscriptionId = invoiceSubscription(event);
  // The first invoice is reported by checkout.session.completed; only later periods are renewals.
  if (!subscriptionId || event.billing_reason !== "subscription_cycle") return [];
  const intent = invoicePaymentIntent(await withPayments(client, account, event));
  // A renewal that cost nothing (a 100% coupon) has no PaymentIntent: it is reported as a payment of 0 under the invoice's id.
  const payment = (intent ? await paymentOfIntent(client, account, intent) : null) ?? {
    providerPaymentId: event.id,
    amountMinor: event.amount_paid,
    currency: event.currency.toUpperCase(),
    feeMinor: null,
    paidAt: fromUnix(event.status_transitions.paid_at ?? event.created),
  };
  const end = event.lines.data[0]?.period.end ?? event.period_end;
  return [{ ...base, kind: "subscription.renewed", providerSubscriptionId: subscriptionId, payment, periodEndsAt: fromUnix(end) }];
}

async function paymentFailed(client: Stripe, account: Account, base: Base, invoice: Stripe.Invoice): Promise<ProviderEvent[]> {
  const subscriptionId = invoiceSubscription(invoice);
  if (!subscriptionId) return [];
  const intent = invoicePaymentIntent(await withPayments(client, account, invoice));
  const error = intent ? (await client.paymentIntents.retrieve(intent, {}, onAccount(account))).last_payment_error : null;
  return [
    {
      ...base,
      kind: "payment.failed",
      providerSubscriptionId: subscriptionId,
      reason: error?.decline_code ?? error?.code ?? "payment_failed",
      amountDueMinor: invoice.amount_due,
      currency: invoice.currency.toUpperCase(),
      attemptCount: invoice.attempt_count,
      nextRetryAt: invoice.next_payment_attempt ? fromUnix(invoice.next_payment_attempt) : null,
    },
  ];
}

async function chargeRefunded(client: Stripe, account: Account, base: Base, charge: Stripe.Charge): Promise<ProviderEvent[]> {
  // The charge no longer lists its refunds (API 2022-11+): the newest refund of the charge is the one this event reports.
  const refund = (await client.refunds.list({ charge: charge.id, limit: 1 }, onAccount(account))).data[0];
  if (!refund) return [];
  return [
    {
      ...base,
      kind: "payment.refunded",
      providerPaymentId: idOf(charge.payment_intent) ?? charge.id,
      refundId: refund.id,
      amountMinor: refund.amount,
      currency: refund.currency.toUpperCase(),
    },
  ];
}

async function subscriptionUpdated(
  client: Stripe,
  account: Account,
  base: Base,
  event: Stripe.Event,
  object: Stripe.Subscription,
): Promise<ProviderEvent[]> {
  const previous = (event.data as { previous_attributes?: Record<string, unknown> }).previous_attributes ?? {};
  if (!("cancel_at_period_end" in previous)) return [];
  // Order is not trusted: a cancellation and its withdrawal may arrive either way round, so each
  // reports the subscription as Stripe has it now, and the later arrival cannot undo the newer state.
  const subscription = await client.subscriptions.retrieve(object.id, {}, onAccount(account));
  if (!["trialing", "active", "past_due"].includes(subscription.status)) return [];
  return [
    {
      ...base,
      kind: "subscription.cancel_scheduled",
      providerSubscriptionId: subscription.id,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      periodEndsAt: periodEnd(subscription),
    },
  ];
}

/** A dispute opened (charge.dispute.created) or decided (charge.dispute.closed). Stripe's reasons (fraudulent…) are short codes, safe to pass on. */
function disputeEvent(base: Base, dispute: Stripe.Dispute, closed: boolean): ProviderEvent[] {
  const common = {
    ...base,
    providerPaymentId: idOf(dispute.payment_intent) ?? idOf(dispute.charge)!,
    disputeId: dispute.id,
    amountMinor: dispute.amount,
    currency: dispute.currency.toUpperCase(),
    reason: dispute.reason ?? null,
  };
  if (!closed) return [{ ...common, kind: "payment.disputed" }];
  // An inquiry closed without a chargeback (warning_closed) leaves the money where it was: a win for the creator.
  if (dispute.status === "won" || dispute.status === "warning_closed") return [{ ...common, kind: "payment.dispute_closed", outcome: "won" }];
  if (dispute.status === "lost") return [{ ...common, kind: "payment.dispute_closed", outcome: "lost" }];
  return [];
}

/**
 * Verifies a webhook and normalizes it: the events the domain acts on, or [] for any other type.
 * Throws StripeWebhookSignatureError when the signature does not verify.
 */
export async function parseStripeWebhook(
  rawBody: Buffer | string,
  signatureHeader: string,
  secret: string,
  client: Stripe,
): Promise<ProviderEvent[]> {
  return normalizeStripeEvent(client, constructStripeEvent(client, rawBody, signatureHeader, secret));
}

/** A completed Checkout Session read back from Stripe (reconciliation), normalized as its completion event would be, under `eventId`. */
export function normalizeCompletedSession(client: Stripe, account: string, session: Stripe.Checkout.Session, eventId: string, occurredAt: Date) {
  return checkoutCompleted(client, account, { eventId, occurredAt, source: account }, session);
}

/**
 * Normalizes an event already trusted: one a verified webhook carried, or one read from Stripe's API
 * (GET /v1/events, reconciliation), which needs no signature.
 */
export async function normalizeStripeEvent(client: Stripe, event: Stripe.Event): Promise<ProviderEvent[]> {
  const account = event.account;
  const base: Base = { eventId: event.id, occurredAt: fromUnix(event.created), source: account ?? null };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return checkoutCompleted(client, account, base, event.data.object);
    case "invoice.paid":
      return invoicePaid(client, account, base, event.data.object);
    case "invoice.payment_failed":
      return paymentFailed(client, account, base, event.data.object);
    case "customer.subscription.updated":
      return subscriptionUpdated(client, account, base, event, event.data.object);
    case "customer.subscription.deleted": {
      const subscription = event.data.object;
      return [
        { ...base, kind: "subscription.ended", providerSubscriptionId: subscription.id, endedAt: fromUnix(subscription.ended_at ?? event.created) },
      ];
    }
    case "charge.refunded":
      return chargeRefunded(client, account, base, event.data.object);
    case "charge.dispute.created":
      return disputeEvent(base, event.data.object, false);
    case "charge.dispute.closed":
      return disputeEvent(base, event.data.object, true);
    default:
      return [];
  }
}
