// A team's roles: the built-in admin and member (defined in code, see built-in-roles.ts) and the
// custom roles of Growth teams. A change to what a role grants reaches its holders' tokens at once.
import { randomUUID } from "node:crypto";
import type { AbilityValue } from "../../../generated/catalog.ts";
import { ApiError, domainRefusal, notFound, validationFailed } from "../../errors.ts";
import { afterCommit, tenantTable, type DomainContext } from "../../db/tenant.ts";
import type { PageWindow } from "../../db/pages.ts";
import { sortedPage } from "../../db/pages.ts";
import { tokensTable } from "../tokens/tables.ts";
import { builtInRole, DEFAULT_ROLE_CODE, grantableByRole } from "../teams/built-in-roles.ts";
import { invitationsTable, teamMembersTable } from "../teams/tables.ts";
import { requireGrowth } from "../teams/tier.ts";
import { recordSettingChange } from "../teams/setting-change.ts";

export const rolesTable = tenantTable("roles", { team: "team_id" });

export interface RoleRow {
  id: string;
  team_id: string;
  code: string;
  name: string;
  abilities: string[];
  built_in: boolean;
  created_at: Date;
  updated_at: Date;
}

export function presentRole(row: RoleRow) {
  const abilities = row.built_in ? [...(builtInRole(row.code)?.abilities ?? [])] : row.abilities;
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    abilities: [...abilities].sort() as AbilityValue[],
    built_in: row.built_in,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function roleByCode(ctx: DomainContext, code: string): Promise<RoleRow | undefined> {
  return (await rolesTable.rows(ctx).where({ code }).first()) as RoleRow | undefined;
}

async function roleById(ctx: DomainContext, id: string): Promise<RoleRow> {
  const row = (await rolesTable.rows(ctx).where({ id }).first()) as RoleRow | undefined;
  if (!row) throw notFound("role");
  return row;
}

const ROLE_SORT: Record<string, string> = { created_at: "created_at", code: "code", name: "lower(name)" };

export async function listRoles(ctx: DomainContext, window: PageWindow) {
  const { rows, total } = await sortedPage<RoleRow>(rolesTable.rows(ctx).select("*"), window, ROLE_SORT);
  return { rows: rows.map(presentRole), total };
}

export async function getRole(ctx: DomainContext, id: string) {
  return presentRole(await roleById(ctx, id));
}

function checkAbilities(abilities: readonly string[]) {
  const refused = abilities.filter((a) => !grantableByRole(a));
  if (refused.length)
    validationFailedFor(
      "abilities",
      refused.map((a) => `${a} cannot be granted by a role (only the owner holds it)`),
    );
}

function validationFailedFor(field: string, messages: string[]): never {
  throw validationFailed({ [field]: messages });
}

/** The tokens of the role's holders on the team: they must resolve again after the change. */
async function holdersChanged(ctx: DomainContext, roleId: string) {
  const holders: string[] = await teamMembersTable.rows(ctx).where({ role_id: roleId }).pluck("user_id");
  if (!holders.length) return;
  const tokenIds: (string | number)[] = await tokensTable.rows(ctx).whereIn("user_id", holders).pluck("id");
  afterCommit(ctx, { kind: "credentials-changed", tokenIds: tokenIds.map(String) });
}

export async function createRole(ctx: DomainContext, input: { code: string; name: string; abilities: string[] }) {
  await requireGrowth(ctx, "Custom roles");
  checkAbilities(input.abilities);
  if (await roleByCode(ctx, input.code)) validationFailedFor("code", [`the team already has a role ${input.code}`]);
  const row = {
    id: randomUUID(),
    code: input.code,
    name: input.name,
    abilities: JSON.stringify([...input.abilities].sort()),
    built_in: false,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await rolesTable.insert(ctx, row);
  const role = presentRole({ ...row, team_id: ctx.actor.teamId, abilities: [...input.abilities].sort() });
  await recordSettingChange(ctx, "role", "created", role);
  return role;
}

function refuseBuiltIn(row: RoleRow, what: string) {
  if (row.built_in) throw domainRefusal(`The built-in role ${row.code} cannot be ${what}.`);
}

export async function updateRole(ctx: DomainContext, id: string, input: { name?: string; abilities?: string[] }) {
  const row = await roleById(ctx, id);
  refuseBuiltIn(row, "changed");
  await requireGrowth(ctx, "Custom roles");
  if (input.abilities) checkAbilities(input.abilities);
  const changes: Record<string, unknown> = { updated_at: ctx.now };
  if (input.name !== undefined) changes.name = input.name;
  if (input.abilities !== undefined) changes.abilities = JSON.stringify([...input.abilities].sort());
  await rolesTable.rows(ctx).where({ id }).update(changes);
  const role = presentRole({
    ...row,
    name: input.name ?? row.name,
    abilities: input.abilities ? [...input.abilities].sort() : row.abilities,
    updated_at: ctx.now,
  });
  if (input.abilities) await holdersChanged(ctx, id);
  await recordSettingChange(ctx, "role", "updated", role);
  return role;
}

/** Deletes a custom role; its holders and its pending invitations move to the default role. */
export async function deleteRole(ctx: DomainContext, id: string) {
  const row = await roleById(ctx, id);
  refuseBuiltIn(row, "deleted");
  await requireGrowth(ctx, "Custom roles");
  const fallback = await roleByCode(ctx, DEFAULT_ROLE_CODE);
  if (!fallback) throw new ApiError("INTERNAL_SERVER_ERROR", "The team has no default role.");
  await holdersChanged(ctx, id);
  await teamMembersTable.rows(ctx).where({ role_id: id }).update({ role_id: fallback.id });
  await invitationsTable.rows(ctx).where({ role_id: id }).update({ role_id: fallback.id });
  await rolesTable.rows(ctx).where({ id }).delete();
  const role = presentRole(row);
  await recordSettingChange(ctx, "role", "deleted", role);
}
