// A member starts paying for a plan on the portal (issue 33): the plan must be on sale and sold by
// the chosen enabled method, the member neither banned nor already subscribed, and a typed coupon
// valid for the plan; only then is a checkout opened (committed before the provider is asked, as
// its id is the reference the provider echoes back) and the provider's hosted checkout started
// with our coupon's discount. Nothing here touches money: the provider's report completes it
// (apply.ts). A provider that fails leaves an open checkout, which expires (jobs.ts).
import type { Logger } from "pino";
import { createDomainContext, type Actor, type Db, type DomainContext } from "../../db/tenant.ts";
import { checkCouponForPlan, type CouponDiscount } from "../coupons/checkout.ts";
import { refuseBanned } from "../members/members.ts";
import type { MemberRow } from "../members/tables.ts";
import { presentPaymentMethod } from "../payment-methods/payment-methods.ts";
import { paymentMethodsTable, type PaymentMethodRow } from "../payment-methods/tables.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { refuseLiveSubscription } from "../subscriptions/subscriptions.ts";
import { PASS_SEAT_HOLD_MS } from "../pass-windows/seats.ts";
import { checkoutPrice, noteProviderCheckout, openCheckout } from "./checkouts.ts";
import { accountAccessLost, stripeAccessRefused } from "./connections.ts";
import type { ProviderRegistry } from "./providers.ts";
import { methodsSelling } from "./selling.ts";
import type { CheckoutRow } from "./tables.ts";

/** Why a checkout did not start, in words for the member; `field` names the form field at fault. */
export class CheckoutRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field: "coupon" | null = null,
  ) {
    super(message);
    this.name = "CheckoutRefused";
  }
}

export interface MemberCheckoutDeps {
  db: Db;
  registry: ProviderRegistry;
  logger: Logger;
  now: () => Date;
}

export interface MemberCheckoutInput {
  /** Who acts (the portal's actor on the project's team). */
  actor: Actor;
  projectId: string;
  member: MemberRow;
  planId: string;
  methodId: string;
  /** What the member typed ("" for none). */
  couponCode: string;
  /** The pass window picked (a plan with windows is bought for one); null for none. */
  passWindowId?: string | null;
  /** The member's return addresses for this checkout: success (its page), cancel (the plan). */
  returnUrls(checkoutId: string): { successUrl: string; cancelUrl: string };
}

export interface StartedCheckout {
  checkout: CheckoutRow;
  /** The provider's hosted page, as the provider's API answered it (never taken from the request). */
  url: string;
}

async function saleOf(ctx: DomainContext, input: MemberCheckoutInput): Promise<{ plan: PlanRow; method: PaymentMethodRow }> {
  const plan = (await plansTable
    .rows(ctx)
    .where({ id: input.planId, project_id: input.projectId, status: "published", access_codes_only: false })
    .first()) as PlanRow | undefined;
  if (!plan) throw new CheckoutRefused(404, "That plan is not on sale any more.");
  const method = (await paymentMethodsTable.rows(ctx).where({ id: input.methodId, project_id: input.projectId, enabled: true }).first()) as
    PaymentMethodRow | undefined;
  // The portal takes card payments; Stars are paid in Telegram, through the bot's plan link.
  if (!method || method.provider !== "stripe" || methodsSelling([presentPaymentMethod(method)], plan).length === 0)
    throw new CheckoutRefused(409, "Paying by card is not available for this plan. Go back to the plan to see how it can be bought.");
  return { plan, method };
}

/** Opens the member's checkout and starts the provider's; answers where the member pays. */
export async function startMemberCheckout(deps: MemberCheckoutDeps, input: MemberCheckoutInput): Promise<StartedCheckout> {
  const now = deps.now();
  const { plan, method } = await saleOf(createDomainContext(deps.db, input.actor, now), input);
  const target = await deps.registry.providerFor(method);
  if (!target) throw new CheckoutRefused(503, "Card payments are not available here right now. Nothing was charged; try again later.");
  const code = input.couponCode.trim();
  const { checkout, closed, discount } = await deps.db.transaction(async (trx) => {
    const ctx = createDomainContext(trx, input.actor, now);
    refuseBanned(input.member);
    // A live member hears so before a typed coupon is judged.
    await refuseLiveSubscription(ctx, plan.project_id, input.member.id);
    let discount: CouponDiscount | undefined;
    if (code) {
      const checked = await checkCouponForPlan(ctx, plan, code, input.member.id);
      if (!checked.ok) throw new CheckoutRefused(422, checked.reason, "coupon");
      discount = checked.discount;
    }
    const opened = await openCheckout(ctx, {
      member: input.member,
      plan,
      provider: "stripe",
      paymentMethodId: method.id,
      providerAccount: target.method.account,
      discount: discount ?? null,
      passWindowId: input.passWindowId ?? null,
    });
    return { ...opened, discount };
  });
  // The member's earlier pages can no longer be paid (their checkouts are closed): one trial, one coupon use per member.
  for (const earlier of closed) {
    if (!earlier.provider_checkout_id) continue;
    await target.provider.expireCheckout(target.method, earlier.provider_checkout_id).catch((err: unknown) => {
      deps.logger.warn({ err, checkoutId: earlier.id }, "an earlier checkout page was not closed at the provider; a payment on it is refunded");
    });
  }
  let started;
  try {
    started = await target.provider.startCheckout(target.method, {
      reference: checkout.id,
      planName: plan.name,
      price: checkoutPrice(plan, checkout),
      ...(discount ? { discount } : {}),
      // A pass's page closes as its seat's hold ends, so a payment rarely arrives for a seat that is gone.
      ...(checkout.pass_window_id ? { expiresAt: new Date(deps.now().getTime() + PASS_SEAT_HOLD_MS) } : {}),
      ...input.returnUrls(checkout.id),
    });
  } catch (err) {
    // The open checkout stays (it expires); the member is told plainly and can try again.
    if (accountAccessLost(err)) {
      // The creator disconnected SubBridge in Stripe: no retry can succeed until they connect again, and they are told so.
      deps.logger.warn({ checkoutId: checkout.id, payment_method_id: method.id }, "Stripe refused the method's account: access was revoked");
      await stripeAccessRefused(
        deps.db,
        { teamId: method.team_id, projectId: method.project_id, methodId: method.id, account: target.method.account },
        now,
      );
      throw new CheckoutRefused(409, "This community cannot take card payments right now; its creator has been told. Nothing was charged.");
    }
    deps.logger.error({ err, checkoutId: checkout.id, provider: target.provider.name }, "the provider did not start a checkout");
    throw new CheckoutRefused(503, "The payment provider did not answer. Nothing was charged; try again in a minute.");
  }
  if (!started.url || !started.providerCheckoutId)
    throw new CheckoutRefused(503, "The payment provider gave no payment page. Nothing was charged; try again.");
  await noteProviderCheckout(createDomainContext(deps.db, input.actor, deps.now()), checkout.id, started.providerCheckoutId);
  return { checkout: { ...checkout, provider_checkout_id: started.providerCheckoutId }, url: started.url };
}
