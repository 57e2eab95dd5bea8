// Redeeming an access code: the connector bot's path (a bare UUID start payload) and the portal's.
// The code is claimed with a conditional update, so of two redemptions at once exactly one wins
// (the other waits for the row and finds it redeemed). Then the member is found or created, the
// subscription created (with its transaction: nothing paid) and one grant per plan resource
// opened; events subscription.created, member.joined (the member's first subscription),
// access_code.redeemed, in that order. Everything
// happens in the caller's transaction: a refusal after the claim (a banned member, a live
// subscription) rolls the claim back and the code stays unredeemed.
import { ApiError } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { findOrCreateMember, memberSummary, refuseBanned, type PlatformAccount } from "../members/members.ts";
import { memberSubscribed } from "../members/joining.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { grantPlanResources, type Grant } from "../subscriptions/grants.ts";
import { createSubscription, presentSubscription, type Subscription } from "../subscriptions/subscriptions.ts";
import type { CreatorTask } from "../creator-tasks/tasks.ts";
import { presentMember } from "../members/members.ts";
import { recordRedemption } from "../transactions/transactions.ts";
import { hashCode, recordCodeChange } from "./codes.ts";
import { accessCodesTable, type AccessCodeRow } from "./tables.ts";

export interface RedeemInput {
  projectId: string;
  code: string;
  member: PlatformAccount;
}

export interface Redemption {
  member: ReturnType<typeof presentMember>;
  subscription: Subscription;
  grants: Grant[];
  tasks: CreatorTask[];
}

const refusal = {
  invalid: () => new ApiError("ACCESS_CODE_INVALID", "No access code of this project matches (codes are case-sensitive)."),
  expired: (row: AccessCodeRow) => new ApiError("ACCESS_CODE_EXPIRED", "The access code has expired.", { context: { access_code_id: row.id } }),
  redeemed: (row: AccessCodeRow) =>
    new ApiError("ACCESS_CODE_ALREADY_REDEEMED", "The access code was already used.", { context: { access_code_id: row.id } }),
};

function refuseUnusable(row: AccessCodeRow, now: Date): void {
  if (row.status === "redeemed") throw refusal.redeemed(row);
  if (row.status === "expired" || (row.expires_at !== null && new Date(row.expires_at) <= now)) throw refusal.expired(row);
}

/** Claims the code for this redemption (unredeemed and not past its expiry), or says why not. */
async function claimCode(ctx: DomainContext, input: RedeemInput): Promise<AccessCodeRow> {
  const found = (await accessCodesTable
    .rows(ctx)
    .where({ project_id: input.projectId, code_hash: hashCode(input.code) })
    .first()) as AccessCodeRow | undefined;
  if (!found) throw refusal.invalid();
  refuseUnusable(found, ctx.now);
  const claim = { status: "redeemed" as const, redeemed_at: ctx.now, updated_at: ctx.now };
  const claimed = await accessCodesTable
    .rows(ctx)
    .where({ id: found.id, status: "unredeemed" })
    .where((q) => q.whereNull("expires_at").orWhere("expires_at", ">", ctx.now))
    .update(claim);
  if (!claimed) {
    // Another redemption (or the expiry job) got there first.
    refuseUnusable((await accessCodesTable.rows(ctx).where({ id: found.id }).first()) as AccessCodeRow, ctx.now);
    throw refusal.redeemed(found);
  }
  return { ...found, ...claim };
}

export async function redeemAccessCode(ctx: DomainContext, input: RedeemInput): Promise<Redemption> {
  const code = await claimCode(ctx, input);
  const plan = (await plansTable.rows(ctx).where({ id: code.plan_id }).first()) as PlanRow;
  const { member: found } = await findOrCreateMember(ctx, input.projectId, input.member);
  refuseBanned(found);
  const subscription = await createSubscription(ctx, { member: found, plan, source: "access_code" });
  const member = await memberSubscribed(ctx, found, { subscriptionId: subscription.id, planId: plan.id, through: "an access code" });
  const redeemed = { ...code, redeemed_by_member_id: member.id, subscription_id: subscription.id };
  await accessCodesTable.rows(ctx).where({ id: code.id }).update({ redeemed_by_member_id: member.id, subscription_id: subscription.id });
  await recordCodeChange(ctx, redeemed, "redeemed", { member: memberSummary(member) });
  await recordRedemption(ctx, { plan, memberId: member.id, subscriptionId: subscription.id, accessCodeId: code.id });
  const { grants, tasks } = await grantPlanResources(ctx, { subscription, member, plan });
  return { member: presentMember(member), subscription: presentSubscription(subscription), grants, tasks };
}
