// The Stripe PaymentProvider: every call acts on the creator's connected account (Stripe-Account),
// sells a plan through a hosted Checkout Session, and cancels, refunds and reads subscriptions there.
import Stripe from "stripe";
import type { CheckoutRequest, CheckoutStart, ConnectedMethod, PaymentProvider, ProviderSubscriptionState } from "../provider.ts";
import { fromUnix, periodEnd } from "./payments.ts";
import { priceFor, stripeRefusal } from "./prices.ts";

/** A coupon code the member typed that is neither an active promotion code nor a valid coupon on the account. */
export class UnknownCouponError extends Error {
  constructor(readonly couponCode: string) {
    super(`No active promotion code or coupon ${JSON.stringify(couponCode)} on the Stripe account.`);
    this.name = "UnknownCouponError";
  }
}

/** The discount for a typed code: an active promotion code by its code, else a valid coupon by its id. */
async function discountFor(client: Stripe, account: string, code: string): Promise<Stripe.Checkout.SessionCreateParams.Discount> {
  const promotion = (await client.promotionCodes.list({ code, active: true, limit: 1 }, { stripeAccount: account })).data[0];
  if (promotion) return { promotion_code: promotion.id };
  try {
    const coupon = await client.coupons.retrieve(code, {}, { stripeAccount: account });
    if (coupon.valid) return { coupon: coupon.id };
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing")) throw error;
  }
  throw new UnknownCouponError(code);
}

async function startCheckout(client: Stripe, method: ConnectedMethod, request: CheckoutRequest): Promise<CheckoutStart> {
  const account = method.account;
  const price = await priceFor(client, account, request.planName, request.price);
  const discount = request.couponCode ? await discountFor(client, account, request.couponCode) : null;
  const recurring = request.price.cycle !== "lifetime";
  const metadata = { reference: request.reference };
  const session = await client.checkout.sessions.create(
    {
      mode: recurring ? "subscription" : "payment",
      line_items: [{ price: price.id, quantity: 1 }],
      client_reference_id: request.reference,
      metadata,
      ...(request.successUrl ? { success_url: request.successUrl } : {}),
      ...(request.cancelUrl ? { cancel_url: request.cancelUrl } : {}),
      // Stripe takes either a discount fixed now or the code field on its page, not both.
      ...(discount ? { discounts: [discount] } : { allow_promotion_codes: true }),
      ...(recurring
        ? { subscription_data: { metadata, ...(request.price.trialDays > 0 ? { trial_period_days: request.price.trialDays } : {}) } }
        : { payment_intent_data: { metadata } }),
    },
    // One session per reference: a retried start answers the same session instead of a second one.
    { stripeAccount: account, idempotencyKey: `checkout_${request.reference}` },
  );
  return { url: session.url, providerCheckoutId: session.id, expiresAt: fromUnix(session.expires_at) };
}

/** Stripe's statuses in ours; a scheduled cancellation keeps its status (access until the period end) with the flag. */
const STATUS: Record<string, ProviderSubscriptionState["status"]> = {
  trialing: "trialing",
  active: "active",
  past_due: "past_due",
  // Money is owed on these too (a first payment not made, a trial ended without a card): the grace period applies.
  incomplete: "past_due",
  paused: "past_due",
  canceled: "ended",
  unpaid: "ended",
  incomplete_expired: "ended",
};

function stateOf(subscription: Stripe.Subscription): ProviderSubscriptionState {
  return {
    providerSubscriptionId: subscription.id,
    status: STATUS[subscription.status] ?? "past_due",
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    periodEndsAt: periodEnd(subscription),
  };
}

export function stripeProvider(client: Stripe): PaymentProvider {
  return {
    name: "stripe",
    refusal: stripeRefusal,
    startCheckout: (method, request) => startCheckout(client, method, request),
    async cancelAtPeriodEnd(method, providerSubscriptionId) {
      await client.subscriptions.update(providerSubscriptionId, { cancel_at_period_end: true }, { stripeAccount: method.account });
    },
    async refund(method, providerPaymentId, amountMinor) {
      const target = providerPaymentId.startsWith("ch_") ? { charge: providerPaymentId } : { payment_intent: providerPaymentId };
      await client.refunds.create({ ...target, ...(amountMinor !== undefined ? { amount: amountMinor } : {}) }, { stripeAccount: method.account });
    },
    async readSubscription(method, providerSubscriptionId) {
      return stateOf(await client.subscriptions.retrieve(providerSubscriptionId, {}, { stripeAccount: method.account }));
    },
  };
}
