// Our coupons at a member's checkout (issue 33): the typed code is checked here, before any provider
// is asked, against the coupon's own rules (active, not expired, not used up, for this plan, in this
// plan's currency), and a completed checkout counts its redemption. The provider only gets the
// discount to apply (a Stripe coupon mirroring ours), never the decision.
import type { DomainContext } from "../../db/tenant.ts";
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
export async function checkCouponForPlan(ctx: DomainContext, plan: PlanRow, code: string): Promise<CouponCheck> {
  const coupon = (await couponsTable.rows(ctx).where({ project_id: plan.project_id, code }).first()) as CouponRow | undefined;
  // An inactive coupon reads as unknown: the creator withdrew it, and its existence is theirs to tell.
  if (!coupon || !coupon.active) return { ok: false, reason: "That coupon code is not valid here. Check it (capitals count) or leave it empty." };
  if (coupon.expires_at !== null && new Date(coupon.expires_at).getTime() <= ctx.now.getTime())
    return { ok: false, reason: "That coupon has expired." };
  if (coupon.max_redemptions !== null && coupon.redemptions_count >= coupon.max_redemptions)
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

/**
 * One redemption of the coupon, counted when a checkout started with it completes. Counted even past
 * max_redemptions: two checkouts opened on the last use and both paid were each promised the discount.
 */
export async function countCouponRedemption(ctx: DomainContext, couponId: string): Promise<void> {
  await couponsTable.rows(ctx).where({ id: couponId }).increment("redemptions_count", 1);
}
