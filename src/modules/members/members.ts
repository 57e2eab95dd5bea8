// A project's members (subscribers, "project users"): found or created by the platform account a
// connector reports, listed and read by the creator, banned and unbanned. Their status is derived
// in one place (status.ts).
import { randomUUID } from "node:crypto";
import { domainRefusal, notFound } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { fetchPage, orderClause, type PageWindow } from "../../db/pages.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { membersTable, type MemberRow, type MemberStatus } from "./tables.ts";
import { iso } from "../subscriptions/timestamps.ts";

/** A member as events carry it: never the email (webhook payloads leave it out). */
export function memberSummary(row: MemberRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    connector_key: row.connector_key,
    external_user_id: row.external_user_id,
    display_name: row.display_name,
    status: row.status,
    ban_reason: row.ban_reason,
    banned_at: iso(row.banned_at),
    joined_at: iso(row.joined_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A member as the API shows it (the token holds a project-user ability). */
export function presentMember(row: MemberRow) {
  return { ...memberSummary(row), email: row.email };
}

export async function memberById(ctx: DomainContext, projectId: string, id: string, lock = false): Promise<MemberRow> {
  const query = membersTable.rows(ctx).where({ id, project_id: projectId });
  if (lock) query.forUpdate();
  const row = (await query.first()) as MemberRow | undefined;
  if (!row) throw notFound("member");
  return row;
}

/** Records a member change: its activity entry and its member.* event. */
export async function recordMemberChange(
  ctx: DomainContext,
  row: MemberRow,
  change: { event: string; description: string; properties?: Record<string, unknown>; data?: Record<string, unknown> },
): Promise<void> {
  await recordActivity(ctx, {
    event: change.event,
    description: change.description,
    subjectType: "member",
    subjectId: row.id,
    projectId: row.project_id,
    properties: { member: memberSummary(row), ...change.properties },
  });
  await emitEvent(ctx, { type: `member.${change.event}`, projectId: row.project_id, data: { member: memberSummary(row), ...change.data } });
}

export interface PlatformAccount {
  connectorKey: string;
  externalUserId: string;
  displayName: string | null;
}

/**
 * The project's member behind a platform account, created as a lead the first time it is seen
 * (safe when two requests for one new account race: the second finds the first's row).
 */
export async function findOrCreateMember(
  ctx: DomainContext,
  projectId: string,
  account: PlatformAccount,
): Promise<{ member: MemberRow; created: boolean }> {
  const key = { project_id: projectId, connector_key: account.connectorKey, external_user_id: account.externalUserId };
  const id = randomUUID();
  const inserted = await membersTable
    .insert(ctx, { id, ...key, display_name: account.displayName, status: "lead", created_at: ctx.now, updated_at: ctx.now })
    .onConflict(["project_id", "connector_key", "external_user_id"])
    .ignore()
    .returning("id");
  const member = (await membersTable.rows(ctx).where(key).forUpdate().first()) as MemberRow;
  const created = inserted.length > 0;
  if (created) {
    await recordActivity(ctx, {
      event: "created",
      description: `Member ${account.displayName ?? account.externalUserId} first seen`,
      subjectType: "member",
      subjectId: member.id,
      projectId,
      properties: { member: memberSummary(member) },
    });
  } else if (account.displayName && account.displayName !== member.display_name) {
    await membersTable.rows(ctx).where({ id: member.id }).update({ display_name: account.displayName, updated_at: ctx.now });
    member.display_name = account.displayName;
  }
  return { member, created };
}

const MEMBER_SORT: Record<string, string> = { created_at: "created_at", joined_at: "joined_at", display_name: "lower(display_name)" };

export async function listMembers(ctx: DomainContext, projectId: string, filter: { status?: MemberStatus }, window: PageWindow) {
  await assertProjectsVisible(ctx, [projectId]);
  const query = membersTable.rows(ctx).where({ project_id: projectId }).select("*");
  if (filter.status) query.where({ status: filter.status });
  const sort = MEMBER_SORT[window.sortBy] ?? MEMBER_SORT.created_at!;
  const { rows, total } = await fetchPage<MemberRow>(query, window, `${orderClause(sort, window.sortDirection)}, id ${window.sortDirection}`);
  return { rows: rows.map(presentMember), total };
}

export async function getMember(ctx: DomainContext, projectId: string, id: string) {
  await assertProjectsVisible(ctx, [projectId]);
  return presentMember(await memberById(ctx, projectId, id));
}

/** Moves a member's row to `changes` and answers the row as it now is. */
export async function updateMember(ctx: DomainContext, row: MemberRow, changes: Partial<MemberRow>): Promise<MemberRow> {
  const next = { ...changes, updated_at: ctx.now };
  await membersTable.rows(ctx).where({ id: row.id }).update(next);
  return { ...row, ...next };
}

export function refuseBanned(member: MemberRow): void {
  if (member.status === "banned") {
    throw domainRefusal("The member is banned from this project.", { member_id: member.id, reason: "member_banned" });
  }
}

export const MEMBER_STATUSES: readonly MemberStatus[] = ["lead", "trialing", "customer", "churned", "banned"];
