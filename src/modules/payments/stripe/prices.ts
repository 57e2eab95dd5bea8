// What Stripe can sell, and the Stripe price a plan's price is sold at on a connected account:
// found by a lookup key derived from the plan and its price, created once when missing.
import { createHash } from "node:crypto";
import type Stripe from "stripe";
import type { PlanPrice, SaleRefusal } from "../provider.ts";

type Interval = "day" | "week" | "month" | "year";

/** Stripe's longest billing interval, three years, in each unit (Prices API: interval_count). */
export const MAX_INTERVAL_COUNT: Record<Interval, number> = { day: 3 * 365, week: 156, month: 36, year: 3 };

export function stripeRefusal(price: PlanPrice): SaleRefusal | null {
  if (price.currency.toUpperCase() === "XTR") return { code: "PLAN_CURRENCY_MISMATCH", message: "Stripe does not sell in Telegram Stars (XTR)." };
  if (!/^[A-Z]{3}$/.test(price.currency))
    return { code: "PLAN_CURRENCY_MISMATCH", message: `Stripe does not sell in ${price.currency}: an ISO 4217 code is needed.` };
  if (price.cycle === "lifetime") return null;
  const max = MAX_INTERVAL_COUNT[price.cycle];
  if (!Number.isInteger(price.cycleCount) || price.cycleCount < 1 || price.cycleCount > max)
    return {
      code: "PLAN_PROVIDER_UNSUPPORTED",
      message: `Stripe bills every 1 to ${max} ${price.cycle}s (at most three years); this plan bills every ${price.cycleCount}.`,
    };
  return null;
}

/** The lookup key of a plan's price: the same plan name and price always map to the same Stripe price. */
export function lookupKey(planName: string, price: PlanPrice): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([planName, price.amountMinor, price.currency.toUpperCase(), price.cycle, price.cycleCount]))
    .digest("hex")
    .slice(0, 32);
  return `subbridge_${digest}`;
}

/**
 * The connected account's active price for this plan, created (with its product) when there is none.
 * The create's idempotency key is the lookup key, so two checkouts racing for a new plan make one price.
 */
export async function priceFor(client: Stripe, account: string, planName: string, price: PlanPrice): Promise<Stripe.Price> {
  const key = lookupKey(planName, price);
  const existing = await client.prices.list({ lookup_keys: [key], active: true, limit: 1 }, { stripeAccount: account });
  if (existing.data[0]) return existing.data[0];
  return client.prices.create(
    {
      currency: price.currency.toLowerCase(),
      unit_amount: price.amountMinor,
      lookup_key: key,
      product_data: { name: planName },
      ...(price.cycle === "lifetime" ? {} : { recurring: { interval: price.cycle, interval_count: price.cycleCount } }),
      metadata: { subbridge_lookup_key: key },
    },
    { stripeAccount: account, idempotencyKey: `price_${key}` },
  );
}
