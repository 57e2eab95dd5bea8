// Refunds owed (issues 33 and 43): a payment made while the member's subscription was already live
// (the checkout "superseded"), or taken by a report that did not match what it named (binding.ts:
// "mismatched"), is owed back. It is written here in the transaction that records the outcome, so a
// crash before the provider is asked cannot lose it; the refund itself is made after the commit and
// retried by payments.reconcile until the provider confirms (reconcile-refunds.ts). A mismatched
// report is owed back from the account that received it, which may be another team's, and its
// provider subscription (if it started one) is cancelled so it charges nothing more.
import { createDomainContext, systemActor, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { UUID } from "../../uuid.ts";
import type { PaymentMethodRow } from "../payment-methods/tables.ts";
import type { ProviderName, ProviderPayment } from "./provider.ts";
import { owedRefundsTable, type CheckoutRow } from "./tables.ts";

export interface OwedRefundRow {
  id: string;
  team_id: string;
  project_id: string;
  /** The superseded checkout; null for a mismatched report (named by event_id). */
  checkout_id: string | null;
  payment_method_id: string | null;
  provider: ProviderName;
  /** Null when nothing was charged (a mismatched trial): only the subscription is cancelled. */
  provider_payment_id: string | null;
  provider_subscription_id: string | null;
  amount_minor: number | string;
  currency: string;
  reason: "superseded" | "mismatched";
  event_id: string | null;
  status: "owed" | "refunded";
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  refunded_at: Date | null;
}

/** Records that `payment`, which paid the superseded `checkout`, is owed back (once per payment). */
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
    .onConflict(["provider", "provider_payment_id"])
    .ignore();
}

/** The payment method of ours that received what a report from `source` took (any team's), or undefined when none did. */
async function receivingMethod(db: Db, provider: ProviderName, source: string | null): Promise<PaymentMethodRow | undefined> {
  if (source === null) return undefined;
  const across = unscoped(db, "a report's money reached an account of ours, whichever team's");
  if (provider === "stripe")
    return (await across("payment_methods as m")
      .join("payment_connections as c", "c.payment_method_id", "m.id")
      .where({ "c.provider": "stripe", "c.account": source })
      .first("m.*")) as PaymentMethodRow | undefined;
  if (!UUID.test(source)) return undefined;
  return (await across("payment_methods as m")
    .join("connector_installations as i", "i.project_id", "m.project_id")
    .where({ "i.id": source, "m.provider": "telegram_stars" })
    .first("m.*")) as PaymentMethodRow | undefined;
}

/**
 * Records what a mismatched report (`eventId`) took as owed back from the account of ours that
 * received it; null when nothing of ours received anything (or nothing was taken).
 */
export async function recordMismatchedRefund(
  db: Db,
  now: Date,
  report: {
    provider: ProviderName;
    eventId: string;
    source: string | null;
    payment: ProviderPayment | null;
    providerSubscriptionId: string | null;
    currency: string;
  },
): Promise<string | null> {
  if (!report.payment && !report.providerSubscriptionId) return null;
  const method = await receivingMethod(db, report.provider, report.source);
  if (!method) return null;
  const ctx = createDomainContext(db, systemActor(method.team_id), now);
  const id = crypto.randomUUID();
  const written = await owedRefundsTable
    .insert(ctx, {
      id,
      project_id: method.project_id,
      checkout_id: null,
      payment_method_id: method.id,
      provider: report.provider,
      provider_payment_id: report.payment?.providerPaymentId ?? null,
      provider_subscription_id: report.providerSubscriptionId,
      amount_minor: report.payment?.amountMinor ?? 0,
      currency: report.payment?.currency ?? report.currency,
      reason: "mismatched",
      event_id: report.eventId,
      status: "owed",
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .onConflict(["provider", "provider_payment_id"])
    .ignore()
    .returning("id");
  return (written as unknown[]).length ? id : null;
}
