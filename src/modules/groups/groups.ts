// Groups: members of the team given extra abilities on some of its projects, on top of their
// role (advanced role-based access: Growth). A change reaches the members' tokens at once.
import { randomUUID } from "node:crypto";
import type { AbilityValue } from "../../../generated/catalog.ts";
import { notFound, validationFailed } from "../../errors.ts";
import { afterCommit, tenantTable, unscoped, type DomainContext } from "../../db/tenant.ts";
import type { PageWindow } from "../../db/pages.ts";
import { sortedPage } from "../../db/pages.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { tokensTable } from "../tokens/tables.ts";
import { grantableByRole } from "../teams/built-in-roles.ts";
import { teamMembersTable } from "../teams/tables.ts";
import { requireGrowth } from "../teams/tier.ts";
import { recordSettingChange } from "../teams/setting-change.ts";

export const groupsTable = tenantTable("groups", { team: "team_id" });

interface GroupRow {
  id: string;
  code: string;
  name: string;
  abilities: string[];
  project_ids: string[];
  member_user_ids: string[];
  created_at: Date;
  updated_at: Date;
}

export function presentGroup(row: GroupRow) {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    abilities: [...row.abilities].sort() as AbilityValue[],
    project_ids: [...row.project_ids].sort(),
    member_ids: [...row.member_user_ids].sort(),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/**
 * The team's groups the actor may see: all of them, or for a token restricted to projects those
 * whose projects all lie inside its allow-list (a group is about its projects; one reaching
 * further is outside the allow-list like a project would be).
 */
function visibleGroups(ctx: DomainContext) {
  const query = groupsTable.rows(ctx);
  if (ctx.actor.projectIds !== null) query.whereRaw("groups.project_ids <@ ?::jsonb", [JSON.stringify(ctx.actor.projectIds)]);
  return query;
}

async function groupById(ctx: DomainContext, id: string): Promise<GroupRow> {
  const row = (await visibleGroups(ctx).where({ id }).first()) as GroupRow | undefined;
  if (!row) throw notFound("group");
  return row;
}

const GROUP_SORT: Record<string, string> = { created_at: "created_at", code: "code", name: "lower(name)" };

export async function listGroups(ctx: DomainContext, window: PageWindow) {
  const { rows, total } = await sortedPage<GroupRow>(visibleGroups(ctx).select("*"), window, GROUP_SORT);
  return { rows: rows.map(presentGroup), total };
}

export async function getGroup(ctx: DomainContext, id: string) {
  return presentGroup(await groupById(ctx, id));
}

interface GroupFields {
  name?: string;
  abilities?: string[];
  project_ids?: string[];
  member_ids?: string[];
}

/** Abilities a role could grant, projects of the team inside the allow-list, members of the team. */
async function checkFields(ctx: DomainContext, input: GroupFields) {
  const refused = (input.abilities ?? []).filter((a) => !grantableByRole(a));
  if (refused.length) throw validationFailed({ abilities: refused.map((a) => `${a} cannot be granted by a group (only the owner holds it)`) });
  if (input.project_ids) await assertProjectsVisible(ctx, input.project_ids);
  if (input.member_ids?.length) {
    const found = new Set<string>(await teamMembersTable.rows(ctx).whereIn("user_id", input.member_ids).pluck("user_id"));
    const strangers = input.member_ids.filter((id) => !found.has(id));
    if (strangers.length) throw validationFailed({ member_ids: strangers.map((id) => `${id} is not a member of the team`) });
  }
}

/** Members whose grants change: their tokens resolve again from their next request. */
async function membersChanged(ctx: DomainContext, userIds: readonly string[]) {
  if (!userIds.length) return;
  const tokenIds: (string | number)[] = await tokensTable
    .rows(ctx)
    .whereIn("user_id", [...userIds])
    .pluck("id");
  afterCommit(ctx, { kind: "credentials-changed", tokenIds: tokenIds.map(String) });
}

export async function createGroup(ctx: DomainContext, input: Required<GroupFields> & { code: string }) {
  await requireGrowth(ctx, "Groups");
  await checkFields(ctx, input);
  if (await groupsTable.rows(ctx).where({ code: input.code }).first("id"))
    throw validationFailed({ code: [`the team already has a group ${input.code}`] });
  const row = {
    id: randomUUID(),
    code: input.code,
    name: input.name,
    abilities: [...input.abilities].sort(),
    project_ids: [...input.project_ids].sort(),
    member_user_ids: [...input.member_ids].sort(),
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await groupsTable.insert(ctx, {
    ...row,
    abilities: JSON.stringify(row.abilities),
    project_ids: JSON.stringify(row.project_ids),
    member_user_ids: JSON.stringify(row.member_user_ids),
  });
  await membersChanged(ctx, row.member_user_ids);
  const group = presentGroup(row);
  await recordSettingChange(ctx, "group", "created", group);
  return group;
}

export async function updateGroup(ctx: DomainContext, id: string, input: GroupFields) {
  const before = await groupById(ctx, id);
  await requireGrowth(ctx, "Groups");
  await checkFields(ctx, input);
  const after: GroupRow = {
    ...before,
    name: input.name ?? before.name,
    abilities: input.abilities ? [...input.abilities].sort() : before.abilities,
    project_ids: input.project_ids ? [...input.project_ids].sort() : before.project_ids,
    member_user_ids: input.member_ids ? [...input.member_ids].sort() : before.member_user_ids,
    updated_at: ctx.now,
  };
  await groupsTable
    .rows(ctx)
    .where({ id })
    .update({
      name: after.name,
      abilities: JSON.stringify(after.abilities),
      project_ids: JSON.stringify(after.project_ids),
      member_user_ids: JSON.stringify(after.member_user_ids),
      updated_at: ctx.now,
    });
  await membersChanged(ctx, [...new Set([...before.member_user_ids, ...after.member_user_ids])]);
  const group = presentGroup(after);
  await recordSettingChange(ctx, "group", "updated", group);
  return group;
}

/** Takes a person out of every group of the team (their membership ended). */
export async function leaveGroups(ctx: DomainContext, userId: string): Promise<void> {
  const withoutUser = unscoped(ctx, "a raw SQL expression of a team-scoped update").raw("member_user_ids - ?::text", [userId]);
  await groupsTable
    .rows(ctx)
    .whereRaw("member_user_ids @> ?::jsonb", [JSON.stringify([userId])])
    .update({ member_user_ids: withoutUser, updated_at: ctx.now });
}

export async function deleteGroup(ctx: DomainContext, id: string) {
  const row = await groupById(ctx, id);
  await requireGrowth(ctx, "Groups");
  await groupsTable.rows(ctx).where({ id }).delete();
  await membersChanged(ctx, row.member_user_ids);
  await recordSettingChange(ctx, "group", "deleted", presentGroup(row));
}
