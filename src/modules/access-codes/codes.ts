// Access codes of a plan: generated in batches (a monthly quota per tier, counted at generation
// across the team), listed masked, deleted one by one. A code is a random lowercase UUID v4 (the
// connector bot acts on a bare UUID start payload and the deep link carries the code verbatim),
// shown in full once in the generation response; the table keeps its SHA-256 and a masked form.
import { randomUUID } from "node:crypto";
import { ApiError, domainRefusal, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { fetchPage, orderClause, type PageWindow } from "../../db/pages.ts";
import { sha256Hex } from "../../security/crypto.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { teamTier } from "../teams/tier.ts";
import { teamsTable } from "../teams/tables.ts";
import type { Tier } from "../teams/tier.ts";
import { accessCodesTable, type AccessCodeRow, type AccessCodeStatus } from "./tables.ts";
import { iso } from "../subscriptions/timestamps.ts";

/** Codes a team may generate per calendar month (UTC), by its owner's tier (memberpass-facts 1.2). */
export const MONTHLY_CODE_QUOTA: Record<Tier, number> = { free: 5, starter: 200, growth: 500 };

export function presentAccessCode(row: AccessCodeRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    plan_id: row.plan_id,
    batch_id: row.batch_id,
    code_masked: row.code_masked,
    status: row.status,
    expires_at: iso(row.expires_at),
    redeemed_at: iso(row.redeemed_at),
    redeemed_by_member_id: row.redeemed_by_member_id,
    subscription_id: row.subscription_id,
    created_at: iso(row.created_at),
  };
}

export const hashCode = (code: string) => sha256Hex(code);
export const maskCode = (code: string) => `${code.slice(0, 4)}${"*".repeat(Math.max(0, code.length - 8))}${code.slice(-4)}`;

/** The plan `planId` of the visible project `projectId` (404 otherwise). */
export async function planOfProject(ctx: DomainContext, projectId: string, planId: string): Promise<PlanRow> {
  await assertProjectsVisible(ctx, [projectId]);
  const plan = (await plansTable.rows(ctx).where({ id: planId, project_id: projectId }).first()) as PlanRow | undefined;
  if (!plan) throw notFound("plan");
  return plan;
}

const CODE_SORT: Record<string, string> = { created_at: "created_at", expires_at: "expires_at", redeemed_at: "redeemed_at" };

export async function listAccessCodes(
  ctx: DomainContext,
  projectId: string,
  planId: string,
  filter: { status?: AccessCodeStatus },
  window: PageWindow,
) {
  await planOfProject(ctx, projectId, planId);
  const query = accessCodesTable.rows(ctx).where({ plan_id: planId }).select("*");
  if (filter.status) query.where({ status: filter.status });
  const sort = CODE_SORT[window.sortBy] ?? CODE_SORT.created_at!;
  const { rows, total } = await fetchPage<AccessCodeRow>(query, window, `${orderClause(sort, window.sortDirection)}, id ${window.sortDirection}`);
  return { rows: rows.map(presentAccessCode), total };
}

function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The team's quota this month; the team row is locked so concurrent batches count each other. */
async function remainingQuota(ctx: DomainContext): Promise<{ limit: number; remaining: number }> {
  await teamsTable.rows(ctx).forUpdate().first("id");
  const limit = MONTHLY_CODE_QUOTA[await teamTier(ctx)];
  const used = await accessCodesTable.teamRows(ctx).where("created_at", ">=", monthStart(ctx.now)).count({ n: "*" }).first();
  return { limit, remaining: Math.max(0, limit - Number(used?.n ?? 0)) };
}

export async function generateAccessCodes(
  ctx: DomainContext,
  projectId: string,
  planId: string,
  input: { quantity: number; expires_at?: string | null },
) {
  const plan = await planOfProject(ctx, projectId, planId);
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt <= ctx.now) throw validationFailed({ expires_at: ["must be in the future"] });
  if (plan.status !== "published") throw domainRefusal(`Access codes need a published plan; this one is ${plan.status}.`, { plan_id: plan.id });
  const quota = await remainingQuota(ctx);
  if (input.quantity > quota.remaining) {
    throw new ApiError(
      "ACCESS_CODE_CAP_EXCEEDED",
      `This month's access-code quota allows ${quota.remaining} more code(s); ${input.quantity} were asked for.`,
      {
        context: quota,
      },
    );
  }
  const batchId = randomUUID();
  const made = Array.from({ length: input.quantity }, () => {
    const code = randomUUID();
    const row: AccessCodeRow = {
      id: randomUUID(),
      team_id: ctx.actor.teamId,
      project_id: projectId,
      plan_id: planId,
      batch_id: batchId,
      code_hash: hashCode(code),
      code_masked: maskCode(code),
      status: "unredeemed",
      expires_at: expiresAt,
      redeemed_at: null,
      redeemed_by_member_id: null,
      subscription_id: null,
      expired_at: null,
      created_by_user_id: ctx.actor.userId,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    return { code, row };
  });
  await accessCodesTable.insert(
    ctx,
    made.map((m) => ({ ...m.row })),
  );
  const batch = { batch_id: batchId, plan_id: planId, count: input.quantity, expires_at: iso(expiresAt) };
  await recordActivity(ctx, {
    event: "access_codes_generated",
    description: `${input.quantity} access code(s) generated for ${plan.name}`,
    subjectType: "plan",
    subjectId: planId,
    projectId,
    properties: batch,
  });
  await emitEvent(ctx, { type: "access_code.generated", projectId, data: batch });
  return {
    ...batch,
    quota_remaining: quota.remaining - input.quantity,
    codes: made.map(({ code, row }) => ({ ...presentAccessCode(row), code })),
  };
}

export async function recordCodeChange(
  ctx: DomainContext,
  row: AccessCodeRow,
  event: "redeemed" | "expired" | "deleted",
  data: Record<string, unknown> = {},
) {
  const accessCode = presentAccessCode(row);
  await recordActivity(ctx, {
    event,
    description: `Access code ${row.code_masked} ${event}`,
    subjectType: "access-code",
    subjectId: row.id,
    projectId: row.project_id,
    properties: { access_code: accessCode, ...data },
  });
  await emitEvent(ctx, { type: `access_code.${event}`, projectId: row.project_id, data: { access_code: accessCode, ...data } });
}

export async function deleteAccessCode(ctx: DomainContext, projectId: string, planId: string, id: string): Promise<void> {
  await planOfProject(ctx, projectId, planId);
  const row = (await accessCodesTable.rows(ctx).where({ id, plan_id: planId }).first()) as AccessCodeRow | undefined;
  if (!row) throw notFound("access code");
  await accessCodesTable.rows(ctx).where({ id }).delete();
  await recordCodeChange(ctx, row, "deleted");
}
