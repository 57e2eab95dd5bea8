// The Bot API's checks of a Telegram Stars invoice (createInvoiceLink, sendInvoice) in the fake
// platform (fake-telegram-stars.ts): Telegram's own refusals for a malformed one.

/** The only subscription period Telegram takes (30 days), and the most a subscription may cost. */
export const STARS_SUBSCRIPTION_PERIOD = 2592000;
const STARS_SUBSCRIPTION_MAX = 10000;

/** A parameter that arrives as JSON text in a form body and as a value in a JSON body. */
export function jsonParam(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The Bot API's refusal for a malformed Stars invoice, or null when Telegram takes it. */
export function invalidStarsInvoice(params: Record<string, unknown>, allowSubscription: boolean): string | null {
  const text = (v: unknown, max: number) => typeof v === "string" && v.length >= 1 && v.length <= max;
  if (!text(params.title, 32)) return "Bad Request: INVOICE_TITLE_INVALID";
  if (!text(params.description, 255)) return "Bad Request: INVOICE_DESCRIPTION_INVALID";
  const payload = params.payload;
  if (typeof payload !== "string" || Buffer.byteLength(payload) < 1 || Buffer.byteLength(payload) > 128)
    return "Bad Request: INVOICE_PAYLOAD_INVALID";
  // Without a provider token only Stars can be sold; Stars take no provider token.
  if (params.currency !== "XTR") return "Bad Request: PAYMENT_PROVIDER_INVALID";
  if (params.provider_token !== undefined && params.provider_token !== "") return "Bad Request: STARS_INVOICE_INVALID";
  const prices = jsonParam(params.prices);
  if (!Array.isArray(prices) || prices.length !== 1) return "Bad Request: STARS_INVOICE_INVALID";
  const amount = (prices[0] as { amount?: unknown; label?: unknown }).amount;
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) return "Bad Request: CURRENCY_TOTAL_AMOUNT_INVALID";
  if (allowSubscription && params.subscription_period !== undefined) {
    if (Number(params.subscription_period) !== STARS_SUBSCRIPTION_PERIOD) return "Bad Request: SUBSCRIPTION_PERIOD_INVALID";
    if ((amount as number) > STARS_SUBSCRIPTION_MAX) return "Bad Request: STARS_INVOICE_INVALID";
  }
  return null;
}
