// A project's coupons: a case-sensitive code with one discount (percent_off or amount_off), for
// some or every plan, with an optional limit and expiry. The code and discount never change.
import { randomUUID } from "node:crypto";
import { ApiError, addFieldError, emptyFieldErrors, notFound, validationFailed, type FieldErrors } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { currencyErrors } from "../payment-methods/payment-methods.ts";
import { plansTable } from "../plans/tables.ts";
import { iso, recordCatalogChange, requireProject } from "../resources/catalog-change.ts";
import { couponsTable, type CouponRow } from "./tables.ts";
import { uniquely } from "../../db/unique.ts";

export function presentCoupon(row: CouponRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    code: row.code,
    name: row.name,
    percent_off: row.percent_off,
    amount_off: row.amount_off_minor === null ? null : { amount: Number(row.amount_off_minor), currency: row.currency! },
    plan_ids: [...row.plan_ids],
    max_redemptions: row.max_redemptions,
    redemptions_count: row.redemptions_count,
    expires_at: iso(row.expires_at),
    active: row.active,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type Coupon = ReturnType<typeof presentCoupon>;

async function couponById(ctx: DomainContext, projectId: string, id: string): Promise<CouponRow> {
  const row = (await couponsTable.rows(ctx).where({ id, project_id: projectId }).first()) as CouponRow | undefined;
  if (!row) throw notFound("coupon");
  return row;
}

const SORT: Record<string, string> = { created_at: "created_at", code: "code" };

export async function listCoupons(ctx: DomainContext, projectId: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  const { rows, total } = await sortedPage<CouponRow>(couponsTable.rows(ctx).where({ project_id: projectId }).select("*"), window, SORT);
  return { rows: rows.map(presentCoupon), total };
}

export async function getCoupon(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  return presentCoupon(await couponById(ctx, projectId, id));
}

/** The named plans must be the project's (404 naming the first that is not); a fixed discount is in their currency. */
async function checkPlans(ctx: DomainContext, projectId: string, planIds: readonly string[], currency: string | null, fields: FieldErrors) {
  if (planIds.length === 0) return;
  const plans = (await plansTable
    .rows(ctx)
    .where({ project_id: projectId })
    .whereIn("id", [...planIds])
    .select("id", "currency")) as {
    id: string;
    currency: string;
  }[];
  const missing = planIds.find((id) => !plans.some((p) => p.id === id));
  if (missing)
    throw new ApiError("RESOURCE_NOT_FOUND", `No plan ${missing} in this project is visible to this token.`, { context: { plan_id: missing } });
  const other = plans.find((p) => currency !== null && p.currency !== currency);
  if (other) addFieldError(fields, "amount_off", `the plan ${other.id} is sold in ${other.currency}, not ${currency}`);
}

function checkLimits(fields: FieldErrors, next: { expires_at: Date | null; max_redemptions: number | null; redemptions_count: number }, now: Date) {
  if (next.expires_at !== null && next.expires_at.getTime() <= now.getTime()) addFieldError(fields, "expires_at", "must be in the future");
  if (next.max_redemptions !== null && next.max_redemptions < next.redemptions_count)
    addFieldError(fields, "max_redemptions", `the coupon was already redeemed ${next.redemptions_count} times`);
}

function refuseOn(fields: FieldErrors) {
  if (Object.keys(fields).length) throw validationFailed(fields);
}

export interface CouponInput {
  code: string;
  name?: string | null;
  percent_off?: number;
  amount_off?: { amount: number; currency: string };
  plan_ids?: string[];
  max_redemptions?: number | null;
  expires_at?: string | null;
  active?: boolean;
}

export async function createCoupon(ctx: DomainContext, projectId: string, input: CouponInput) {
  await requireProject(ctx, projectId);
  const fields = emptyFieldErrors();
  if ((input.percent_off === undefined) === (input.amount_off === undefined))
    addFieldError(fields, input.percent_off === undefined ? "percent_off" : "amount_off", "give exactly one of percent_off and amount_off");
  if (input.amount_off) currencyErrors(fields, "amount_off.currency", [input.amount_off.currency]);
  const row = {
    id: randomUUID(),
    project_id: projectId,
    code: input.code,
    name: input.name ?? null,
    percent_off: input.percent_off ?? null,
    amount_off_minor: input.amount_off?.amount ?? null,
    currency: input.amount_off?.currency ?? null,
    plan_ids: input.plan_ids ?? [],
    max_redemptions: input.max_redemptions ?? null,
    redemptions_count: 0,
    expires_at: input.expires_at ? new Date(input.expires_at) : null,
    active: input.active ?? true,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  checkLimits(fields, row, ctx.now);
  if (await couponsTable.rows(ctx).where({ project_id: projectId, code: input.code }).first("id"))
    addFieldError(fields, "code", "the project already has a coupon with this code");
  await checkPlans(ctx, projectId, row.plan_ids, row.currency, fields);
  refuseOn(fields);
  await uniquely(couponsTable.insert(ctx, { ...row, plan_ids: JSON.stringify(row.plan_ids) }), () =>
    validationFailed({ code: ["the project already has a coupon with this code"] }),
  );
  const coupon = presentCoupon({ ...row, team_id: ctx.actor.teamId });
  await recordCouponChange(ctx, coupon, "created");
  return coupon;
}

export type CouponUpdate = Partial<Pick<CouponInput, "name" | "plan_ids" | "max_redemptions" | "expires_at" | "active">>;

export async function updateCoupon(ctx: DomainContext, projectId: string, id: string, input: CouponUpdate) {
  await requireProject(ctx, projectId);
  const row = await couponById(ctx, projectId, id);
  const changes: Partial<CouponRow> = { updated_at: ctx.now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.plan_ids !== undefined) changes.plan_ids = input.plan_ids;
  if (input.max_redemptions !== undefined) changes.max_redemptions = input.max_redemptions;
  if (input.expires_at !== undefined) changes.expires_at = input.expires_at === null ? null : new Date(input.expires_at);
  if (input.active !== undefined) changes.active = input.active;
  const next: CouponRow = { ...row, ...changes };
  const fields = emptyFieldErrors();
  // Only a limit or expiry being set now is checked: one that has passed since may stay.
  checkLimits(fields, { ...next, expires_at: input.expires_at !== undefined ? next.expires_at : null }, ctx.now);
  if (input.plan_ids !== undefined) await checkPlans(ctx, projectId, input.plan_ids, row.currency, fields);
  refuseOn(fields);
  const stored = changes.plan_ids ? { ...changes, plan_ids: JSON.stringify(changes.plan_ids) } : changes;
  await couponsTable.rows(ctx).where({ id }).update(stored);
  const coupon = presentCoupon(next);
  await recordCouponChange(ctx, coupon, "updated");
  return coupon;
}

export async function deleteCoupon(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await couponById(ctx, projectId, id);
  await couponsTable.rows(ctx).where({ id }).delete();
  await recordCouponChange(ctx, presentCoupon(row), "deleted");
}

function recordCouponChange(ctx: DomainContext, coupon: Coupon, action: "created" | "updated" | "deleted") {
  return recordCatalogChange(ctx, { entity: "coupon", action, label: coupon.code, shown: coupon, subject: ["coupon", coupon.id] });
}
