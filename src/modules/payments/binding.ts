// What a provider's report must match before it grants anything (issue 43; ARCHITECTURE.md "Money
// and grants: bound to what was bought"). A report names our checkout (its reference) or our
// subscription (the provider's id), and anyone who can make the provider report can write that
// name, so the name alone proves nothing: the report must also have come through the account the
// checkout was sold through (Stripe: the connected account the Checkout Session was made on; Stars:
// the bot of the checkout's project), in the provider's own checkout we opened for it (Stripe's
// Checkout Session; a Stars invoice has only its payload), from the member it was made for (Stars:
// the Telegram user; Stripe's session was handed to that member alone), for exactly the amount and
// currency quoted, with no trial beyond the one offered, and a recurring plan by a subscription.
// Each function answers null when the report matches, else the reason in a sentence.
import { unscoped, type Db } from "../../db/tenant.ts";
import { UUID } from "../../uuid.ts";
import type { MemberRow } from "../members/tables.ts";
import type { SubscriptionRow } from "../subscriptions/tables.ts";
import { formatMinor } from "./money.ts";
import type { ProviderEvent, ProviderName } from "./provider.ts";
import type { CheckoutRow } from "./tables.ts";

type Completion = Extract<ProviderEvent, { kind: "checkout.completed" }>;
type Renewal = Extract<ProviderEvent, { kind: "subscription.renewed" }>;

const DAY_MS = 24 * 3600_000;
/** A trial's end may lie this much past the days offered: the provider counts from its own clock. */
const TRIAL_SLACK_MS = 3600_000;

/** Whether the report came through the account `checkout` was sold through. */
async function sourceMismatch(db: Db, provider: ProviderName, source: string | null, checkout: CheckoutRow): Promise<string | null> {
  if (provider === "stripe") {
    if (source !== null && source === checkout.provider_account) return null;
    return `it came from the Stripe account ${source ?? "of the platform itself"}, not the one the checkout was sold through (${checkout.provider_account ?? "none recorded"})`;
  }
  const installation =
    source !== null && UUID.test(source)
      ? ((await unscoped(
          db,
          "the installation a Stars report came through, whatever its team",
        )("connector_installations")
          .where({ id: source })
          .first("project_id")) as { project_id: string } | undefined)
      : undefined;
  if (installation?.project_id === checkout.project_id) return null;
  return "it reached the bot of another project, not the one the checkout was sold through";
}

/** The amount asked, in words. */
const asked = (amountMinor: number, currency: string) => formatMinor(amountMinor, currency);

/** Whether `paid` (null: nothing charged) is one of `due` in the checkout's currency. */
function amountMismatch(paid: { amountMinor: number; currency: string } | null, due: number[], checkout: CheckoutRow): string | null {
  if (paid && paid.currency !== checkout.currency) return `it was paid in ${paid.currency}, and the checkout is in ${checkout.currency}`;
  const amount = paid?.amountMinor ?? 0;
  if (due.includes(amount)) return null;
  return `it paid ${asked(amount, checkout.currency)} where ${due.map((d) => asked(d, checkout.currency)).join(" or ")} was due`;
}

/** Why the completion `event` cannot complete `checkout` (of `member`), or null when it matches. */
export async function completionMismatch(
  db: Db,
  provider: ProviderName,
  event: Completion,
  checkout: CheckoutRow,
  member: MemberRow,
  now: Date,
): Promise<string | null> {
  const source = await sourceMismatch(db, provider, event.source, checkout);
  if (source) return source;
  if (provider === "stripe" && (event.providerCheckoutId === null || event.providerCheckoutId !== checkout.provider_checkout_id))
    return `it was paid in the Checkout Session ${event.providerCheckoutId ?? "(none)"}, not the one opened for this checkout (${checkout.provider_checkout_id ?? "none recorded"})`;
  if (provider === "telegram_stars" && (member.connector_key !== "telegram" || event.providerCustomerId !== member.external_user_id))
    return `it was paid by the Telegram user ${event.providerCustomerId ?? "(unknown)"}, not the member the invoice was made for`;
  if (checkout.recurring !== (event.providerSubscriptionId !== null))
    return checkout.recurring ? "a recurring plan was paid once, not by a subscription" : "a one-off plan was paid by a subscription";
  if (event.trialEndsAt !== null) {
    if (checkout.trial_days === 0) return "it started a free trial the checkout did not offer";
    // From when the provider says it completed (its signed time) or now, whichever is later: the trial starts on completion.
    const from = Math.max(now.getTime(), event.occurredAt.getTime());
    if (event.trialEndsAt.getTime() > from + checkout.trial_days * DAY_MS + TRIAL_SLACK_MS)
      return `its trial runs until ${event.trialEndsAt.toISOString()}, longer than the ${checkout.trial_days} days offered`;
  }
  // A trial charges nothing now; otherwise the first payment is the price less the coupon.
  return amountMismatch(event.payment, [event.trialEndsAt !== null ? 0 : Number(checkout.amount_minor)], checkout);
}

/**
 * Why the renewal `event` cannot renew `subscription`, started by `checkout` (null when no checkout
 * of ours started it), or null when it matches. A renewal charges the price quoted at the checkout;
 * the first charge after a trial may also be the coupon's discounted amount (`paidBefore` false).
 */
export async function renewalMismatch(
  db: Db,
  provider: ProviderName,
  event: Renewal,
  subscription: SubscriptionRow,
  checkout: CheckoutRow | null,
  paidBefore: boolean,
): Promise<string | null> {
  if (!checkout) return `no checkout of ours started the subscription ${subscription.id}`;
  const source = await sourceMismatch(db, provider, event.source, checkout);
  if (source) return source;
  const price = Number(checkout.price_minor);
  const due = !paidBefore && checkout.trial_days > 0 ? [...new Set([price, Number(checkout.amount_minor)])] : [price];
  return amountMismatch(event.payment, due, checkout);
}
