// The ids SubBridge keeps for Telegram Stars payments and subscriptions (docs/decisions.md, "The
// Telegram Stars provider"). Every Bot API call about a payment (refundStarPayment,
// editUserStarSubscription) names the member as well as the charge, so each id carries the member's
// Telegram user id before its first colon:
//   payment:      `<user_id>:<telegram_payment_charge_id>`
//   subscription: `<user_id>:<invoice_payload>`, the payload being the checkout's reference.
// A subscription is named by its payload, not by its first charge, because Telegram's renewal
// payments carry the subscription's payload and a new charge id, never the first one.

export const starsPaymentId = (userId: string | number, chargeId: string) => `${userId}:${chargeId}`;
export const starsSubscriptionId = (userId: string | number, payload: string) => `${userId}:${payload}`;

/** A Telegram user id (a positive integer of at most 52 bits), then a colon, then a non-empty rest. */
const STARS_ID = /^([1-9][0-9]{0,15}):([\s\S]+)$/;

/** The member and the charge of a Stars payment id; throws on an id not of that form. */
export function parseStarsPaymentId(id: string): { userId: string; chargeId: string } {
  const match = STARS_ID.exec(id);
  if (!match) throw new Error(`"${id}" is not a Telegram Stars payment id (<user_id>:<telegram_payment_charge_id>).`);
  return { userId: match[1]!, chargeId: match[2]! };
}

/** The member and the invoice payload of a Stars subscription id; throws on an id not of that form. */
export function parseStarsSubscriptionId(id: string): { userId: string; payload: string } {
  const match = STARS_ID.exec(id);
  if (!match) throw new Error(`"${id}" is not a Telegram Stars subscription id (<user_id>:<invoice_payload>).`);
  return { userId: match[1]!, payload: match[2]! };
}
