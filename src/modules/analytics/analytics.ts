// Dashboard numbers (see analytics.yaml): aggregates the database computes over a window, for the
// team's projects the actor may see or for one project. Nothing here loads a subscription or a
// transaction into the process: each query answers one row per plan (or per plan and currency)
// plus its totals (GROUPING SETS), and the process only arranges those rows.
import type { components } from "../../../generated/openapi.d.ts";
import { addFieldError, emptyFieldErrors, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { plansTable } from "../plans/tables.ts";
import { requireProject } from "../resources/catalog-change.ts";
import { subscriptionsTable } from "../subscriptions/tables.ts";
import { transactionsTable } from "../transactions/tables.ts";
import { inScope, overviewNumbers, rawExpression } from "./overview.ts";

export type PeriodName = "7d" | "14d" | "30d" | "60d" | "90d";
const DAY_MS = 86_400_000;
const MAX_WINDOW_DAYS = 366;

export interface WindowQuery {
  period: PeriodName;
  from?: string;
  to?: string;
}

interface Window {
  preset: PeriodName | null;
  from: Date;
  to: Date;
}

/** The window asked for: `to` defaults to now, `from` to `to` minus the period (from wins over period). */
export function analyticsWindow(query: WindowQuery, now: Date): Window {
  const to = query.to === undefined ? now : new Date(query.to);
  const from = query.from === undefined ? new Date(to.getTime() - Number.parseInt(query.period, 10) * DAY_MS) : new Date(query.from);
  const fields = emptyFieldErrors();
  if (from.getTime() >= to.getTime()) addFieldError(fields, "from", "must be before to");
  else if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS)
    addFieldError(fields, "from", `the window spans at most ${MAX_WINDOW_DAYS} days`);
  if (Object.keys(fields).length) throw validationFailed(fields);
  return { preset: query.from === undefined ? query.period : null, from, to };
}

/** The answer's shapes, as the spec declares them. */
type SubscriptionCounts = components["schemas"]["SubscriptionCounts"];
type Revenue = components["schemas"]["RevenueByCurrency"][number];

const ZERO: SubscriptionCounts = { active: 0, new: 0, canceled: 0, expired: 0 };

/**
 * Subscription counts per plan (each plan with a subscription alive at some point of the window)
 * and over all of them (the rollup row, plan_id null).
 */
async function subscriptionCounts(ctx: DomainContext, projectId: string | null, w: Window) {
  const q = inScope(subscriptionsTable.rows(ctx), "subscriptions", projectId);
  const raw = rawExpression(ctx);
  const inWindow = (column: string) => `count(*) filter (where ${column} >= ? and ${column} < ?)`;
  const rows = (await q
    .where("created_at", "<", w.to)
    .where((o) => o.whereNull("expired_at").orWhere("expired_at", ">=", w.from))
    .groupByRaw("rollup (plan_id)")
    .select(
      "plan_id",
      raw("count(*) filter (where expired_at is null or expired_at >= ?) as active", [w.to]),
      raw(`${inWindow("created_at")} as new`, [w.from, w.to]),
      raw(`${inWindow("canceled_at")} as canceled`, [w.from, w.to]),
      raw(`${inWindow("expired_at")} as expired`, [w.from, w.to]),
    )) as ({ plan_id: string } & Record<keyof SubscriptionCounts, string | number>)[];
  const counted = rows.map((r) => ({
    plan_id: r.plan_id,
    counts: { active: Number(r.active), new: Number(r.new), canceled: Number(r.canceled), expired: Number(r.expired) },
  }));
  return { perPlan: counted.filter((r) => r.plan_id !== null), total: counted.find((r) => r.plan_id === null)?.counts ?? ZERO };
}

/** Distinct members with a subscription granting access at the window's end. */
async function activeMembers(ctx: DomainContext, projectId: string | null, w: Window): Promise<number> {
  const row = await inScope(subscriptionsTable.rows(ctx), "subscriptions", projectId)
    .where("created_at", "<", w.to)
    .where((o) => o.whereNull("expired_at").orWhere("expired_at", ">=", w.to))
    .countDistinct({ n: "member_id" })
    .first();
  return Number(row?.n ?? 0);
}

/**
 * Revenue per plan and currency, and per currency (is_total), over the window's succeeded or
 * refunded transactions: payments, less refunds and lost disputes (a dispute row is succeeded only
 * once lost; open ones are pending and won ones failed, so they take nothing), less the fees.
 * Amounts stay in each currency's minor units and are never added across currencies (XTR included).
 */
async function revenueRows(ctx: DomainContext, projectId: string | null, w: Window) {
  const q = inScope(transactionsTable.rows(ctx), "transactions", projectId);
  const raw = rawExpression(ctx);
  const paid = "kind = 'payment'";
  const rows = (await q
    .where("created_at", ">=", w.from)
    .where("created_at", "<", w.to)
    .whereIn("status", ["succeeded", "refunded"])
    .groupByRaw("grouping sets ((plan_id, currency), (currency))")
    .select(
      "plan_id",
      "currency",
      raw("grouping(plan_id) = 1 as is_total"),
      raw(`coalesce(sum(amount_minor) filter (where ${paid}), 0) as gross`),
      raw("coalesce(sum(amount_minor) filter (where kind = 'refund'), 0) as refunded"),
      raw("coalesce(sum(amount_minor) filter (where kind = 'dispute'), 0) as disputed"),
      raw(`coalesce(sum(fee_minor) filter (where ${paid}), 0) as fees`),
      raw("count(*) as transactions"),
      raw("count(*) filter (where kind = 'access_code_redemption') as redemptions"),
    )) as {
    plan_id: string | null;
    is_total: boolean;
    currency: string;
    gross: string;
    refunded: string;
    disputed: string;
    fees: string;
    transactions: string;
    redemptions: string;
  }[];
  return rows.map((r) => {
    const gross = Number(r.gross);
    const refunded = Number(r.refunded);
    const disputed = Number(r.disputed);
    const fees = Number(r.fees);
    const revenue: Revenue = {
      currency: r.currency,
      gross,
      refunded,
      disputed,
      fees,
      net: gross - refunded - disputed - fees,
      transactions: Number(r.transactions),
      redemptions: Number(r.redemptions),
    };
    return { plan_id: r.plan_id, isTotal: r.is_total, revenue };
  });
}

const byCode = (a: Revenue, b: Revenue) => (a.currency < b.currency ? -1 : 1);

export async function dashboardNumbers(ctx: DomainContext, projectId: string | null, query: WindowQuery) {
  if (projectId !== null) await requireProject(ctx, projectId);
  const w = analyticsWindow(query, ctx.now);
  const counts = await subscriptionCounts(ctx, projectId, w);
  const revenue = await revenueRows(ctx, projectId, w);
  const members = await activeMembers(ctx, projectId, w);
  const overview = await overviewNumbers(ctx, projectId, w);
  const planRevenue = revenue.filter((r) => !r.isTotal && r.plan_id !== null);
  const planIds = [...new Set([...counts.perPlan.map((c) => c.plan_id), ...planRevenue.map((r) => r.plan_id!)])];
  const plans = planIds.length
    ? ((await plansTable.rows(ctx).whereIn("id", planIds).select("id", "project_id", "name")) as { id: string; project_id: string; name: string }[])
    : [];
  const perPlan = plans
    .map((p) => ({
      plan_id: p.id,
      project_id: p.project_id,
      name: p.name,
      subscriptions: counts.perPlan.find((c) => c.plan_id === p.id)?.counts ?? ZERO,
      revenue: planRevenue
        .filter((r) => r.plan_id === p.id)
        .map((r) => r.revenue)
        .sort(byCode),
    }))
    .sort((a, b) => b.subscriptions.active - a.subscriptions.active || a.name.localeCompare(b.name) || (a.plan_id < b.plan_id ? -1 : 1));
  return {
    project_id: projectId,
    period: { preset: w.preset, from: w.from.toISOString(), to: w.to.toISOString() },
    members: { active: members, ...overview.members },
    subscriptions: counts.total,
    revenue: revenue
      .filter((r) => r.isTotal)
      .map((r) => r.revenue)
      .sort(byCode),
    mrr: overview.mrr,
    failed_payments: overview.failed_payments,
    at_risk: overview.at_risk,
    plans: perPlan,
  };
}
