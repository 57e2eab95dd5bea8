// Money as Stripe reports it, read back into ProviderPayment: a PaymentIntent's amount received,
// its currency in upper case, and the fee from the charge's balance transaction when it has one.
import type Stripe from "stripe";
import type { ProviderPayment } from "../provider.ts";

/** The request options that act on a connected account, or on the platform when there is none. */
export const onAccount = (account: string | null | undefined): Stripe.RequestOptions => (account ? { stripeAccount: account } : {});

export const fromUnix = (seconds: number) => new Date(seconds * 1000);

export const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));

/** The fee in the payment's own currency; null when Stripe has not settled it or settles in another currency. */
function feeOf(charge: Stripe.Charge | null, currency: string): number | null {
  const bt = charge?.balance_transaction;
  if (!bt || typeof bt === "string") return null;
  return bt.currency === currency ? bt.fee : null;
}

/** The payment a PaymentIntent made, or null when it has not succeeded. */
export async function paymentOfIntent(client: Stripe, account: string | null | undefined, paymentIntent: string): Promise<ProviderPayment | null> {
  const intent = await client.paymentIntents.retrieve(paymentIntent, { expand: ["latest_charge.balance_transaction"] }, onAccount(account));
  if (intent.status !== "succeeded") return null;
  const charge = typeof intent.latest_charge === "object" ? intent.latest_charge : null;
  return {
    providerPaymentId: intent.id,
    amountMinor: intent.amount_received,
    currency: intent.currency.toUpperCase(),
    feeMinor: feeOf(charge, intent.currency),
    paidAt: fromUnix(charge?.created ?? intent.created),
  };
}

/** The PaymentIntent that paid an invoice (API 2025+: under invoice.payments, which must be expanded). */
export function invoicePaymentIntent(invoice: Stripe.Invoice): string | null {
  const paid = invoice.payments?.data.find((p) => p.status === "paid") ?? invoice.payments?.data[0];
  return paid?.payment.type === "payment_intent" ? idOf(paid.payment.payment_intent) : null;
}

/** An invoice with its payments, read again when the webhook's copy lacks them. */
export async function withPayments(client: Stripe, account: string | null | undefined, invoice: Stripe.Invoice | string): Promise<Stripe.Invoice> {
  if (typeof invoice !== "string" && invoice.payments?.data) return invoice;
  return client.invoices.retrieve(idOf(invoice)!, { expand: ["payments"] }, onAccount(account));
}

/** The subscription an invoice bills (API 2025+: parent.subscription_details). */
export function invoiceSubscription(invoice: Stripe.Invoice): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription);
}

/** The end of the period a subscription is in (API 2025+: on its items). */
export function periodEnd(subscription: Stripe.Subscription): Date | null {
  const end = subscription.items.data[0]?.current_period_end;
  return end ? fromUnix(end) : null;
}
