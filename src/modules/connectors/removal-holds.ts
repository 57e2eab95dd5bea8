// The creator's side of mass-removal holds (drift.ts): list an installation's holds, confirm one
// (the next drift sweep takes the role from exactly the held members still uncovered) or cancel one
// (nothing is taken; the sweep does not hold the same members again). Only an open hold (held) can
// be decided; deciding it twice is refused as a domain refusal (422, context.reason
// removal_hold_decided), as completing a done creator task is.
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { domainRefusal, notFound } from "../../errors.ts";
import { resourcesTable } from "../resources/tables.ts";
import type { ConnectorEnvironment } from "./environment.ts";
import { installationOf } from "./installations.ts";
import { removalHoldsTable, type InstallationRow, type RemovalHoldRow } from "./tables.ts";

/** How many of the held platform user ids a hold shows (planned_count is the whole number). */
export const SHOWN_USER_IDS = 100;

export interface RemovalHold {
  id: string;
  project_id: string;
  installation_id: string;
  connector: string;
  resource: { id: string; title: string };
  platform_ref: string;
  holders: number;
  planned_count: number;
  platform_user_ids: string[];
  status: RemovalHoldRow["status"];
  created_at: string;
  decided_at: string | null;
  decided_by_user_id: string | null;
  applied_at: string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function present(row: RemovalHoldRow, installation: InstallationRow, title: string): RemovalHold {
  // PostgreSQL answers jsonb parsed; the embedded backend may answer it as text.
  const users = typeof row.member_ids === "string" ? (JSON.parse(row.member_ids) as string[]) : row.member_ids;
  return {
    id: row.id,
    project_id: row.project_id,
    installation_id: row.installation_id,
    connector: installation.connector_key,
    resource: { id: row.resource_id, title },
    platform_ref: row.place,
    holders: row.holders,
    planned_count: row.planned_count,
    platform_user_ids: users.slice(0, SHOWN_USER_IDS),
    status: row.status,
    created_at: iso(row.created_at)!,
    decided_at: iso(row.decided_at),
    decided_by_user_id: row.decided_by_user_id ?? null,
    applied_at: iso(row.applied_at),
  };
}

/** The holds with their resources' titles as they are now. */
async function presentAll(ctx: DomainContext, rows: RemovalHoldRow[], installation: InstallationRow): Promise<RemovalHold[]> {
  const ids = [...new Set(rows.map((r) => r.resource_id))];
  const titles = new Map<string, string>();
  if (ids.length) {
    for (const r of (await resourcesTable.rows(ctx).whereIn("id", ids).select("id", "title")) as { id: string; title: string }[])
      titles.set(r.id, r.title);
  }
  return rows.map((row) => present(row, installation, titles.get(row.resource_id) ?? ""));
}

const SORT: Record<string, string> = { created_at: "created_at" };

/** One page of the holds on the project's installation of `key` (`status` narrows them). */
export async function listRemovalHolds(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  window: PageWindow,
  status?: RemovalHoldRow["status"],
): Promise<{ rows: RemovalHold[]; total: number }> {
  const installation = await installationOf(ctx, env, projectId, key);
  const query = removalHoldsTable.rows(ctx).where({ installation_id: installation.id }).select("*");
  if (status) query.where({ status });
  const { rows, total } = await sortedPage<RemovalHoldRow>(query, window, SORT);
  return { rows: await presentAll(ctx, rows, installation), total };
}

/** Confirms or cancels an open hold on the project's installation of `key`. */
export async function decideRemovalHold(
  ctx: DomainContext,
  env: ConnectorEnvironment,
  projectId: string,
  key: string,
  holdId: string,
  decision: "confirm" | "cancel",
): Promise<RemovalHold> {
  const installation = await installationOf(ctx, env, projectId, key);
  const row = (await removalHoldsTable.rows(ctx).where({ id: holdId, installation_id: installation.id }).forUpdate().first()) as
    RemovalHoldRow | undefined;
  if (!row) throw notFound("removal hold");
  if (row.status !== "held") {
    throw domainRefusal(`The hold was already ${row.status}.`, { reason: "removal_hold_decided", hold_id: row.id, status: row.status });
  }
  const changes = {
    status: decision === "confirm" ? ("confirmed" as const) : ("cancelled" as const),
    decided_at: ctx.now,
    decided_by_user_id: ctx.actor.userId,
  };
  await removalHoldsTable.rows(ctx).where({ id: row.id }).update(changes);
  await recordActivity(ctx, {
    event: decision === "confirm" ? "access_removal_hold_confirmed" : "access_removal_hold_cancelled",
    description:
      decision === "confirm"
        ? `The creator confirmed removing a role from ${row.planned_count} members`
        : `The creator cancelled removing a role from ${row.planned_count} members`,
    subjectType: "project",
    subjectId: row.project_id,
    projectId: row.project_id,
    properties: { hold_id: row.id, installation_id: installation.id, resource_id: row.resource_id, planned_count: row.planned_count },
  });
  return (await presentAll(ctx, [{ ...row, ...changes }], installation))[0]!;
}
