// The dated windows a plan sells passes for (a creator task of a window is due at its start).
// Their activity entries are their plan's: pass windows have no activity subject of their own.
// A read shows its seats (seats.ts). A window someone started to buy is not deleted, and once a
// pass is sold its dates stay: the passes' access follows the dates they were bought for.
import { randomUUID } from "node:crypto";
import { domainRefusal, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { alertPassWindow } from "../alerts/producers.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { planById } from "../plans/plans.ts";
import { passWindowsTable, type PassWindowRow } from "../plans/tables.ts";
import { checkoutsTable } from "../payments/tables.ts";
import { iso, recordCatalogChange, requireProject } from "../resources/catalog-change.ts";
import { seatsOf, seatsTakenBy } from "./seats.ts";

export function presentPassWindow(row: PassWindowRow, taken = 0) {
  return {
    id: row.id,
    project_id: row.project_id,
    plan_id: row.plan_id,
    name: row.name,
    starts_at: iso(row.starts_at)!,
    ends_at: iso(row.ends_at)!,
    capacity: row.capacity,
    ...seatsOf(row, taken),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export type PassWindow = ReturnType<typeof presentPassWindow>;

/** The plan of the path, in the path's project (404 otherwise). */
async function requirePlan(ctx: DomainContext, projectId: string, planId: string) {
  await requireProject(ctx, projectId);
  return planById(ctx, planId, projectId);
}

async function windowById(ctx: DomainContext, planId: string, id: string): Promise<PassWindowRow> {
  const row = (await passWindowsTable.rows(ctx).where({ id, plan_id: planId }).first()) as PassWindowRow | undefined;
  if (!row) throw notFound("pass window");
  return row;
}

const SORT: Record<string, string> = { created_at: "created_at", starts_at: "starts_at", name: "lower(name)" };

export async function listPassWindows(ctx: DomainContext, projectId: string, planId: string, window: PageWindow) {
  await requirePlan(ctx, projectId, planId);
  const { rows, total } = await sortedPage<PassWindowRow>(passWindowsTable.rows(ctx).where({ plan_id: planId }).select("*"), window, SORT);
  const taken = await seatsTakenBy(
    ctx,
    rows.map((r) => r.id),
    ctx.now,
  );
  return { rows: rows.map((r) => presentPassWindow(r, taken.get(r.id))), total };
}

/** `row` as read, with its seats taken now. */
async function presentWithSeats(ctx: DomainContext, row: PassWindowRow) {
  return presentPassWindow(row, (await seatsTakenBy(ctx, [row.id], ctx.now)).get(row.id));
}

export async function getPassWindow(ctx: DomainContext, projectId: string, planId: string, id: string) {
  await requirePlan(ctx, projectId, planId);
  return presentWithSeats(ctx, await windowById(ctx, planId, id));
}

export interface PassWindowInput {
  name: string;
  starts_at: string;
  ends_at: string;
  capacity?: number | null;
}

function checkDates(startsAt: Date, endsAt: Date) {
  if (endsAt.getTime() <= startsAt.getTime()) throw validationFailed({ ends_at: ["must be after starts_at"] });
}

export async function createPassWindow(ctx: DomainContext, projectId: string, planId: string, input: PassWindowInput) {
  await requirePlan(ctx, projectId, planId);
  const row = {
    id: randomUUID(),
    project_id: projectId,
    plan_id: planId,
    name: input.name,
    starts_at: new Date(input.starts_at),
    ends_at: new Date(input.ends_at),
    capacity: input.capacity ?? null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  checkDates(row.starts_at, row.ends_at);
  await passWindowsTable.insert(ctx, row);
  const window = presentPassWindow({ ...row, team_id: ctx.actor.teamId });
  await recordWindowChange(ctx, window, "created");
  await alertPassWindow(ctx, window);
  return window;
}

export async function updatePassWindow(ctx: DomainContext, projectId: string, planId: string, id: string, input: Partial<PassWindowInput>) {
  await requirePlan(ctx, projectId, planId);
  const row = await windowById(ctx, planId, id);
  const changes: Partial<PassWindowRow> = { updated_at: ctx.now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.starts_at !== undefined) changes.starts_at = new Date(input.starts_at);
  if (input.ends_at !== undefined) changes.ends_at = new Date(input.ends_at);
  if (input.capacity !== undefined) changes.capacity = input.capacity;
  const next = { ...row, ...changes };
  checkDates(new Date(next.starts_at), new Date(next.ends_at));
  const moved =
    new Date(next.starts_at).getTime() !== new Date(row.starts_at).getTime() || new Date(next.ends_at).getTime() !== new Date(row.ends_at).getTime();
  if (moved && (await checkoutsTable.rows(ctx).where({ pass_window_id: id, status: "completed" }).first("id")))
    throw domainRefusal("Passes are sold for this window: its dates cannot move. Add another window instead.", { pass_window_id: id });
  await passWindowsTable.rows(ctx).where({ id }).update(changes);
  const window = await presentWithSeats(ctx, next);
  await recordWindowChange(ctx, window, "updated");
  return window;
}

export async function deletePassWindow(ctx: DomainContext, projectId: string, planId: string, id: string) {
  await requirePlan(ctx, projectId, planId);
  const row = await windowById(ctx, planId, id);
  // Its checkouts (even expired ones, which a late payment can still complete) name it.
  if (await checkoutsTable.rows(ctx).where({ pass_window_id: id }).first("id"))
    throw domainRefusal("Passes of this window were bought or are being bought: it cannot be deleted. Set its capacity instead.", {
      pass_window_id: id,
    });
  await passWindowsTable.rows(ctx).where({ id }).delete();
  await recordWindowChange(ctx, presentPassWindow(row), "deleted");
}

function recordWindowChange(ctx: DomainContext, window: PassWindow, action: "created" | "updated" | "deleted") {
  return recordCatalogChange(ctx, { entity: "pass_window", action, label: window.name, shown: window, subject: ["plan", window.plan_id] });
}
