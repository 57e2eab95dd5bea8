// A project's subscription plans: price (integer minor units + ISO 4217 currency), billing cycle,
// trial, the resources granted (in order), and publication: draft -> published -> archived ->
// published. Publishing needs an enabled payment method that supports the currency and the cycle.
import { randomUUID } from "node:crypto";
import { ApiError, addFieldError, domainRefusal, emptyFieldErrors, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { fetchPage, orderClause, type PageWindow } from "../../db/pages.ts";
import { currencyErrors, enabledPaymentMethods } from "../payment-methods/payment-methods.ts";
import { paymentMethodNotConfigured } from "../payment-methods/payments-page.ts";
import { iso, recordCatalogChange, requireProject } from "../resources/catalog-change.ts";
import { resourcesTable, type ResourceRow } from "../resources/tables.ts";
import { subscriptionsTable } from "../subscriptions/tables.ts";
import { planResourcesTable, plansTable, type BillingCycle, type PlanRow, type PlanStatus } from "./tables.ts";
import { uniquely } from "../../db/unique.ts";
import type { ConnectorEnvironment } from "../connectors/environment.ts";
import { refuseUnmanageableRoles } from "../connectors/role-hierarchy.ts";

export function presentPlan(row: PlanRow, resourceIds: readonly string[]) {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    price: { amount: Number(row.amount_minor), currency: row.currency },
    billing_cycle: row.billing_cycle,
    billing_cycle_count: row.billing_cycle_count,
    trial_days: row.trial_days,
    access_codes_only: row.access_codes_only,
    resources: [...resourceIds],
    status: row.status,
    published_at: iso(row.published_at),
    archived_at: iso(row.archived_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type Plan = ReturnType<typeof presentPlan>;

/** Resource ids of each plan, in order. */
async function resourceIdsOf(ctx: DomainContext, planIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = (await planResourcesTable
    .rows(ctx)
    .whereIn("plan_id", [...planIds])
    .orderBy("position")
    .select("plan_id", "resource_id")) as {
    plan_id: string;
    resource_id: string;
  }[];
  const byPlan = new Map<string, string[]>(planIds.map((id) => [id, []]));
  for (const r of rows) byPlan.get(r.plan_id)!.push(r.resource_id);
  return byPlan;
}

export async function planById(ctx: DomainContext, id: string, projectId?: string): Promise<PlanRow> {
  const query = plansTable.rows(ctx).where({ id });
  if (projectId !== undefined) query.andWhere({ project_id: projectId });
  const row = (await query.first()) as PlanRow | undefined;
  if (!row) throw notFound("plan");
  return row;
}

/** A plan the actor can see (404 otherwise), with the resources it grants in order. */
export async function planWithResources(
  ctx: DomainContext,
  planId: string,
  projectId?: string,
): Promise<{ plan: PlanRow; resources: ResourceRow[] }> {
  const plan = await planById(ctx, planId, projectId);
  const ids = (await resourceIdsOf(ctx, [planId])).get(planId)!;
  const rows = (await resourcesTable.rows(ctx).whereIn("id", ids).select("*")) as ResourceRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { plan, resources: ids.flatMap((id) => byId.get(id) ?? []) };
}

async function presented(ctx: DomainContext, row: PlanRow): Promise<Plan> {
  return presentPlan(row, (await resourceIdsOf(ctx, [row.id])).get(row.id)!);
}

const SORT: Record<string, string> = { created_at: "created_at", name: "lower(name)", price: "amount_minor" };

export async function listPlans(ctx: DomainContext, projectId: string, window: PageWindow, status?: PlanStatus) {
  await requireProject(ctx, projectId);
  const sort = SORT[window.sortBy] ?? SORT.created_at!;
  const query = plansTable.rows(ctx).where({ project_id: projectId }).select("*");
  if (status) query.andWhere({ status });
  const { rows, total } = await fetchPage<PlanRow>(query, window, `${orderClause(sort, window.sortDirection)}, id ${window.sortDirection}`);
  const ids = await resourceIdsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return { rows: rows.map((r) => presentPlan(r, ids.get(r.id)!)), total };
}

export async function getPlan(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  return presented(ctx, await planById(ctx, id, projectId));
}

export interface PlanInput {
  name: string;
  description?: string | null;
  price: { amount: number; currency: string };
  billing_cycle: BillingCycle;
  billing_cycle_count?: number;
  trial_days?: number;
  access_codes_only?: boolean;
  resources: string[];
}

/** Field rules beyond the schema: an ISO 4217 currency, count 1 for lifetime, a name unique in the project. */
const TAKEN_NAME = "the project already has a plan of that name";
/** The unique index behind TAKEN_NAME (plans' migration): a race the check cannot see. */
const PLAN_NAME_INDEX = "plans_project_name_unique";
const takenName = () => validationFailed({ name: [TAKEN_NAME] });

async function checkPlan(
  ctx: DomainContext,
  projectId: string,
  next: { name: string; currency: string; billing_cycle: string; billing_cycle_count: number },
  id?: string,
) {
  const fields = currencyErrors(emptyFieldErrors(), "price.currency", [next.currency]);
  if (next.billing_cycle === "lifetime" && next.billing_cycle_count !== 1)
    addFieldError(fields, "billing_cycle_count", "must be 1 for a lifetime plan");
  const same = plansTable.rows(ctx).where({ project_id: projectId, name: next.name });
  if (id) same.whereNot({ id });
  if (await same.first("id")) addFieldError(fields, "name", TAKEN_NAME);
  if (Object.keys(fields).length) throw validationFailed(fields);
}

/** Replaces the plan's resources: ids of this project's resources (404 naming the first that is not). */
async function setResources(ctx: DomainContext, projectId: string, planId: string, ids: readonly string[]) {
  const found = new Set<string>(
    await resourcesTable
      .rows(ctx)
      .where({ project_id: projectId })
      .whereIn("id", [...ids])
      .pluck("id"),
  );
  const missing = ids.find((id) => !found.has(id));
  if (missing)
    throw new ApiError("RESOURCE_NOT_FOUND", `No resource ${missing} in this project is visible to this token.`, {
      context: { resource_id: missing },
    });
  await planResourcesTable.rows(ctx).where({ plan_id: planId }).delete();
  await planResourcesTable.insert(
    ctx,
    ids.map((resource_id, position) => ({ plan_id: planId, resource_id, project_id: projectId, position })),
  );
}

/**
 * Whether an enabled payment method of the project sells this currency and cycle (400 otherwise);
 * `paymentsPage` is where a creator enables one (projectPaymentsPage), named in the refusal.
 */
export async function requireSellable(
  ctx: DomainContext,
  projectId: string,
  currency: string,
  billingCycle: string,
  paymentsPage: string | null = null,
): Promise<void> {
  const methods = await enabledPaymentMethods(ctx, projectId);
  if (methods.length === 0) throw paymentMethodNotConfigured(projectId, paymentsPage);
  const inCurrency = methods.filter((m) => m.currencies.includes(currency));
  if (inCurrency.length === 0)
    throw new ApiError("PLAN_CURRENCY_MISMATCH", `No enabled payment method of the project supports ${currency}.`, { context: { currency } });
  if (!inCurrency.some((m) => (m.billing_cycles as string[]).includes(billingCycle)))
    throw new ApiError("PLAN_PROVIDER_UNSUPPORTED", `No enabled payment method supporting ${currency} supports the billing cycle ${billingCycle}.`, {
      context: { currency, billing_cycle: billingCycle },
    });
}

export async function createPlan(ctx: DomainContext, projectId: string, input: PlanInput) {
  await requireProject(ctx, projectId);
  const row = {
    id: randomUUID(),
    project_id: projectId,
    name: input.name,
    description: input.description ?? null,
    amount_minor: input.price.amount,
    currency: input.price.currency,
    billing_cycle: input.billing_cycle,
    billing_cycle_count: input.billing_cycle_count ?? 1,
    trial_days: input.trial_days ?? 0,
    status: "draft" as const,
    access_codes_only: input.access_codes_only ?? false,
    published_at: null,
    archived_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await checkPlan(ctx, projectId, row);
  await uniquely(plansTable.insert(ctx, row), takenName, PLAN_NAME_INDEX);
  await setResources(ctx, projectId, row.id, input.resources);
  const plan = presentPlan({ ...row, team_id: ctx.actor.teamId }, input.resources);
  await recordPlanChange(ctx, plan, "created");
  return plan;
}

export async function updatePlan(ctx: DomainContext, projectId: string, id: string, input: Partial<PlanInput>, paymentsPage: string | null = null) {
  await requireProject(ctx, projectId);
  const row = await planById(ctx, id, projectId);
  const next: PlanRow = { ...row, updated_at: ctx.now };
  for (const key of ["name", "description", "billing_cycle", "billing_cycle_count", "trial_days", "access_codes_only"] as const)
    if (input[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = input[key];
  if (input.price) Object.assign(next, { amount_minor: input.price.amount, currency: input.price.currency });
  await checkPlan(ctx, projectId, next, id);
  const sellingChanged = next.currency !== row.currency || next.billing_cycle !== row.billing_cycle;
  if (row.status === "published" && sellingChanged) await requireSellable(ctx, projectId, next.currency, next.billing_cycle, paymentsPage);
  const { team_id: _team, id: _id, project_id: _project, ...changes } = next;
  await uniquely(plansTable.rows(ctx).where({ id }).update(changes), takenName, PLAN_NAME_INDEX);
  if (input.resources) await setResources(ctx, projectId, id, input.resources);
  const plan = await presented(ctx, next);
  await recordPlanChange(ctx, plan, "updated");
  return plan;
}

/** Moves a plan to `status` (a plan already there answers unchanged, with no event). */
async function movePlan(ctx: DomainContext, projectId: string, id: string, status: "published" | "archived", paymentsPage: string | null = null) {
  await requireProject(ctx, projectId);
  const row = await planById(ctx, id, projectId);
  if (row.status === status) return presented(ctx, row);
  if (status === "published") await requireSellable(ctx, projectId, row.currency, row.billing_cycle, paymentsPage);
  const stamp = status === "published" ? { published_at: ctx.now, archived_at: null } : { archived_at: ctx.now };
  const next: PlanRow = { ...row, ...stamp, status, updated_at: ctx.now };
  await plansTable
    .rows(ctx)
    .where({ id })
    .update({ ...stamp, status, updated_at: ctx.now });
  const plan = await presented(ctx, next);
  await recordPlanChange(ctx, plan, status);
  return plan;
}

/**
 * Before publishing (the operation's preflight, outside its transaction): a draft or archived
 * plan's platform roles must be ones the bot can give (connectors/role-hierarchy.ts).
 */
export async function checkPlanRoles(ctx: DomainContext, env: ConnectorEnvironment, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const { plan, resources } = await planWithResources(ctx, id, projectId);
  if (plan.status !== "published") await refuseUnmanageableRoles(ctx, env, resources);
}

export const publishPlan = (ctx: DomainContext, projectId: string, id: string, paymentsPage: string | null = null) =>
  movePlan(ctx, projectId, id, "published", paymentsPage);
export const archivePlan = (ctx: DomainContext, projectId: string, id: string) => movePlan(ctx, projectId, id, "archived");

export async function deletePlan(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await planById(ctx, id, projectId);
  if (await subscriptionsTable.rows(ctx).where({ plan_id: id }).first("id"))
    throw domainRefusal("The plan has subscriptions; archive it instead.", { plan_id: id });
  const plan = await presented(ctx, row);
  await plansTable.rows(ctx).where({ id }).delete();
  await recordPlanChange(ctx, plan, "deleted");
}

function recordPlanChange(ctx: DomainContext, plan: Plan, action: "created" | "updated" | "published" | "archived" | "deleted") {
  return recordCatalogChange(ctx, { entity: "plan", action, label: plan.name, shown: plan, subject: ["plan", plan.id] });
}
