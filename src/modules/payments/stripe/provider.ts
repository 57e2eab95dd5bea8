// The Stripe PaymentProvider: every call acts on the creator's connected account (Stripe-Account),
// sells a plan through a hosted Checkout Session, and cancels, refunds and reads subscriptions there.
import Stripe from "stripe";
import type { CouponDiscount } from "../../coupons/checkout.ts";
import type { CheckoutRequest, CheckoutStart, ConnectedMethod, PaymentProvider, ProviderSubscriptionState } from "../provider.ts";
import { compatibleServerOrigin } from "./client.ts";
import { fromUnix, periodEnd } from "./payments.ts";
import { priceFor, stripeRefusal } from "./prices.ts";

/** Where Stripe's hosted Checkout pages are served (a portal form that redirects there must allow it: CSP form-action). */
export const checkoutOrigin = (client: Stripe) => compatibleServerOrigin(client) ?? "https://checkout.stripe.com";

/** The Stripe coupon that mirrors ours on the connected account: one per coupon of ours, named after its id. */
export const stripeCouponId = (couponId: string) => `subbridge_${couponId}`;

/**
 * Our coupon's discount as a Stripe coupon on `account`, created the first time it is used. Our
 * code and discount never change, so the copy never goes stale; our rules (plans, expiry, limit)
 * were checked before, so the copy carries none of them. `once`: the discount is the first
 * payment's (a trial's first charge), and renewals are at the plan's price.
 */
async function stripeCoupon(client: Stripe, account: string, discount: CouponDiscount): Promise<string> {
  const id = stripeCouponId(discount.couponId);
  try {
    return (await client.coupons.retrieve(id, {}, { stripeAccount: account })).id;
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing")) throw error;
  }
  const off =
    discount.percentOff !== null
      ? { percent_off: discount.percentOff }
      : { amount_off: discount.amountOffMinor!, currency: discount.currency!.toLowerCase() };
  try {
    return (await client.coupons.create({ id, duration: "once", ...off }, { stripeAccount: account, idempotencyKey: `coupon_${id}` })).id;
  } catch (error) {
    // Two first checkouts with the coupon at once: the other made it.
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_already_exists") return id;
    throw error;
  }
}

async function startCheckout(client: Stripe, method: ConnectedMethod, request: CheckoutRequest): Promise<CheckoutStart> {
  const account = method.account;
  const price = await priceFor(client, account, request.planName, request.price);
  const coupon = request.discount ? await stripeCoupon(client, account, request.discount) : null;
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
      // Only our coupons discount (no code field on Stripe's page): a Stripe promotion code would bypass their rules and count.
      ...(coupon ? { discounts: [{ coupon }] } : {}),
      ...(request.expiresAt ? { expires_at: Math.floor(request.expiresAt.getTime() / 1000) } : {}),
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
    async expireCheckout(method, providerCheckoutId) {
      try {
        await client.checkout.sessions.expire(providerCheckoutId, {}, { stripeAccount: method.account });
      } catch (error) {
        // Completed or expired already: it can no longer be paid either way.
        if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
      }
    },
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
