// Cards, payments and money movements: Stripe's test card numbers decide the outcome, a payment is
// a PaymentIntent with its Charge, and refunds and disputes act on that charge with their events.
import { cardError, invalidRequest, type StripeApiError } from "./errors.ts";
import { newId, type Account, type StripeObject, type TwinState } from "./state.ts";

/** Stripe's test cards the twin knows; any other number that passes the Luhn check succeeds. */
export const TEST_CARDS = {
  success: "4242424242424242",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  /** Attaches to the customer, then every charge on it fails (renewals that fail). */
  chargeFails: "4000000000000341",
  /** Succeeds, then the payment is disputed as fraudulent. */
  disputed: "4000000000000259",
} as const;

export interface Card {
  number: string;
  expMonth: number;
  expYear: number;
}

function luhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The decline of a card at the moment it is entered (checkout), or null when it is accepted. */
export function cardEntryError(card: Card, now: number): StripeApiError | null {
  if (!/^[0-9]{12,19}$/.test(card.number) || !luhn(card.number)) return cardError("incorrect_number", "Your card number is incorrect.");
  const expiry = new Date(Date.UTC(card.expYear, card.expMonth, 1)).getTime() / 1000;
  if (!(card.expMonth >= 1 && card.expMonth <= 12)) return cardError("invalid_expiry_month", "Your card's expiration month is invalid.");
  if (expiry <= now) return cardError("expired_card", "Your card has expired.", "expired_card");
  if (card.number === TEST_CARDS.declined) return cardError("card_declined", "Your card was declined.", "generic_decline");
  if (card.number === TEST_CARDS.insufficientFunds) return cardError("card_declined", "Your card has insufficient funds.", "insufficient_funds");
  return null;
}

/** The payment method object for a card; the number itself is kept only in the twin's memory. */
export function createPaymentMethod(state: TwinState, account: Account, card: Card, customer: string | null, name: string | null, created: number) {
  const pm = state.put(account, {
    id: newId("pm_"),
    object: "payment_method",
    billing_details: { address: null, email: null, name, phone: null },
    card: {
      brand: card.number.startsWith("4") ? "visa" : card.number.startsWith("5") ? "mastercard" : "unknown",
      country: "US",
      exp_month: card.expMonth,
      exp_year: card.expYear,
      funding: "credit",
      last4: card.number.slice(-4),
    },
    created,
    customer,
    livemode: false,
    metadata: {},
    type: "card",
  });
  state.cardNumbers.set(pm.id, card.number);
  return pm;
}

/** Whether a charge on this payment method fails (no card, or the 0341 card). */
export function chargeFails(state: TwinState, pm: string | null) {
  const number = pm ? state.cardNumbers.get(pm) : undefined;
  return number === undefined || number === TEST_CARDS.chargeFails;
}

export interface Payment {
  paymentIntent: StripeObject;
  charge: StripeObject;
  succeeded: boolean;
}

/** Stripe's standard card fee, 2.9% + 30 minor units, which the twin charges in every currency. */
export const cardFee = (amount: number) => Math.round(amount * 0.029) + 30;

/** The balance transaction of a succeeded charge: its amount, Stripe's fee and the net. */
function settle(state: TwinState, account: Account, charge: StripeObject, at: number): StripeObject {
  const fee = Math.min(charge.amount as number, cardFee(charge.amount as number));
  return state.put(account, {
    id: newId("txn_"),
    object: "balance_transaction",
    amount: charge.amount,
    available_on: at + 2 * 86400,
    created: at,
    currency: charge.currency,
    description: charge.description,
    exchange_rate: null,
    fee,
    fee_details: [{ amount: fee, application: null, currency: charge.currency, description: "Stripe processing fees", type: "stripe_fee" }],
    net: (charge.amount as number) - fee,
    reporting_category: "charge",
    source: charge.id,
    status: "pending",
    type: "charge",
  });
}

/** A PaymentIntent and its Charge for `amount`, succeeded or failed, with their events. */
export function pay(
  state: TwinState,
  account: Account,
  input: {
    amount: number;
    currency: string;
    customer: string | null;
    paymentMethod: string | null;
    description: string | null;
    metadata?: Record<string, string>;
    fail?: boolean;
    at: number;
  },
): Payment {
  const succeeded = !input.fail && !chargeFails(state, input.paymentMethod);
  const piId = newId("pi_");
  const failure = succeeded ? null : { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." };
  const charge = state.put(account, {
    id: newId("ch_"),
    object: "charge",
    amount: input.amount,
    amount_captured: succeeded ? input.amount : 0,
    amount_refunded: 0,
    balance_transaction: null as string | null,
    captured: succeeded,
    created: input.at,
    currency: input.currency,
    customer: input.customer,
    description: input.description,
    disputed: false,
    failure_code: failure?.code ?? null,
    failure_message: failure?.message ?? null,
    livemode: false,
    metadata: input.metadata ?? {},
    outcome: succeeded
      ? { network_status: "approved_by_network", reason: null, risk_level: "normal", seller_message: "Payment complete.", type: "authorized" }
      : {
          network_status: "declined_by_network",
          reason: "generic_decline",
          risk_level: "normal",
          seller_message: "The bank did not return any further details with this decline.",
          type: "issuer_declined",
        },
    paid: succeeded,
    payment_intent: piId,
    payment_method: input.paymentMethod,
    refunded: false,
    status: succeeded ? "succeeded" : "failed",
  });
  if (succeeded) charge.balance_transaction = settle(state, account, charge, input.at).id;
  const paymentIntent = state.put(account, {
    id: piId,
    object: "payment_intent",
    amount: input.amount,
    amount_received: succeeded ? input.amount : 0,
    created: input.at,
    currency: input.currency,
    customer: input.customer,
    description: input.description,
    last_payment_error: failure && { type: "card_error", ...failure, charge: charge.id },
    latest_charge: charge.id,
    livemode: false,
    metadata: input.metadata ?? {},
    payment_method: succeeded ? input.paymentMethod : null,
    payment_method_types: ["card"],
    status: succeeded ? "succeeded" : "requires_payment_method",
  });
  state.emit(account, succeeded ? "charge.succeeded" : "charge.failed", charge, { at: input.at });
  state.emit(account, succeeded ? "payment_intent.succeeded" : "payment_intent.payment_failed", paymentIntent, { at: input.at });
  // The cardholder's bank disputes after the payment is done: after the operation that charged
  // (checkout.session.completed, invoice.paid) has sent its events, as Stripe's 0259 card does.
  if (succeeded && input.paymentMethod && state.cardNumbers.get(input.paymentMethod) === TEST_CARDS.disputed)
    setImmediate(() => {
      if (charge.status === "succeeded" && !charge.disputed) openDispute(state, account, charge, "fraudulent", input.at);
    });
  return { paymentIntent, charge, succeeded };
}

/** Opens a dispute on a charge (charge.dispute.created), as a cardholder's bank would. */
export function openDispute(state: TwinState, account: Account, charge: StripeObject, reason: string, at: number): StripeObject {
  if (charge.status !== "succeeded") throw invalidRequest(`Charge ${charge.id} was not paid, so it cannot be disputed.`, "charge");
  const dispute = state.put(account, {
    id: newId("du_"),
    object: "dispute",
    amount: (charge.amount as number) - (charge.amount_refunded as number),
    charge: charge.id,
    created: at,
    currency: charge.currency,
    evidence_details: { due_by: at + 7 * 86400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason,
    status: "needs_response",
  });
  charge.disputed = true;
  state.emit(account, "charge.dispute.created", dispute, { at });
  return dispute;
}

/**
 * Decides an open dispute (charge.dispute.closed): won, the money stays with the account; lost, it
 * is the cardholder's for good. Stripe decides after the evidence, or at once when it is accepted.
 */
export function closeDispute(state: TwinState, account: Account, dispute: StripeObject, outcome: "won" | "lost", at: number): StripeObject {
  if (!["needs_response", "under_review", "warning_needs_response", "warning_under_review"].includes(dispute.status as string))
    throw invalidRequest(`This dispute is already closed (${dispute.status}).`, "dispute");
  dispute.status = outcome;
  state.emit(account, "charge.dispute.closed", dispute, { at });
  return dispute;
}

/** Refunds `amount` (all that is left by default) of a charge: refund.created and charge.refunded. */
export function refund(
  state: TwinState,
  account: Account,
  charge: StripeObject,
  input: { amount?: number; reason?: string; metadata?: Record<string, string>; at: number },
) {
  const left = (charge.amount as number) - (charge.amount_refunded as number);
  if (charge.status !== "succeeded") throw invalidRequest(`Charge ${charge.id} has no successful payment to refund.`, "charge");
  if (left === 0) throw invalidRequest(`Charge ${charge.id} has already been refunded.`, "charge", "charge_already_refunded");
  const amount = input.amount ?? left;
  if (amount > left)
    throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, "amount", "amount_too_large");
  const before = structuredClone(charge);
  const created = state.put(account, {
    id: newId("re_"),
    object: "refund",
    amount,
    charge: charge.id,
    created: input.at,
    currency: charge.currency,
    metadata: input.metadata ?? {},
    payment_intent: charge.payment_intent,
    reason: input.reason ?? null,
    status: "succeeded",
  });
  charge.amount_refunded = (charge.amount_refunded as number) + amount;
  charge.refunded = charge.amount_refunded === charge.amount;
  state.emit(account, "refund.created", created, { at: input.at });
  state.emitUpdated(account, "charge.refunded", before, charge, input.at);
  return created;
}
