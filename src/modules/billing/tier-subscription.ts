// A creator's own tier, billed through Stripe on the operator's platform account (issue 33, item 5).
// The tier is the user's (every team they own gets it). A Stripe customer is made for the user once
// and remembered; Checkout starts a subscription to a tier's price; a plan change swaps the
// subscription item's price and invoices the prorated difference at once, applied only if paid;
// a cancellation is at period end. The tier itself changes only from what Stripe reports: each
// report re-reads the subscription from Stripe under a lock on the user's billing row, so events
// arriving twice or out of order leave the state Stripe holds now. Described in docs/decisions.md
// ("The creator's own tier").
import type Stripe from "stripe";
import { createDomainContext, systemActor, unscoped, type Db } from "../../db/tenant.ts";
import { alertTierBilling } from "../alerts/producers.ts";
import { emitEvent } from "../events/outbox.ts";
import type { Tier } from "../teams/tier.ts";
import { PAID_TIERS, TIER_NAMES, type PaidTier } from "./prices.ts";
import type { StripeBilling } from "./stripe-setup.ts";

/** How long a creator keeps a paid tier after a failed renewal while Stripe retries; then Free. */
export const BILLING_GRACE_MS = 7 * 86400_000;

/** What the billing code needs of Stripe: the platform client and the tier billing settings. */
export interface BillingStripe {
  client: Stripe;
  billing: StripeBilling;
}

export interface BillingRow {
  user_id: string;
  stripe_customer_id: string;
  stripe_subscription_id: string | null;
  subscription_status: string | null;
  subscribed_tier: PaidTier | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  grace_ends_at: Date | null;
  updated_at: Date;
}

/** The metadata key naming the user on the customer and the subscription. */
export const USER_METADATA_KEY = "subbridge_user_id";

const LIVE = new Set(["active", "trialing", "past_due"]);

const billingDb = (db: Db) => unscoped(db, "the creator's own billing belongs to the user, not to a team");

export async function billingOf(db: Db, userId: string): Promise<BillingRow | null> {
  return ((await billingDb(db)("creator_billing").where({ user_id: userId }).first()) as BillingRow | undefined) ?? null;
}

/** Whether the recorded subscription still bills (a new checkout would be a second one). */
export const subscriptionLive = (row: BillingRow | null) => !!row?.stripe_subscription_id && LIVE.has(row.subscription_status ?? "");

export function tierOfPrice(billing: StripeBilling, priceId: string | undefined): PaidTier | null {
  return PAID_TIERS.find((tier) => billing.prices[tier] === priceId) ?? null;
}

/** The user's Stripe customer on the platform account, made on first use and remembered. */
export async function customerFor(db: Db, stripe: BillingStripe, user: { id: string; email: string }, now: Date): Promise<string> {
  const known = await billingOf(db, user.id);
  if (known) return known.stripe_customer_id;
  // The idempotency key makes a retried or concurrent first checkout reuse one customer.
  const customer = await stripe.client.customers.create(
    { email: user.email, metadata: { [USER_METADATA_KEY]: user.id } },
    { idempotencyKey: `subbridge_billing_customer_${user.id}` },
  );
  await billingDb(db)("creator_billing")
    .insert({ user_id: user.id, stripe_customer_id: customer.id, cancel_at_period_end: false, updated_at: now })
    .onConflict("user_id")
    .ignore();
  return (await billingOf(db, user.id))!.stripe_customer_id;
}

/** A hosted Checkout Session subscribing the user to `tier`; answers the page's URL. */
export async function startTierCheckout(
  db: Db,
  stripe: BillingStripe,
  user: { id: string; email: string },
  tier: PaidTier,
  urls: { success: string; cancel: string },
  now: Date,
): Promise<string> {
  const customer = await customerFor(db, stripe, user, now);
  const session = await stripe.client.checkout.sessions.create({
    mode: "subscription",
    customer,
    line_items: [{ price: stripe.billing.prices[tier], quantity: 1 }],
    client_reference_id: user.id,
    subscription_data: { metadata: { [USER_METADATA_KEY]: user.id } },
    success_url: urls.success,
    cancel_url: urls.cancel,
  });
  return session.url!;
}

/**
 * Moves a live subscription to another paid tier: the item's price is swapped and the prorated
 * difference invoiced at once; with error_if_incomplete Stripe applies the change only when that
 * invoice is paid (a declined card is a StripeCardError and nothing changes). A downgrade leaves a
 * credit on the customer's balance for the next invoices. The tier follows from the re-read.
 */
export async function changeTier(db: Db, stripe: BillingStripe, row: BillingRow, tier: PaidTier, now: Date): Promise<void> {
  const sub = await stripe.client.subscriptions.retrieve(row.stripe_subscription_id!);
  const item = sub.items.data[0]!;
  await stripe.client.subscriptions.update(sub.id, {
    items: [{ id: item.id, price: stripe.billing.prices[tier] }],
    proration_behavior: "always_invoice",
    payment_behavior: "error_if_incomplete",
    cancel_at_period_end: false,
  });
  await syncTierSubscription(db, stripe, row.stripe_customer_id, sub.id, now);
}

/** Cancels at period end (`cancel` true) or withdraws that cancellation; the tier follows from the re-read. */
export async function scheduleTierCancellation(db: Db, stripe: BillingStripe, row: BillingRow, cancel: boolean, now: Date): Promise<void> {
  await stripe.client.subscriptions.update(row.stripe_subscription_id!, { cancel_at_period_end: cancel });
  await syncTierSubscription(db, stripe, row.stripe_customer_id, row.stripe_subscription_id!, now);
}

/** Writes `type` for every team the user owns (the tier is theirs), project_id null, in `trx`. */
async function emitForOwnedTeams(trx: Db, userId: string, now: Date, type: string, data: Record<string, unknown>) {
  const teams = (await unscoped(trx, "a creator's tier reaches every team they own")("teams").where({ owner_user_id: userId }).select("id")) as {
    id: string;
  }[];
  for (const team of teams) await emitEvent(createDomainContext(trx, systemActor(team.id), now), { type, data });
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

async function setTier(trx: Db, userId: string, previous: Tier, tier: Tier, reason: string, now: Date) {
  await billingDb(trx)("users").where({ id: userId }).update({ tier });
  await emitForOwnedTeams(trx, userId, now, "billing.tier_changed", { billing: { user_id: userId, previous_tier: previous, tier, reason } });
}

export type SyncOutcome = { outcome: "applied"; tier: Tier } | { outcome: "ignored"; reason: string };

/**
 * Reads the subscription from Stripe and makes the user's tier and billing row say what it says,
 * with its events, in one transaction (or `db`'s, when it is one) holding the billing row's lock,
 * so two reports of one change apply it once and an older report never overwrites a newer read.
 */
export async function syncTierSubscription(
  db: Db,
  stripe: BillingStripe,
  customerId: string,
  subscriptionId: string,
  now: Date,
): Promise<SyncOutcome> {
  const work = async (trx: Db): Promise<SyncOutcome> => {
    const row = (await billingDb(trx)("creator_billing").where({ stripe_customer_id: customerId }).forUpdate().first()) as BillingRow | undefined;
    if (!row) return { outcome: "ignored", reason: "no creator has this Stripe customer" };
    const sub = await stripe.client.subscriptions.retrieve(subscriptionId);
    const item = sub.items.data[0];
    const paidTier = tierOfPrice(stripe.billing, item?.price.id);
    if (sub.customer !== customerId || !item || !paidTier) return { outcome: "ignored", reason: "not a tier subscription of this customer" };
    const live = LIVE.has(sub.status);
    // An older subscription's end must not undo a newer one; a newer live one replaces the record.
    if (row.stripe_subscription_id && row.stripe_subscription_id !== sub.id && !live)
      return { outcome: "ignored", reason: "a subscription the creator no longer has" };
    if (sub.status === "incomplete") return { outcome: "ignored", reason: "the first payment is not made" };
    const user = (await billingDb(trx)("users").where({ id: row.user_id }).forUpdate().first("tier")) as { tier: Tier };
    const periodStart = new Date(item.current_period_start * 1000);
    const periodEnd = new Date(item.current_period_end * 1000);
    let tier: Tier = "free";
    let grace: Date | null = null;
    if (sub.status === "active" || sub.status === "trialing") tier = paidTier;
    else if (sub.status === "past_due") {
      // The renewal that failed was due at the current period's start (Stripe moved the period on).
      grace = new Date(periodStart.getTime() + BILLING_GRACE_MS);
      tier = now < grace ? paidTier : "free";
    }
    if (tier !== user.tier) {
      const reason =
        tier === "free"
          ? sub.status === "past_due"
            ? "payment_grace_ended"
            : "subscription_ended"
          : user.tier === "free"
            ? "subscribed"
            : "plan_changed";
      await setTier(trx, row.user_id, user.tier, tier, reason, now);
    }
    if (sub.status === "past_due" && row.subscription_status !== "past_due" && tier !== "free") {
      await emitForOwnedTeams(trx, row.user_id, now, "billing.payment_failed", {
        billing: { user_id: row.user_id, tier, grace_ends_at: iso(grace) },
      });
      // One failed renewal per period: a second report of it (a retried sync) raises nothing more.
      const dedupeKey = `billing:payment_failed:${sub.id}:${periodStart.toISOString()}`;
      await alertTierBilling(trx, now, row.user_id, { kind: "payment_failed", tier: TIER_NAMES[tier], graceEndsAt: grace, dedupeKey });
    }
    if (live && sub.cancel_at_period_end && !(row.cancel_at_period_end && row.stripe_subscription_id === sub.id)) {
      await emitForOwnedTeams(trx, row.user_id, now, "billing.subscription_cancelled", {
        billing: { user_id: row.user_id, tier: paidTier, ends_at: periodEnd.toISOString() },
      });
      await alertTierBilling(trx, now, row.user_id, { kind: "cancelled", tier: TIER_NAMES[paidTier], endsAt: periodEnd });
    }
    await billingDb(trx)("creator_billing").where({ user_id: row.user_id }).update({
      stripe_subscription_id: sub.id,
      subscription_status: sub.status,
      subscribed_tier: paidTier,
      current_period_end: periodEnd,
      cancel_at_period_end: sub.cancel_at_period_end,
      grace_ends_at: grace,
      updated_at: now,
    });
    return { outcome: "applied", tier };
  };
  return "isTransaction" in db && db.isTransaction ? work(db) : db.transaction(work);
}

/**
 * The grace job's work: a creator whose renewal failed and whose grace is over falls back to Free
 * even while Stripe still retries (a later payment brings the tier back through invoice.paid).
 */
export async function endPastGraces(db: Db, now: Date): Promise<{ changed: number }> {
  const due = (await billingDb(db)("creator_billing")
    .join("users", "users.id", "creator_billing.user_id")
    .where("creator_billing.subscription_status", "past_due")
    .where("creator_billing.grace_ends_at", "<=", now)
    .whereNot("users.tier", "free")
    .select("creator_billing.user_id")) as { user_id: string }[];
  let changed = 0;
  for (const { user_id } of due) {
    changed += await db.transaction(async (trx) => {
      const row = (await billingDb(trx)("creator_billing").where({ user_id }).forUpdate().first()) as BillingRow;
      const user = (await billingDb(trx)("users").where({ id: user_id }).forUpdate().first("tier")) as { tier: Tier };
      if (row.subscription_status !== "past_due" || !row.grace_ends_at || row.grace_ends_at > now || user.tier === "free") return 0;
      await setTier(trx, user_id, user.tier, "free", "payment_grace_ended", now);
      return 1;
    });
  }
  return { changed };
}
