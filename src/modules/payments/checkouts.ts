// A member's checkout of a plan: opened before the provider is asked (its id is the reference the
// provider echoes back), completed once by the provider's report (apply.ts). A member with a live
// subscription on the project is refused before any money is asked for; one who pays twice anyway
// (two checkouts open at once) gets the second refunded (the outcome "superseded").
import { randomUUID } from "node:crypto";
import type { DomainContext } from "../../db/tenant.ts";
import type { MemberRow } from "../members/tables.ts";
import type { PlanRow } from "../plans/tables.ts";
import { refuseLiveSubscription } from "../subscriptions/subscriptions.ts";
import type { ProviderName } from "./provider.ts";
import { checkoutsTable, type CheckoutRow } from "./tables.ts";

export async function openCheckout(
  ctx: DomainContext,
  input: { member: MemberRow; plan: PlanRow; provider: ProviderName; paymentMethodId: string | null },
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
