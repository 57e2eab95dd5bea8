// A member's checkout of a plan: opened before the provider is asked (its id is the reference the
// provider echoes back), completed once by the provider's report (apply.ts). A member with a live
// subscription on the project is refused before any money is asked for; one who pays twice anyway
// (two checkouts open at once) gets the second refunded (the outcome "superseded").
import { randomUUID } from "node:crypto";
import { createDomainContext, systemActor, type Db, type DomainContext } from "../../db/tenant.ts";
import { UUID } from "../../uuid.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import type { PlanRow } from "../plans/tables.ts";
import { refuseLiveSubscription } from "../subscriptions/subscriptions.ts";
import type { ProviderName } from "./provider.ts";
import { checkoutsTable, type CheckoutRow } from "./tables.ts";

export async function openCheckout(
  ctx: DomainContext,
  input: { member: MemberRow; plan: PlanRow; provider: ProviderName; paymentMethodId: string | null; couponId?: string | null },
): Promise<CheckoutRow> {
  await refuseLiveSubscription(ctx, input.plan.project_id, input.member.id);
  const row: CheckoutRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: input.plan.project_id,
    member_id: input.member.id,
    plan_id: input.plan.id,
    payment_method_id: input.paymentMethodId,
    provider: input.provider,
    provider_checkout_id: null,
    status: "open",
    subscription_id: null,
    coupon_id: input.couponId ?? null,
    created_at: ctx.now,
    completed_at: null,
  };
  await checkoutsTable.insert(ctx, { ...row });
  return row;
}

/** Remembers the provider's id of the checkout (a Checkout Session), once it has answered. */
export async function noteProviderCheckout(ctx: DomainContext, checkoutId: string, providerCheckoutId: string): Promise<void> {
  await checkoutsTable.rows(ctx).where({ id: checkoutId }).update({ provider_checkout_id: providerCheckoutId });
}

/**
 * Whether the checkout `reference` may be paid now by the platform account `payer` on `teamId`'s
 * installation: still open, the payer its member, no live subscription since. What a pre-checkout
 * query is answered with; the reason is shown to the member.
 */
export async function payableCheckout(
  db: Db,
  input: { reference: string; teamId: string; connectorKey: string; externalUserId: string },
  now: Date,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const ctx = createDomainContext(db, systemActor(input.teamId), now);
  const checkout = UUID.test(input.reference)
    ? ((await checkoutsTable.rows(ctx).where({ id: input.reference }).first()) as CheckoutRow | undefined)
    : undefined;
  if (!checkout) return { ok: false, reason: "This invoice is not one of this community's: nothing was charged." };
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
