// The paid tiers' list prices: one place read by the site's pricing page, the billing page and the
// simulated start (which creates these prices on the Stripe twin). On real Stripe the operator's
// BILLING_STARTER_PRICE / BILLING_GROWTH_PRICE are charged; they are meant to carry these amounts.
import type { Tier } from "../teams/tier.ts";

export type PaidTier = Exclude<Tier, "free">;

export const PAID_TIERS: readonly PaidTier[] = ["starter", "growth"];

export interface TierPrice {
  /** Minor units of `currency`. */
  amountMinor: number;
  /** ISO 4217, upper case. */
  currency: string;
  interval: "month";
}

export const TIER_PRICES: Readonly<Record<PaidTier, TierPrice>> = {
  starter: { amountMinor: 1900, currency: "USD", interval: "month" },
  growth: { amountMinor: 4900, currency: "USD", interval: "month" },
};

export const TIER_NAMES: Readonly<Record<Tier, string>> = { free: "Free", starter: "Starter", growth: "Growth" };

/** "$19.00 a month". */
export function tierPriceText(price: TierPrice): string {
  const amount = new Intl.NumberFormat("en-US", { style: "currency", currency: price.currency }).format(price.amountMinor / 100);
  return `${amount} a ${price.interval}`;
}

export const isPaidTier = (value: unknown): value is PaidTier => value === "starter" || value === "growth";
