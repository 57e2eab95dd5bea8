// What a creator may do on a team, from their place in it: the owner everything; a member what
// their role grants team-wide, plus what each of their groups grants on its projects. A token
// acts with the abilities it carries that these also grant: never wider than either.
import { abilityCatalog, abilityValues } from "../../../generated/catalog.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { builtInRole } from "../teams/built-in-roles.ts";
import { whyNotMintable } from "../tokens/abilities.ts";

export interface GroupGrant {
  projectIds: string[];
  abilities: string[];
}

export interface TeamGrants {
  /** Null for the owner (everything); else what the member's role grants. */
  roleAbilities: string[] | null;
  groupGrants: GroupGrant[];
}

const catalog: Record<string, { satisfies: readonly string[] }> = abilityCatalog;

/**
 * Abilities about the person, not the team (their own account: /v1/me): a role neither grants nor
 * withholds them, so a member keeps managing their identities and alerts whatever their role.
 */
const PERSONAL = new Set(["account:read", "account:write"]);

/** Everything `abilities` covers: themselves and what the catalog says they satisfy. */
function covered(abilities: readonly string[]): Set<string> {
  const all = new Set(abilities);
  for (const a of abilities) for (const s of catalog[a]?.satisfies ?? []) all.add(s);
  return all;
}

/**
 * What a token may do given what a place on the team grants: every ability both cover (each
 * side read with the catalog's satisfies relations, so a token holding the retired
 * webhook-endpoint:manage keeps the endpoint verbs a role grants), plus the token's personal
 * abilities. All of the token's when `granted` is null (the owner).
 */
export function narrowAbilities(tokenAbilities: readonly string[], granted: readonly string[] | null): string[] {
  if (granted === null) return [...tokenAbilities];
  const byRole = covered(granted);
  return [...covered(tokenAbilities)].filter((a) => PERSONAL.has(a) || byRole.has(a)).sort();
}

/** Every ability a token may be minted with (no retired ability, never token:create). */
export const mintableAbilities: readonly string[] = abilityValues.filter((a) => whyNotMintable(a) === null);

/**
 * The mintable abilities a creator with these grants may put on a token of that team (their role
 * team-wide, their groups on their projects; the owner everything): what the tokens page offers
 * and what an agent registration's confirmation keeps.
 */
export function abilitiesGrantable(grants: TeamGrants): Set<string> {
  const mintable = new Set(mintableAbilities);
  const allowed = new Set(narrowAbilities(mintableAbilities, grants.roleAbilities));
  for (const group of grants.groupGrants) for (const a of narrowAbilities(mintableAbilities, group.abilities)) allowed.add(a);
  return new Set([...allowed].filter((a) => mintable.has(a)));
}

/**
 * The grants of `userId` on `teamId`, or null when they neither own nor belong to it. Asked
 * while resolving a credential, before any actor exists.
 */
export async function teamGrantsOf(from: Db, userId: string, teamId: string): Promise<TeamGrants | null> {
  const db = unscoped(from, "authentication: what a credential's creator may still do on its team");
  const row = (await db("teams as t")
    .leftJoin("team_members as m", (j) => j.on("m.team_id", "t.id").andOnVal("m.user_id", userId))
    .leftJoin("roles as r", "r.id", "m.role_id")
    .where("t.id", teamId)
    .first("t.owner_user_id", "m.user_id as member", "r.code", "r.abilities", "r.built_in")) as
    { owner_user_id: string; member: string | null; code: string | null; abilities: string[] | null; built_in: boolean | null } | undefined;
  if (!row) return null;
  if (row.owner_user_id === userId) return { roleAbilities: null, groupGrants: [] };
  if (!row.member) return null;
  const roleAbilities = row.built_in ? [...(builtInRole(row.code!)?.abilities ?? [])] : (row.abilities ?? []);
  const groups = (await db("groups")
    .where({ team_id: teamId })
    .whereRaw("member_user_ids @> ?::jsonb", [JSON.stringify([userId])])
    .select("abilities", "project_ids")) as { abilities: string[]; project_ids: string[] }[];
  return { roleAbilities, groupGrants: groups.map((g) => ({ projectIds: g.project_ids, abilities: g.abilities })) };
}

/** Whether a place on the team grants `ability` on `projectId` (or team-wide when it is null). */
export function grantsAbility(grants: TeamGrants, ability: string, projectId: string | null): boolean {
  if (grants.roleAbilities === null || covered(grants.roleAbilities).has(ability)) return true;
  if (projectId === null) return false;
  return grants.groupGrants.some((g) => g.projectIds.includes(projectId) && covered(g.abilities).has(ability));
}
