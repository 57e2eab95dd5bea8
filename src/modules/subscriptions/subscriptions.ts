// Subscriptions: what a member bought. States (see subscriptions.yaml): trialing or active at
// creation, canceled (access until ends_at) on cancel, expired once ends_at passes (the expiry job)
// or at once when a lifetime subscription is cancelled. Ending one revokes its grants and derives
// the member's status again.
import { randomUUID } from "node:crypto";
import { ApiError, domainRefusal, notFound } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { fetchPage, orderClause, type PageWindow } from "../../db/pages.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import type { BillingCycle, PlanRow } from "../plans/tables.ts";
import { memberSummary } from "../members/members.ts";
import { refreshMemberStatus } from "../members/status.ts";
import type { MemberRow } from "../members/tables.ts";
import { revokeGrants } from "./grants.ts";
import { isLive, LIVE_STATUSES, subscriptionsTable, type SubscriptionRow, type SubscriptionStatus } from "./tables.ts";
import { iso } from "./timestamps.ts";
import { uniquely } from "../../db/unique.ts";
import { queueAccessEndedNotice } from "../notices/notices.ts";

export function presentSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    plan_id: row.plan_id,
    member_id: row.member_id,
    status: row.status,
    source: row.source,
    started_at: iso(row.started_at),
    trial_ends_at: iso(row.trial_ends_at),
    ends_at: iso(row.ends_at),
    canceled_at: iso(row.canceled_at),
    expired_at: iso(row.expired_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type Subscription = ReturnType<typeof presentSubscription>;

/** `from` moved on by `count` billing cycles (calendar arithmetic in UTC); null for lifetime. */
export function periodEnd(from: Date, cycle: BillingCycle, count: number): Date | null {
  const end = new Date(from);
  if (cycle === "lifetime") return null;
  if (cycle === "day") end.setUTCDate(end.getUTCDate() + count);
  if (cycle === "week") end.setUTCDate(end.getUTCDate() + 7 * count);
  if (cycle === "month") end.setUTCMonth(end.getUTCMonth() + count);
  if (cycle === "year") end.setUTCFullYear(end.getUTCFullYear() + count);
  return end;
}

export async function recordSubscriptionChange(
  ctx: DomainContext,
  row: SubscriptionRow,
  change: { event: string; description: string; data?: Record<string, unknown> },
) {
  const subscription = presentSubscription(row);
  await recordActivity(ctx, {
    event: change.event,
    description: change.description,
    subjectType: "subscription",
    subjectId: row.id,
    projectId: row.project_id,
    properties: { subscription },
  });
  await emitEvent(ctx, { type: `subscription.${change.event}`, projectId: row.project_id, data: { subscription, ...change.data } });
}

/**
 * How long a provider-billed subscription keeps access past its period's end: while the provider's
 * renewal report is on its way (Stripe invoices an hour after the period ends) or after a failed
 * renewal (past_due), before it expires. The stated grace: no access without a covering payment beyond it.
 */
export const PAYMENT_GRACE_MS = 3 * 24 * 3600_000;

/** What a payment provider reports of the subscription it bills: its id and the dates it set. */
export interface ProviderTerms {
  provider: string;
  providerSubscriptionId: string | null;
  paymentMethodId: string | null;
  trialEndsAt: Date | null;
  /** The end of the period paid for; null for lifetime. */
  endsAt: Date | null;
}

/**
 * A new subscription of `member` to `plan`: trialing when the plan has a trial (trial_ends_at), the
 * paid period following it (ends_at; null for lifetime); with `terms`, the provider's dates instead
 * of the plan's. One live subscription per member and project: SUBSCRIPTION_ALREADY_ACTIVE (the
 * unique index holds it under races too).
 */
export async function createSubscription(
  ctx: DomainContext,
  input: { member: MemberRow; plan: PlanRow; source: string; terms?: ProviderTerms; pass?: { windowId: string; grantsDueAt: Date | null } },
): Promise<SubscriptionRow> {
  const { member, plan } = input;
  await refuseLiveSubscription(ctx, plan.project_id, member.id);
  const { terms } = input;
  const trialEnds = terms ? terms.trialEndsAt : plan.trial_days > 0 ? periodEnd(ctx.now, "day", plan.trial_days) : null;
  const row: SubscriptionRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: plan.project_id,
    member_id: member.id,
    plan_id: plan.id,
    status: trialEnds ? "trialing" : "active",
    source: input.source,
    started_at: ctx.now,
    trial_ends_at: trialEnds,
    ends_at: terms ? terms.endsAt : periodEnd(trialEnds ?? ctx.now, plan.billing_cycle, plan.billing_cycle_count),
    canceled_at: null,
    expired_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
    ...(terms ? { provider: terms.provider, provider_subscription_id: terms.providerSubscriptionId, payment_method_id: terms.paymentMethodId } : {}),
    ...(input.pass ? { pass_window_id: input.pass.windowId, grants_due_at: input.pass.grantsDueAt } : {}),
  };
  // subscriptions_one_live: a concurrent transaction created the member's live subscription.
  await uniquely(subscriptionsTable.insert(ctx, { ...row }), () => alreadyActive(member.id), "subscriptions_one_live");
  await recordSubscriptionChange(ctx, row, {
    event: "created",
    description: `Subscription to ${plan.name} created`,
    data: { member: memberSummary(member) },
  });
  return row;
}

/** SUBSCRIPTION_ALREADY_ACTIVE when the member has a live subscription on the project. */
export async function refuseLiveSubscription(ctx: DomainContext, projectId: string, memberId: string): Promise<void> {
  const live = await subscriptionsTable.rows(ctx).where({ project_id: projectId, member_id: memberId }).whereIn("status", LIVE_STATUSES).first("id");
  if (live) throw alreadyActive(memberId);
}

function alreadyActive(memberId: string): ApiError {
  return new ApiError("SUBSCRIPTION_ALREADY_ACTIVE", "The member already has a live subscription on this project.", {
    context: { member_id: memberId },
  });
}

const SUB_SORT: Record<string, string> = { created_at: "created_at", ends_at: "ends_at", started_at: "started_at" };

export async function listSubscriptions(ctx: DomainContext, filter: { status?: SubscriptionStatus; plan_id?: string }, window: PageWindow) {
  const query = subscriptionsTable.rows(ctx).select("*");
  if (filter.status) query.where({ status: filter.status });
  if (filter.plan_id) query.where({ plan_id: filter.plan_id });
  const sort = SUB_SORT[window.sortBy] ?? SUB_SORT.created_at!;
  const { rows, total } = await fetchPage<SubscriptionRow>(query, window, `${orderClause(sort, window.sortDirection)}, id ${window.sortDirection}`);
  return { rows: rows.map(presentSubscription), total };
}

async function subscriptionById(ctx: DomainContext, id: string, lock = false): Promise<SubscriptionRow> {
  const query = subscriptionsTable.rows(ctx).where({ id });
  if (lock) query.forUpdate();
  const row = (await query.first()) as SubscriptionRow | undefined;
  if (!row) throw notFound("subscription");
  return row;
}

export async function getSubscription(ctx: DomainContext, id: string) {
  return presentSubscription(await subscriptionById(ctx, id));
}

/**
 * Ends access now: expired, its grants revoked (member.resource_removed per granted one),
 * subscription.expired, and the member's status derived again (member.churned when it was the
 * last). Answers null when it had already expired (a second run changes nothing).
 */
export async function expireSubscription(ctx: DomainContext, id: string): Promise<SubscriptionRow | null> {
  const changes = { status: "expired" as const, expired_at: ctx.now, updated_at: ctx.now };
  const moved = await subscriptionsTable.rows(ctx).where({ id }).whereNot({ status: "expired" }).update(changes);
  if (!moved) return null;
  const row = { ...(await subscriptionById(ctx, id)), ...changes };
  await recordSubscriptionChange(ctx, row, { event: "expired", description: "Subscription expired; access removed" });
  await queueAccessEndedNotice(ctx, row);
  await revokeGrants(ctx, { subscription_id: id });
  await refreshMemberStatus(ctx, row.project_id, row.member_id);
  return row;
}

/**
 * Cancels a live subscription, keeping access until ends_at (the expiry job ends it). With `endsNow`
 * (a ban) or no end (lifetime) access ends at once: ends_at becomes now, and a lifetime one expires.
 */
export async function cancelSubscriptionRow(ctx: DomainContext, row: SubscriptionRow, options: { endsNow?: boolean } = {}): Promise<SubscriptionRow> {
  const changes: Partial<SubscriptionRow> = { status: "canceled", canceled_at: row.canceled_at ?? ctx.now, updated_at: ctx.now };
  if (options.endsNow || row.ends_at === null) changes.ends_at = ctx.now;
  await subscriptionsTable.rows(ctx).where({ id: row.id }).update(changes);
  const canceled = { ...row, ...changes };
  if (row.status !== "canceled") await recordSubscriptionChange(ctx, canceled, { event: "cancelled", description: "Subscription cancelled" });
  if (row.ends_at === null && !options.endsNow) return (await expireSubscription(ctx, row.id)) ?? canceled;
  return canceled;
}

/**
 * Withdraws a cancellation at period end (the provider reports the subscription renewing again):
 * active again (trialing while its trial runs), canceled_at cleared, subscription.reactivated.
 * Null when it cannot be: it is not cancelled, its access has ended (ends_at passed, a ban's
 * included), or the member holds another live subscription on the project since.
 */
export async function withdrawCancellation(ctx: DomainContext, row: SubscriptionRow): Promise<SubscriptionRow | null> {
  if (row.status !== "canceled" || row.ends_at === null || new Date(row.ends_at) <= ctx.now) return null;
  const other = await subscriptionsTable
    .rows(ctx)
    .where({ project_id: row.project_id, member_id: row.member_id })
    .whereIn("status", LIVE_STATUSES)
    .first("id");
  if (other) return null;
  const status = row.trial_ends_at && new Date(row.trial_ends_at) > ctx.now ? ("trialing" as const) : ("active" as const);
  const changes = { status, canceled_at: null, updated_at: ctx.now };
  await subscriptionsTable.rows(ctx).where({ id: row.id }).update(changes);
  const reactivated = { ...row, ...changes };
  await recordSubscriptionChange(ctx, reactivated, { event: "reactivated", description: "Cancellation withdrawn: the subscription renews again" });
  return reactivated;
}

/**
 * Cancels a live subscription: access until ends_at (the default), or with `atPeriodEnd` false,
 * access ends now (cancelled, then expired: grants revoked, the member's status derived again).
 */
export async function cancelSubscription(ctx: DomainContext, id: string, options: { atPeriodEnd?: boolean } = {}) {
  const row = await subscriptionById(ctx, id, true);
  // A cancelled one whose access still runs may still be ended now.
  const endNow = options.atPeriodEnd === false && isLive(row, ctx.now);
  if (!LIVE_STATUSES.includes(row.status) && !endNow) {
    throw domainRefusal(`The subscription is already ${row.status}.`, { subscription_id: row.id });
  }
  if (endNow) {
    await cancelSubscriptionRow(ctx, row, { endsNow: true });
    return presentSubscription((await expireSubscription(ctx, row.id)) ?? (await subscriptionById(ctx, id)));
  }
  return presentSubscription(await cancelSubscriptionRow(ctx, row));
}

/**
 * Moves a live subscription's ends_at later by `days`, free (activity event extended; the
 * description defines no webhook event for it). A provider-billed one is refused
 * (SUBSCRIPTION_PROVIDER_BILLED): the provider owns its period and would renew on its own date.
 */
export async function extendSubscription(ctx: DomainContext, id: string, days: number) {
  const row = await subscriptionById(ctx, id, true);
  if (row.provider) {
    throw new ApiError(
      "SUBSCRIPTION_PROVIDER_BILLED",
      `The subscription is billed by ${row.provider}, which owns its billing period; it cannot be extended here. Nothing was changed.`,
      { context: { subscription_id: row.id, provider: row.provider } },
    );
  }
  if (!isLive(row, ctx.now))
    throw domainRefusal(`The subscription has ended (${row.status}); only a live one can be extended.`, { subscription_id: row.id });
  if (row.ends_at === null) throw domainRefusal("The subscription is lifetime: it has no end to move.", { subscription_id: row.id });
  const endsAt = periodEnd(new Date(row.ends_at), "day", days)!;
  const changes = { ends_at: endsAt, updated_at: ctx.now };
  await subscriptionsTable.rows(ctx).where({ id: row.id }).update(changes);
  const extended = { ...row, ...changes };
  await recordActivity(ctx, {
    event: "extended",
    description: `Subscription extended by ${days} day${days === 1 ? "" : "s"}`,
    subjectType: "subscription",
    subjectId: row.id,
    projectId: row.project_id,
    properties: { subscription: presentSubscription(extended), days, previous_ends_at: iso(row.ends_at), ends_at: iso(endsAt) },
  });
  return presentSubscription(extended);
}
