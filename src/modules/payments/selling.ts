// Which of a project's enabled payment methods can sell a plan: the method takes the plan's currency
// and billing cycle, and its provider can sell that price (Stripe: ISO currencies, cycles up to three
// years; Stars: XTR, every 30 days or for life). One rule for every entry that sells a plan (the
// portal's plan cards and checkout, the bot's plan deep link).
import type { PaymentMethod } from "../payment-methods/payment-methods.ts";
import type { PlanRow } from "../plans/tables.ts";
import type { PlanPrice, SaleRefusal } from "./provider.ts";
import { starsRefusal } from "./stars/provider.ts";
import { stripeRefusal } from "./stripe/prices.ts";

/** A plan's price as a payment provider sells it. */
export function planPrice(plan: PlanRow): PlanPrice {
  return {
    amountMinor: Number(plan.amount_minor),
    currency: plan.currency,
    cycle: plan.billing_cycle,
    cycleCount: plan.billing_cycle_count,
    trialDays: plan.trial_days,
  };
}

/** What each provider that takes payments refuses to sell; the other providers are records only. */
const REFUSALS: Partial<Record<PaymentMethod["provider"], (price: PlanPrice) => SaleRefusal | null>> = {
  stripe: stripeRefusal,
  telegram_stars: starsRefusal,
};

/** The methods among `methods` (a project's enabled ones) that can sell `plan`, in their order. */
export function methodsSelling<M extends Pick<PaymentMethod, "provider" | "currencies" | "billing_cycles">>(methods: M[], plan: PlanRow): M[] {
  const price = planPrice(plan);
  return methods.filter((m) => {
    const refusal = REFUSALS[m.provider];
    return refusal !== undefined && m.currencies.includes(plan.currency) && m.billing_cycles.includes(plan.billing_cycle) && refusal(price) === null;
  });
}
