// A member's checkout of a plan: opened before the provider is asked (its id is the reference the
// provider echoes back), completed once by the provider's report (apply.ts). A member with a live
// subscription on the project is refused before any money is asked for; one who pays twice anyway
// (two checkouts open at once) gets the second refunded (the outcome "superseded").
// A checkout states what it sells (issue 43): the account it is sold through, the first payment
// (the price less the coupon), the price renewals charge, the trial and whether a subscription pays
// it; a provider's report is held to these (binding.ts). A member has one open checkout per project:
// a new one closes the earlier ones, whose hosted pages the caller closes at the provider, so an
// abandoned page cannot later start a second trial or spend a second coupon use. A plan's trial is
// offered once per member and project: one who has had a trial there pays from the first day.
// A plan with pass windows is bought for one window (pass-windows/seats.ts): one payment of the
// plan's price, no trial, the seat taken as the checkout opens.
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, type Db, type DomainContext } from "../../db/tenant.ts";
import { UUID } from "../../uuid.ts";
import { discountedAmount, type CouponDiscount } from "../coupons/checkout.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import type { PlanRow } from "../plans/tables.ts";
import { refuseLiveSubscription } from "../subscriptions/subscriptions.ts";
import { subscriptionsTable } from "../subscriptions/tables.ts";
import type { PlanPrice, ProviderName } from "./provider.ts";
import { takeSeat } from "../pass-windows/seats.ts";
import { planPrice } from "./selling.ts";
import { checkoutsTable, type CheckoutRow } from "./tables.ts";

/** Whether the member has had a free trial in the project (any plan, however it ended). */
export async function hadTrial(ctx: DomainContext, projectId: string, memberId: string): Promise<boolean> {
  const had = await subscriptionsTable.rows(ctx).where({ project_id: projectId, member_id: memberId }).whereNotNull("trial_ends_at").first("id");
  return had !== undefined;
}

/** The trial `plan` offers `memberId`: the plan's, once per member and project. */
export async function trialDaysFor(ctx: DomainContext, plan: PlanRow, memberId: string): Promise<number> {
  if (plan.trial_days <= 0 || (await hadTrial(ctx, plan.project_id, memberId))) return 0;
  return plan.trial_days;
}

/** What the provider is asked to sell for `checkout`: its plan's cycle (a window's pass: one payment) at the checkout's price and trial. */
export function checkoutPrice(plan: PlanRow, checkout: CheckoutRow): PlanPrice {
  const price = { ...planPrice(plan), amountMinor: Number(checkout.price_minor), currency: checkout.currency, trialDays: checkout.trial_days };
  return checkout.recurring ? price : { ...price, cycle: "lifetime", cycleCount: 1 };
}

export interface OpenedCheckout {
  checkout: CheckoutRow;
  /** The member's earlier open checkouts of the project, closed now: the caller closes their hosted pages at the provider. */
  closed: CheckoutRow[];
}

export async function openCheckout(
  ctx: DomainContext,
  input: {
    member: MemberRow;
    plan: PlanRow;
    provider: ProviderName;
    paymentMethodId: string | null;
    /** The account the provider sells through (Stripe: acct_…; Stars: the installation). */
    providerAccount: string | null;
    /** A coupon already checked for this plan and member (checkCouponForPlan, in this transaction). */
    discount?: CouponDiscount | null;
    /** The pass window bought (required when the plan has windows). */
    passWindowId?: string | null;
  },
): Promise<OpenedCheckout> {
  const { plan, member } = input;
  await refuseLiveSubscription(ctx, plan.project_id, member.id);
  const earlier = (await checkoutsTable
    .rows(ctx)
    .where({ project_id: plan.project_id, member_id: member.id, status: "open" })
    .forUpdate()
    .select("*")) as CheckoutRow[];
  if (earlier.length)
    await checkoutsTable
      .rows(ctx)
      .whereIn(
        "id",
        earlier.map((c) => c.id),
      )
      .update({ status: "expired" });
  // After the earlier checkouts closed: a member trying again does not hold two seats.
  const window = await takeSeat(ctx, plan, input.passWindowId ?? null);
  const trialDays = window ? 0 : await trialDaysFor(ctx, plan, member.id);
  const priceMinor = Number(plan.amount_minor);
  const row: CheckoutRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: input.plan.project_id,
    member_id: input.member.id,
    plan_id: input.plan.id,
    payment_method_id: input.paymentMethodId,
    provider: input.provider,
    provider_checkout_id: null,
    provider_account: input.providerAccount,
    price_minor: priceMinor,
    amount_minor: discountedAmount(priceMinor, input.discount),
    currency: plan.currency,
    trial_days: trialDays,
    recurring: !window && plan.billing_cycle !== "lifetime",
    status: "open",
    subscription_id: null,
    coupon_id: input.discount?.couponId ?? null,
    pass_window_id: window?.id ?? null,
    created_at: ctx.now,
    completed_at: null,
  };
  await checkoutsTable.insert(ctx, { ...row });
  return { checkout: row, closed: earlier.map((c) => ({ ...c, status: "expired" })) };
}

/** Remembers the provider's id of the checkout (a Checkout Session), once it has answered. */
export async function noteProviderCheckout(ctx: DomainContext, checkoutId: string, providerCheckoutId: string): Promise<void> {
  await checkoutsTable.rows(ctx).where({ id: checkoutId }).update({ provider_checkout_id: providerCheckoutId });
}

/**
 * Whether the checkout `reference` may be paid now by the platform account `payer` on the
 * installation of `projectId` for `amountMinor` `currency`: a checkout of that project, at its
 * price, still open, the payer its member, no live subscription since. What a pre-checkout query is
 * answered with (binding.ts holds the payment itself to the same); the reason is shown to the member.
 */
export async function payableCheckout(
  db: Db,
  input: {
    reference: string;
    teamId: string;
    projectId: string;
    connectorKey: string;
    externalUserId: string;
    amountMinor: number;
    currency: string;
  },
  now: Date,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const ctx = createDomainContext(db, systemActor(input.teamId), now);
  const checkout = UUID.test(input.reference)
    ? ((await checkoutsTable.rows(ctx).where({ id: input.reference, project_id: input.projectId }).first()) as CheckoutRow | undefined)
    : undefined;
  if (!checkout) return { ok: false, reason: "This invoice is not one of this community's: nothing was charged." };
  if (input.currency !== checkout.currency || input.amountMinor !== Number(checkout.amount_minor))
    return { ok: false, reason: "This invoice is not for the price of its plan: nothing was charged. Ask the bot for a new one." };
  if (checkout.status !== "open") return { ok: false, reason: "This invoice was already paid or has ended: nothing was charged." };
  const member = (await membersTable.rows(ctx).where({ id: checkout.member_id }).first()) as MemberRow;
  if (member.connector_key !== input.connectorKey || member.external_user_id !== input.externalUserId)
    return { ok: false, reason: "This invoice was made for another member: ask the bot for your own." };
  try {
    await refuseLiveSubscription(ctx, checkout.project_id, member.id);
  } catch {
    return { ok: false, reason: "You already have a live subscription in this community: nothing was charged." };
  }
  return { ok: true };
}
