// Our coupons at a member's checkout (issue 33): the typed code is checked here, before any provider
// is asked, against the coupon's own rules (active, not expired, not used up, for this plan, in this
// plan's currency), and a completed checkout counts its redemption. The provider only gets the
// discount to apply (a Stripe coupon mirroring ours), never the decision.
// A coupon's limit is exact (issue 43): the open checkouts started with it hold its remaining uses
// (one per member), so the check locks the coupon and counts them in the transaction that opens the
// checkout; a checkout that expires gives its use back, one that completes turns it into a
// redemption. Nothing is stored twice: what is held is read from the checkouts.
import type { DomainContext } from "../../db/tenant.ts";
import { checkoutsTable } from "../payments/tables.ts";
import type { PlanRow } from "../plans/tables.ts";
import { couponsTable, type CouponRow } from "./tables.ts";

/** The discount a provider applies, as our coupon defines it. */
export interface CouponDiscount {
  /** Our coupon's id: the provider's copy is named after it, so one coupon is one provider coupon. */
  couponId: string;
  percentOff: number | null;
  amountOffMinor: number | null;
  /** The currency of amountOffMinor (upper case), null for a percentage. */
  currency: string | null;
}

export type CouponCheck = { ok: true; coupon: CouponRow; discount: CouponDiscount } | { ok: false; reason: string };

/** Whether `code` (case-sensitive, as coupons are) discounts `plan` now; the reason is shown to the member. */
/** How many of the coupon's uses other members' open checkouts hold (the caller holds the coupon's row lock). */
async function heldByOthers(ctx: DomainContext, couponId: string, memberId: string): Promise<number> {
  const [row] = (await checkoutsTable
    .rows(ctx)
    .where({ coupon_id: couponId, status: "open" })
    .whereNot({ member_id: memberId })
    .countDistinct({ n: "member_id" })) as { n: number | string }[];
  return Number(row?.n ?? 0);
}

/**
 * Whether `code` (case-sensitive, as coupons are) discounts `plan` for `memberId` now; the reason is
 * shown to the member. Locks the coupon until the caller's transaction ends, so the checkout it
 * opens holds one of its uses before another member's check counts them.
 */
export async function checkCouponForPlan(ctx: DomainContext, plan: PlanRow, code: string, memberId: string): Promise<CouponCheck> {
  const coupon = (await couponsTable.rows(ctx).where({ project_id: plan.project_id, code }).forUpdate().first()) as CouponRow | undefined;
  // An inactive coupon reads as unknown: the creator withdrew it, and its existence is theirs to tell.
  if (!coupon || !coupon.active) return { ok: false, reason: "That coupon code is not valid here. Check it (capitals count) or leave it empty." };
  if (coupon.expires_at !== null && new Date(coupon.expires_at).getTime() <= ctx.now.getTime())
    return { ok: false, reason: "That coupon has expired." };
  if (coupon.max_redemptions !== null && coupon.redemptions_count + (await heldByOthers(ctx, coupon.id, memberId)) >= coupon.max_redemptions)
    return { ok: false, reason: "That coupon has been used as many times as it allows." };
  const planIds = coupon.plan_ids as readonly string[];
  if (planIds.length > 0 && !planIds.includes(plan.id)) return { ok: false, reason: `That coupon is not for the ${plan.name} plan.` };
  if (coupon.currency !== null && coupon.currency !== plan.currency)
    return { ok: false, reason: `That coupon takes off an amount in ${coupon.currency}, and this plan is sold in ${plan.currency}.` };
  return {
    ok: true,
    coupon,
    discount: {
      couponId: coupon.id,
      percentOff: coupon.percent_off,
      amountOffMinor: coupon.amount_off_minor === null ? null : Number(coupon.amount_off_minor),
      currency: coupon.currency,
    },
  };
}

/** What the first payment comes to once `discount` is taken off `priceMinor`, rounded as Stripe rounds a percentage. */
export function discountedAmount(priceMinor: number, discount: CouponDiscount | null | undefined): number {
  if (!discount) return priceMinor;
  if (discount.percentOff !== null) return priceMinor - Math.round((priceMinor * discount.percentOff) / 100);
  return priceMinor - Math.min(priceMinor, discount.amountOffMinor ?? 0);
}

/**
 * One redemption of the coupon, counted when a checkout started with it completes: the use its open
 * checkout held becomes a redemption in the same transaction.
 */
export async function countCouponRedemption(ctx: DomainContext, couponId: string): Promise<void> {
  await couponsTable.rows(ctx).where({ id: couponId }).increment("redemptions_count", 1);
}
