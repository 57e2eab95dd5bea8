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
import { subscriptionsTable, whereLive } from "../subscriptions/tables.ts";
import { accessStatesOf, planNamesOf, whereAccessState, type AccessState } from "./access.ts";
import { explainAccess } from "./access-reasons.ts";

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

const MEMBER_SORT: Record<string, string> = {
  created_at: "members.created_at",
  joined_at: "members.joined_at",
  display_name: "lower(members.display_name)",
};

export interface MemberFilter {
  status?: MemberStatus;
  /** Part of the display name, email or platform user id, any case. */
  q?: string;
  /** A plan of one of the member's live subscriptions. */
  planId?: string;
  /** The member's connector. */
  platform?: string;
  access?: AccessState;
}

/** The project's members matching `filter` (the list's and the export's); `joined` narrows joined_at (from inclusive, to exclusive). */
export function matchingMembers(ctx: DomainContext, projectId: string, filter: MemberFilter & { joinedFrom?: string; joinedTo?: string }) {
  const query = membersTable.rows(ctx).where("members.project_id", projectId).select("members.*");
  if (filter.status) query.where("members.status", filter.status);
  if (filter.platform) query.where("members.connector_key", filter.platform);
  if (filter.q) {
    const needle = filter.q.toLowerCase();
    // strpos, not LIKE: the text is matched as it is, % and _ included.
    query.where((q) =>
      ["display_name", "email", "external_user_id"].forEach((column) => q.orWhereRaw(`strpos(lower(members.${column}), ?) > 0`, [needle])),
    );
  }
  if (filter.planId) {
    const onPlan = whereLive(subscriptionsTable.rows(ctx).where("subscriptions.plan_id", filter.planId), ctx.now).whereRaw(
      "subscriptions.member_id = members.id",
    );
    query.whereExists(onPlan.select("subscriptions.id"));
  }
  if (filter.access) whereAccessState(query, ctx, projectId, filter.access);
  if (filter.joinedFrom !== undefined) query.where("members.joined_at", ">=", new Date(filter.joinedFrom));
  if (filter.joinedTo !== undefined) query.where("members.joined_at", "<", new Date(filter.joinedTo));
  return query;
}

export async function listMembers(ctx: DomainContext, projectId: string, filter: MemberFilter, window: PageWindow) {
  await assertProjectsVisible(ctx, [projectId]);
  const query = matchingMembers(ctx, projectId, filter);
  const sort = MEMBER_SORT[window.sortBy] ?? MEMBER_SORT.created_at!;
  const { rows, total } = await fetchPage<MemberRow>(query, window, `${orderClause(sort, window.sortDirection)}, members.id ${window.sortDirection}`);
  return { rows: await presentListed(ctx, projectId, rows), total };
}

/** Members as a list row shows them: with the plans of their live subscriptions and their access state. */
export async function presentListed(ctx: DomainContext, projectId: string, rows: MemberRow[]) {
  const ids = rows.map((r) => r.id);
  const [states, plans] = await Promise.all([accessStatesOf(ctx, projectId, ids), livePlansOf(ctx, ids)]);
  return rows.map((row) => ({ ...presentMember(row), plans: plans.get(row.id) ?? [], access_state: states.get(row.id) ?? "none" }));
}

/** The plans of each member's live subscriptions, oldest subscription first. */
async function livePlansOf(ctx: DomainContext, memberIds: readonly string[]): Promise<Map<string, { id: string; name: string }[]>> {
  const plans = new Map<string, { id: string; name: string }[]>();
  if (!memberIds.length) return plans;
  const rows = (await whereLive(subscriptionsTable.rows(ctx).whereIn("subscriptions.member_id", [...memberIds]), ctx.now)
    .orderBy([{ column: "subscriptions.created_at" }, { column: "subscriptions.id" }])
    .select("subscriptions.member_id", "subscriptions.plan_id")) as { member_id: string; plan_id: string }[];
  const names = await planNamesOf(
    ctx,
    rows.map((r) => r.plan_id),
  );
  for (const { member_id, plan_id: id } of rows) {
    const list = plans.get(member_id) ?? [];
    if (!list.some((p) => p.id === id)) list.push({ id, name: names.get(id) ?? "" });
    plans.set(member_id, list);
  }
  return plans;
}

export async function getMember(ctx: DomainContext, projectId: string, id: string) {
  await assertProjectsVisible(ctx, [projectId]);
  const member = await memberById(ctx, projectId, id);
  const [listed] = await presentListed(ctx, projectId, [member]);
  return { ...listed!, access: await explainAccess(ctx, member) };
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
