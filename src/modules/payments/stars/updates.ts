// A Telegram update (the JSON the bot's webhook receives) as normalized provider events: a member's
// successful_payment completes a checkout or renews a subscription, a refunded_payment is a refund;
// every other update is none of the payment provider's business.
import type { ProviderEvent, ProviderPayment } from "../provider.ts";
import { starsPaymentId, starsSubscriptionId } from "./ids.ts";

/** The Bot API's SuccessfulPayment, as far as Stars go. */
interface SuccessfulPayment {
  currency: string;
  total_amount: number;
  invoice_payload: string;
  telegram_payment_charge_id: string;
  subscription_expiration_date?: number;
  is_recurring?: boolean;
  is_first_recurring?: boolean;
}

/** The Bot API's RefundedPayment. */
interface RefundedPayment {
  currency: string;
  total_amount: number;
  invoice_payload: string;
  telegram_payment_charge_id: string;
}

const seconds = (unix: number) => new Date(unix * 1000);

/** The fields every Stars payment and refund carries, with the Bot API's types (an update missing one is not acted on). */
const wellFormed = (p: Record<string, unknown>) =>
  typeof p.currency === "string" &&
  Number.isSafeInteger(p.total_amount) &&
  typeof p.invoice_payload === "string" &&
  typeof p.telegram_payment_charge_id === "string" &&
  p.telegram_payment_charge_id !== "";
const isObject = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The member who paid: the message's sender (a payment's message is the member's, in their chat with the bot). */
function memberOf(message: Record<string, any>): string | null {
  const id = message.from?.id ?? message.chat?.id;
  return Number.isSafeInteger(id) && id > 0 ? String(id) : null;
}

/** The payment events of `update`, which reached the bot of the installation `installationId` (their source). */
export function parseStarsUpdate(update: unknown, installationId: string): ProviderEvent[] {
  const message = isObject(update) ? update.message : undefined;
  if (!isObject(message)) return [];
  const userId = memberOf(message);
  if (userId === null || !Number.isSafeInteger(message.date)) return [];
  const occurredAt = seconds(message.date);
  const source = installationId;
  if (isObject(message.successful_payment) && wellFormed(message.successful_payment)) {
    const paid = message.successful_payment as SuccessfulPayment;
    const payment: ProviderPayment = {
      providerPaymentId: starsPaymentId(userId, paid.telegram_payment_charge_id),
      amountMinor: paid.total_amount,
      currency: paid.currency,
      // Telegram reports no fee to the bot: its share is taken when stars are withdrawn.
      feeMinor: null,
      paidAt: occurredAt,
    };
    const eventId = `telegram:${paid.telegram_payment_charge_id}`;
    const periodEndsAt = paid.subscription_expiration_date !== undefined ? seconds(paid.subscription_expiration_date) : null;
    const subscriptionId = paid.is_recurring ? starsSubscriptionId(userId, paid.invoice_payload) : null;
    if (subscriptionId && !paid.is_first_recurring)
      // A renewal always carries the new expiration date; one without it is malformed and left alone.
      return periodEndsAt
        ? [{ kind: "subscription.renewed", eventId, occurredAt, source, providerSubscriptionId: subscriptionId, payment, periodEndsAt }]
        : [];
    return [
      {
        kind: "checkout.completed",
        eventId,
        occurredAt,
        source,
        reference: paid.invoice_payload,
        // A Stars invoice has no id of its own: its payload is the checkout's id.
        providerCheckoutId: null,
        providerSubscriptionId: subscriptionId,
        providerCustomerId: userId,
        payment,
        trialEndsAt: null,
        periodEndsAt,
      },
    ];
  }
  if (isObject(message.refunded_payment) && wellFormed(message.refunded_payment)) {
    const refunded = message.refunded_payment as RefundedPayment;
    const providerPaymentId = starsPaymentId(userId, refunded.telegram_payment_charge_id);
    return [
      {
        kind: "payment.refunded",
        eventId: `telegram-refund:${refunded.telegram_payment_charge_id}`,
        occurredAt,
        source,
        providerPaymentId,
        // Telegram refunds a Stars payment once and wholly, and names the refund by the payment's charge.
        refundId: providerPaymentId,
        amountMinor: refunded.total_amount,
        currency: refunded.currency,
      },
    ];
  }
  return [];
}
