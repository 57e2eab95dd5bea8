// Telegram Stars as a PaymentProvider (docs/decisions.md, "The Telegram Stars provider"): the
// installation's bot sells through the Telegram driver's payments capability. Telegram bills a
// subscription every 30 days, so a plan "per month" renews every 30 days on Stars; lifetime plans are
// one-off invoices. Telegram reports payments through the bot's updates (parseStarsUpdate), not here.
import type { PlatformPayments, PlatformSession } from "../../connectors/drivers/driver.ts";
import { PlatformError } from "../../connectors/drivers/driver.ts";
import type { ConnectedMethod, PaymentProvider, PlanPrice, ProviderSubscriptionState, SaleRefusal } from "../provider.ts";
import { parseStarsPaymentId, parseStarsSubscriptionId } from "./ids.ts";
import { subscriptionPayments } from "./ledger.ts";

/** Telegram's one subscription_period: 30 days, whatever the calendar month. */
export const STARS_SUBSCRIPTION_PERIOD_SECONDS = 2_592_000;
/** The most a Stars subscription may cost per period. */
export const STARS_SUBSCRIPTION_MAX = 10_000;
/** Telegram's limits on an invoice's title and description (characters) and payload (bytes). */
const TITLE_MAX = 32;
const DESCRIPTION_MAX = 255;
const PAYLOAD_MAX_BYTES = 128;

const unsupported = (message: string): SaleRefusal => ({ code: "PLAN_PROVIDER_UNSUPPORTED", message });

/** Null when Stars can sell `price`, else the refusal in the description's codes. */
export function starsRefusal(price: PlanPrice): SaleRefusal | null {
  if (price.currency !== "XTR")
    return { code: "PLAN_CURRENCY_MISMATCH", message: `Telegram Stars sells in XTR (whole stars); the plan is priced in ${price.currency}.` };
  if (!Number.isSafeInteger(price.amountMinor) || price.amountMinor < 1)
    return unsupported(`A Telegram Stars price is a whole number of at least 1 star; the plan costs ${price.amountMinor}.`);
  if (price.trialDays > 0)
    return unsupported("Telegram Stars has no free trials: the first payment is taken at once. Set the plan's trial to 0 days.");
  if (price.cycle === "lifetime") return null;
  if (price.cycle !== "month" || price.cycleCount !== 1)
    return unsupported(
      `Telegram Stars renews subscriptions only every 30 days (a plan billed every 1 month); this plan is billed every ${price.cycleCount} ${price.cycle}.`,
    );
  if (price.amountMinor > STARS_SUBSCRIPTION_MAX)
    return unsupported(
      `A Telegram Stars subscription costs at most ${STARS_SUBSCRIPTION_MAX} stars per period; this plan costs ${price.amountMinor}.`,
    );
  return null;
}

/** `text` cut to at most `max` UTF-16 units without splitting a character. */
function clip(text: string, max: number): string {
  let out = "";
  for (const char of text) {
    if (out.length + char.length > max) break;
    out += char;
  }
  return out;
}

export function starsProvider(sessionFor: (method: ConnectedMethod) => Promise<PlatformSession>): PaymentProvider {
  const paymentsOf = async (method: ConnectedMethod): Promise<PlatformPayments> => {
    const payments = (await sessionFor(method)).payments;
    if (!payments) throw new Error(`The installation ${method.account} has no Telegram Stars payments (its platform has none).`);
    return payments;
  };
  return {
    name: "telegram_stars",
    refusal: starsRefusal,

    async startCheckout(method, request) {
      const refusal = starsRefusal(request.price);
      if (refusal) throw new Error(`${refusal.code}: ${refusal.message}`);
      const bytes = Buffer.byteLength(request.reference);
      if (bytes < 1 || bytes > PAYLOAD_MAX_BYTES)
        throw new Error(`A checkout reference is Telegram's invoice_payload, 1-${PAYLOAD_MAX_BYTES} bytes; this one has ${bytes}.`);
      const name = request.planName.trim() || "Membership";
      const recurring = request.price.cycle !== "lifetime";
      const invoice = {
        title: clip(name, TITLE_MAX),
        description: clip(`${name}: ${recurring ? "renews every 30 days until cancelled" : "one payment, access for life"}`, DESCRIPTION_MAX),
        payload: request.reference,
        amount: request.price.amountMinor,
      };
      const payments = await paymentsOf(method);
      const none = { providerCheckoutId: null, expiresAt: null };
      if (recurring) return { url: await payments.createInvoiceLink({ ...invoice, subscriptionPeriod: STARS_SUBSCRIPTION_PERIOD_SECONDS }), ...none };
      // sendInvoice has no subscription period, so only a one-off payment can be an invoice in the chat.
      if (request.chatId !== undefined) {
        await payments.sendInvoice(request.chatId, invoice);
        return { url: null, ...none };
      }
      return { url: await payments.createInvoiceLink(invoice), ...none };
    },

    // A Stars invoice cannot be withdrawn: the pre-checkout query declines one whose checkout is no longer open.
    async expireCheckout() {},

    async cancelAtPeriodEnd(method, providerSubscriptionId) {
      const { userId, payload } = parseStarsSubscriptionId(providerSubscriptionId);
      const payments = await paymentsOf(method);
      // editUserStarSubscription names the subscription by any of its charges: the ledger finds one.
      const [charge] = await subscriptionPayments(payments, userId, payload);
      if (!charge) throw new Error(`Telegram has no payment of the Stars subscription ${providerSubscriptionId}.`);
      await payments.setSubscriptionCanceled(userId, charge.id, true);
    },

    async refund(method, providerPaymentId, amountMinor) {
      const { userId, chargeId } = parseStarsPaymentId(providerPaymentId);
      // refundStarPayment gives back the whole payment: Telegram has no partial refund.
      if (amountMinor !== undefined) throw new Error("Telegram Stars refunds a payment wholly; a partial refund cannot be made.");
      const payments = await paymentsOf(method);
      try {
        await payments.refund(userId, chargeId);
      } catch (err) {
        // Refunded already (by an earlier call of ours whose answer was lost, or by Telegram): done.
        if (err instanceof PlatformError && err.description === "Bad Request: CHARGE_ALREADY_REFUNDED") return;
        throw err;
      }
    },

    async readSubscription(method, providerSubscriptionId): Promise<ProviderSubscriptionState> {
      const { userId, payload } = parseStarsSubscriptionId(providerSubscriptionId);
      const payments = await paymentsOf(method);
      const paid = await subscriptionPayments(payments, userId, payload);
      if (paid.length === 0) throw new Error(`Telegram has no payment of the Stars subscription ${providerSubscriptionId}.`);
      const first = paid[0]!;
      const latest = paid[paid.length - 1]!;
      // Telegram renews from the first payment, one period per payment; its ledger has no expiration date.
      const periodEndsAt = new Date((first.date + paid.length * (first.subscriptionPeriod ?? STARS_SUBSCRIPTION_PERIOD_SECONDS)) * 1000);
      const live = !latest.refunded && periodEndsAt.getTime() > Date.now();
      // Telegram tells a bot nothing of a cancellation (the member's or its own), so none is reported.
      return { providerSubscriptionId, status: live ? "active" : "ended", cancelAtPeriodEnd: false, periodEndsAt };
    },
  };
}
