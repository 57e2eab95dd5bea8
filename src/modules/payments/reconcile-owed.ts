// Refunds owed to members (issue 33): a payment made while the member's subscription was already
// live (the checkout "superseded") is owed back. It is written here in the transaction that records
// the superseded checkout, so a crash before the provider is asked cannot lose it; the refund itself
// is made after the commit and retried by payments.reconcile until the provider confirms
// (reconcile-refunds.ts).
import type { DomainContext } from "../../db/tenant.ts";
import type { ProviderName, ProviderPayment } from "./provider.ts";
import { owedRefundsTable, type CheckoutRow } from "./tables.ts";

export interface OwedRefundRow {
  id: string;
  team_id: string;
  project_id: string;
  checkout_id: string;
  payment_method_id: string | null;
  provider: ProviderName;
  provider_payment_id: string;
  amount_minor: number | string;
  currency: string;
  status: "owed" | "refunded";
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  refunded_at: Date | null;
}

/** Records that `payment`, which paid the superseded `checkout`, is owed back (once per checkout). */
export async function recordOwedRefund(ctx: DomainContext, checkout: CheckoutRow, payment: ProviderPayment): Promise<void> {
  await owedRefundsTable
    .insert(ctx, {
      id: crypto.randomUUID(),
      team_id: checkout.team_id,
      project_id: checkout.project_id,
      checkout_id: checkout.id,
      payment_method_id: checkout.payment_method_id,
      provider: checkout.provider,
      provider_payment_id: payment.providerPaymentId,
      amount_minor: payment.amountMinor,
      currency: payment.currency,
      status: "owed",
      attempts: 0,
      next_attempt_at: ctx.now,
      created_at: ctx.now,
    })
    .onConflict("checkout_id")
    .ignore();
}
