// Where the creators' own tier billing meets Stripe: the platform account's webhook endpoint
// ({base_url}/billing/stripe/events, not a Connect endpoint: these are the platform's own
// subscriptions) and the tiers' prices. On a simulated start both are made on the Stripe twin, the
// prices found by their lookup keys first so a restart reuses them.
import type Stripe from "stripe";
import { PAID_TIERS, TIER_NAMES, TIER_PRICES, type PaidTier } from "./prices.ts";

export const BILLING_EVENTS_PATH = "/billing/stripe/events";

export const billingEventsUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, "")}${BILLING_EVENTS_PATH}`;

/** The events tier billing acts on; the endpoint asks for these only. */
export const BILLING_STRIPE_EVENTS = [
  "checkout.session.completed",
  "invoice.paid",
  "invoice.payment_failed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
] as const;

export interface StripeBilling {
  /** The platform endpoint's signing secret (whsec_). */
  webhookSecret: string;
  /** The Stripe price id of each paid tier. */
  prices: Readonly<Record<PaidTier, string>>;
}

export const tierLookupKey = (tier: PaidTier) => `subbridge_tier_${tier}`;

/** The tiers' prices on the twin (made once, found by lookup key after) and the platform endpoint. */
export async function setUpSimulatedBilling(client: Stripe, baseUrl: string): Promise<StripeBilling> {
  const found = await client.prices.list({ lookup_keys: PAID_TIERS.map(tierLookupKey), limit: 10 });
  const prices = {} as Record<PaidTier, string>;
  for (const tier of PAID_TIERS) {
    const existing = found.data.find((p) => p.lookup_key === tierLookupKey(tier));
    if (existing) {
      prices[tier] = existing.id;
      continue;
    }
    const list = TIER_PRICES[tier];
    const product = await client.products.create({ name: `SubBridge ${TIER_NAMES[tier]}` });
    const price = await client.prices.create({
      product: product.id,
      unit_amount: list.amountMinor,
      currency: list.currency.toLowerCase(),
      recurring: { interval: list.interval },
      lookup_key: tierLookupKey(tier),
      nickname: `SubBridge ${TIER_NAMES[tier]}`,
    });
    prices[tier] = price.id;
  }
  const endpoint = await client.webhookEndpoints.create({ url: billingEventsUrl(baseUrl), enabled_events: [...BILLING_STRIPE_EVENTS] });
  return { webhookSecret: endpoint.secret!, prices };
}
