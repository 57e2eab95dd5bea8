// A provider's report of a paid checkout, as the Stripe parser makes it, for tests that apply reports
// directly: honest for a checkout of the 5.00 USD monthly seeded plan sold through `source`, each
// field replaceable (a forgery, a trial, another period).
import { randomUUID } from "node:crypto";
import type { ProviderEvent } from "../../../src/modules/payments/provider.ts";

export type Completion = Extract<ProviderEvent, { kind: "checkout.completed" }>;

const DAY = 24 * 3600_000;

export function completionReport(
  checkout: { id: string; provider_checkout_id: string | null },
  source: string,
  change: Partial<Completion> = {},
): Completion {
  return {
    kind: "checkout.completed",
    eventId: `evt_${randomUUID()}`,
    occurredAt: new Date(),
    source,
    reference: checkout.id,
    providerCheckoutId: checkout.provider_checkout_id,
    providerSubscriptionId: `sub_${randomUUID()}`,
    providerCustomerId: "cus_1",
    payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date() },
    trialEndsAt: null,
    periodEndsAt: new Date(Date.now() + 30 * DAY),
    ...change,
  };
}
