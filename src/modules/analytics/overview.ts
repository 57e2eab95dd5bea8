// The dashboard Overview's numbers (see analytics.yaml, "The overview's numbers"): MRR at the
// window's end, new and churned members, failed payments and revenue at risk, per currency. Like
// analytics.ts, each is one aggregate the database computes; the process only arranges the rows.
import type { components } from "../../../generated/openapi.d.ts";
import type { Knex } from "knex";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { eventsTable } from "../events/outbox.ts";
import { subscriptionsTable } from "../subscriptions/tables.ts";

type Schemas = components["schemas"];
export interface OverviewWindow {
  from: Date;
  to: Date;
}

/** Narrows a tenant query (actor's team, allow-list) to one project when asked. */
export function inScope(q: Knex.QueryBuilder, table: string, projectId: string | null): Knex.QueryBuilder {
  return projectId === null ? q : q.where(`${table}.project_id`, projectId);
}

/** knex's raw() for SQL fragments of a query (they read no row by themselves). */
export function rawExpression(ctx: DomainContext): Knex["raw"] {
  const db = unscoped(ctx, "raw SQL fragments of a team-scoped query; they read no row by themselves");
  return db.raw.bind(db) as Knex["raw"];
}

const byCurrency = <T extends { currency: string }>(rows: T[]) => rows.sort((a, b) => (a.currency < b.currency ? -1 : 1));

/** A cycle's price as a share of a month (Stripe's normalisation: a year is 12 months, 52 weeks, 365 days). */
const MONTHLY_FACTOR = `(case plans.billing_cycle
  when 'day' then 365.0 / 12 when 'week' then 52.0 / 12 when 'month' then 1.0 when 'year' then 1.0 / 12 end)
  / plans.billing_cycle_count`;

/**
 * MRR at the window's end, per currency: paid, recurring subscriptions running at `to` and out of
 * their trial, each at its newest payment's amount before `to` (the plan's price before a first
 * payment), normalised to a month; summed exactly and rounded once per currency.
 */
async function monthlyRecurringRevenue(ctx: DomainContext, projectId: string | null, w: OverviewWindow): Promise<Schemas["MrrByCurrency"]> {
  const raw = rawExpression(ctx);
  const rows = (await inScope(subscriptionsTable.rows(ctx), "subscriptions", projectId)
    .join("plans", "plans.id", "subscriptions.plan_id")
    // The payment that pays for the period running at `to` (same team and subscription).
    .joinRaw(
      `left join lateral (select t.amount_minor, t.currency from transactions t
        where t.subscription_id = subscriptions.id and t.team_id = subscriptions.team_id and t.kind = 'payment'
          and t.status in ('succeeded', 'refunded') and t.created_at < ?
        order by t.created_at desc, t.id desc limit 1) paid on true`,
      [w.to],
    )
    .whereNotNull("subscriptions.provider")
    .whereNot("plans.billing_cycle", "lifetime")
    .where("subscriptions.created_at", "<", w.to)
    .where((o) => o.whereNull("subscriptions.expired_at").orWhere("subscriptions.expired_at", ">=", w.to))
    .where((o) => o.whereNull("subscriptions.trial_ends_at").orWhere("subscriptions.trial_ends_at", "<=", w.to))
    .groupByRaw("1")
    .select(
      raw("coalesce(paid.currency, plans.currency) as currency"),
      raw(`round(sum(coalesce(paid.amount_minor, plans.amount_minor) * ${MONTHLY_FACTOR})) as amount`),
      raw("count(*) as subscriptions"),
    )) as { currency: string; amount: string; subscriptions: string }[];
  return byCurrency(rows.map((r) => ({ currency: r.currency, amount: Number(r.amount), subscriptions: Number(r.subscriptions) })));
}

/** Members whose first subscription began in the window, and members whose last one ended in it. */
async function memberMovement(ctx: DomainContext, projectId: string | null, w: OverviewWindow) {
  const firsts = inScope(subscriptionsTable.rows(ctx), "subscriptions", projectId)
    .groupBy("member_id")
    .havingRaw("min(created_at) >= ? and min(created_at) < ?", [w.from, w.to])
    .select("member_id");
  const fresh = await unscoped(ctx, "counts the rows of a team-scoped subquery").count({ n: "*" }).from(firsts.as("firsts")).first();
  const churned = await inScope(subscriptionsTable.rows(ctx), "subscriptions", projectId)
    .where("expired_at", ">=", w.from)
    .where("expired_at", "<", w.to)
    // The member holds no subscription running at the window's end (their own rows: same member id).
    .whereNotExists((q) =>
      q
        .select(1)
        .from("subscriptions as live")
        .whereRaw("live.member_id = subscriptions.member_id and live.team_id = subscriptions.team_id")
        .where("live.created_at", "<", w.to)
        .where((o) => o.whereNull("live.expired_at").orWhere("live.expired_at", ">=", w.to)),
    )
    .countDistinct({ n: "member_id" })
    .first();
  return { new: Number(fresh?.n ?? 0), churned: Number(churned?.n ?? 0) };
}

/** The window's payment.failed events (each failed attempt), counted and added per currency due. */
async function failedPayments(ctx: DomainContext, projectId: string | null, w: OverviewWindow): Promise<Schemas["FailedPaymentsByCurrency"]> {
  const raw = rawExpression(ctx);
  const rows = (await inScope(eventsTable.rows(ctx), "events", projectId)
    .where("type", "payment.failed")
    .where("created_at", ">=", w.from)
    .where("created_at", "<", w.to)
    .groupByRaw("1")
    .select(
      raw("data #>> '{failure,amount,currency}' as currency"),
      raw("count(*) as count"),
      raw("coalesce(sum((data #>> '{failure,amount,amount}')::bigint), 0) as amount"),
    )) as { currency: string; count: string; amount: string }[];
  return byCurrency(rows.map((r) => ({ currency: r.currency, count: Number(r.count), amount: Number(r.amount) })));
}

/** Subscriptions past due now (in their grace) and the renewals they owe (their plans' prices), per currency. */
async function revenueAtRisk(ctx: DomainContext, projectId: string | null): Promise<Schemas["AtRiskByCurrency"]> {
  const raw = rawExpression(ctx);
  const rows = (await inScope(subscriptionsTable.rows(ctx), "subscriptions", projectId)
    .join("plans", "plans.id", "subscriptions.plan_id")
    .where("subscriptions.status", "past_due")
    .groupBy("plans.currency")
    .select("plans.currency", raw("count(*) as subscriptions"), raw("coalesce(sum(plans.amount_minor), 0) as amount"))) as {
    currency: string;
    subscriptions: string;
    amount: string;
  }[];
  return byCurrency(rows.map((r) => ({ currency: r.currency, subscriptions: Number(r.subscriptions), amount: Number(r.amount) })));
}

export async function overviewNumbers(ctx: DomainContext, projectId: string | null, w: OverviewWindow) {
  return {
    members: await memberMovement(ctx, projectId, w),
    mrr: await monthlyRecurringRevenue(ctx, projectId, w),
    failed_payments: await failedPayments(ctx, projectId, w),
    at_risk: await revenueAtRisk(ctx, projectId),
  };
}
