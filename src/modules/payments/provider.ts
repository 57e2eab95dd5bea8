// The one interface every payment provider implements (issue 33; docs/decisions.md "Payments").
// A provider sells a plan to a member (a checkout), cancels and refunds on request, reads its own
// current state for reconciliation, and reports what happened as normalized ProviderEvents: the
// domain (subscriptions, transactions, grants, events) never sees a provider's objects. How a
// provider's reports arrive is its own (Stripe: signed HTTP webhooks; Stars: the bot's updates),
// so parsing them is not part of this interface; each provider exports its own parser.
import type { CouponDiscount } from "../coupons/checkout.ts";
import type { BillingCycle } from "../plans/tables.ts";

export type ProviderName = "stripe" | "telegram_stars";

/** A plan's price as a provider sells it. Amounts are integers in minor units (Stars: whole stars in XTR). */
export interface PlanPrice {
  amountMinor: number;
  /** ISO 4217 code, upper case (XTR for Telegram Stars). */
  currency: string;
  cycle: BillingCycle;
  /** Units per charge ("every 3 months"); 1 for lifetime. */
  cycleCount: number;
  trialDays: number;
}

/** What a provider cannot sell, in the description's codes. */
export type SaleRefusal = { code: "PLAN_CURRENCY_MISMATCH" | "PLAN_PROVIDER_UNSUPPORTED"; message: string };

/** The provider's side of a project's payment method: its account and settings, unsealed for the call only. */
export interface ConnectedMethod {
  paymentMethodId: string;
  /** Stripe: the connected account (acct_…); Stars: the bot's installation id. */
  account: string;
  mode: "live" | "test";
}

/** One member buying one plan. */
export interface CheckoutRequest {
  /** Our id for this checkout, echoed back by the provider in its reports (client_reference_id, invoice_payload). */
  reference: string;
  planName: string;
  price: PlanPrice;
  /** Our coupon's discount, already checked for this plan (src/modules/coupons/checkout.ts); the provider applies it. */
  discount?: CouponDiscount;
  /** Where the provider sends the member back (hosted checkouts). */
  successUrl?: string;
  cancelUrl?: string;
  /** Stars: the chat the invoice goes to; absent = an invoice link. */
  chatId?: string;
  /** When the hosted page stops taking payment (a pass's seat hold ends); absent = the provider's default. */
  expiresAt?: Date;
}

export interface CheckoutStart {
  /** Where the member pays: a hosted page, or a t.me invoice link. */
  url: string | null;
  /** The provider's id of the checkout (cs_…), when it has one. */
  providerCheckoutId: string | null;
  expiresAt: Date | null;
}

/** Money that moved, as the provider reports it. The fee never leaves the transactions table (rule 8). */
export interface ProviderPayment {
  providerPaymentId: string;
  amountMinor: number;
  currency: string;
  /** The provider's fee in the same currency, when it reports one. */
  feeMinor: number | null;
  paidAt: Date;
}

interface Reported {
  /** The provider's id of this report (evt_…, a charge id): what the inbox de-duplicates on. */
  eventId: string;
  occurredAt: Date;
  /**
   * Where the report came from, as the provider vouches for it: Stripe's connected account the event
   * belongs to (acct_…; null for the platform's own); Telegram Stars: the installation whose bot
   * received the update or whose ledger holds the payment. A report only acts on what it owns.
   */
  source: string | null;
}

/** A provider's report, normalized. */
export type ProviderEvent = Reported &
  (
    | {
        kind: "checkout.completed";
        reference: string;
        /** The provider's checkout the payment was made in (Stripe's Checkout Session); null where it has none (Stars). */
        providerCheckoutId: string | null;
        /** Null for a one-off payment; a recurring plan is paid by a subscription. */
        providerSubscriptionId: string | null;
        /** Who paid, as the provider names them (Stripe: the customer; Stars: the Telegram user id). */
        providerCustomerId: string | null;
        /** Null when nothing was charged (a trial). */
        payment: ProviderPayment | null;
        trialEndsAt: Date | null;
        /** The end of the period paid for; null for lifetime. */
        periodEndsAt: Date | null;
      }
    | { kind: "subscription.renewed"; providerSubscriptionId: string; payment: ProviderPayment; periodEndsAt: Date }
    | {
        kind: "payment.failed";
        providerSubscriptionId: string;
        /** A short code safe to show (Stripe's decline code), never a card detail. */
        reason: string;
        /** What the failed attempt asked for, when the provider says; else the plan's price is due. */
        amountDueMinor: number | null;
        currency: string | null;
        /** How many times this payment has been tried, when the provider counts. */
        attemptCount: number | null;
        /** Null when the provider will not try again. */
        nextRetryAt: Date | null;
      }
    | { kind: "subscription.cancel_scheduled"; providerSubscriptionId: string; cancelAtPeriodEnd: boolean; periodEndsAt: Date | null }
    | { kind: "subscription.ended"; providerSubscriptionId: string; endedAt: Date }
    | { kind: "payment.refunded"; providerPaymentId: string; refundId: string; amountMinor: number; currency: string }
    | { kind: "payment.disputed"; providerPaymentId: string; disputeId: string; amountMinor: number; currency: string; reason: string | null }
    | {
        /** A dispute decided: won (the money stays with the creator) or lost (it went back to the cardholder, final). */
        kind: "payment.dispute_closed";
        providerPaymentId: string;
        disputeId: string;
        amountMinor: number;
        currency: string;
        reason: string | null;
        outcome: "won" | "lost";
      }
  );

/** The provider's current view of a subscription, for reconciliation. */
export interface ProviderSubscriptionState {
  providerSubscriptionId: string;
  status: "trialing" | "active" | "past_due" | "canceled" | "ended";
  cancelAtPeriodEnd: boolean;
  periodEndsAt: Date | null;
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** Null when the provider can sell this price, else the refusal. */
  refusal(price: PlanPrice): SaleRefusal | null;
  startCheckout(method: ConnectedMethod, request: CheckoutRequest): Promise<CheckoutStart>;
  /** Closes a hosted checkout that was not paid, so it can no longer be (a no-op where the provider has none, or it is closed). */
  expireCheckout(method: ConnectedMethod, providerCheckoutId: string): Promise<void>;
  /** Ends renewals at the end of the paid period (the member keeps access until then). */
  cancelAtPeriodEnd(method: ConnectedMethod, providerSubscriptionId: string): Promise<void>;
  /** Refunds a payment, wholly or `amountMinor` of it. */
  refund(method: ConnectedMethod, providerPaymentId: string, amountMinor?: number): Promise<void>;
  readSubscription(method: ConnectedMethod, providerSubscriptionId: string): Promise<ProviderSubscriptionState>;
}
