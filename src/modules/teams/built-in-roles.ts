// What a team's roles grant. The owner holds every ability on the team and has no role. Every team
// has two built-in roles, defined here (not stored, so they follow the ability catalog): "admin"
// and "member", the default for invitations. Custom roles (Growth) grant the abilities they list.
// A member's tokens act with at most what the member's role grants (and what their groups grant
// on the groups' projects): a role changed or narrowed narrows the tokens at once.
import { abilityCatalog, type AbilityValue } from "../../../generated/catalog.ts";

type CatalogEntry = { enforcement: string; category: string; mintable: boolean };
const catalog = abilityCatalog as Record<AbilityValue, CatalogEntry>;
/** What a role can grant: every ability a token can hold (the retired one excepted). */
const grantable = (Object.keys(catalog) as AbilityValue[]).filter((a) => catalog[a].enforcement !== "Retired");

/** Only the owner deletes a team; billing is the owner's own. */
const OWNER_ONLY = new Set<string>(["team:delete", "billing:manage", "billing:read"]);

const READ_ACTIONS = /:(view-any|view|read)$/;

export interface BuiltInRole {
  code: string;
  name: string;
  description: string;
  abilities: readonly AbilityValue[];
}

export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  {
    code: "admin",
    name: "Admin",
    description: "Everything on the team except deleting it and the owner's billing.",
    abilities: grantable.filter((a) => !OWNER_ONLY.has(a)),
  },
  {
    code: "member",
    name: "Member",
    description: "Reads everything on the team's projects, and manages their own tokens.",
    abilities: grantable.filter((a) => (READ_ACTIONS.test(a) && !a.startsWith("billing:")) || a === "token:create" || a === "token:delete"),
  },
];

export const DEFAULT_ROLE_CODE = "member";

export function builtInRole(code: string): BuiltInRole | undefined {
  return BUILT_IN_ROLES.find((r) => r.code === code);
}

/** Abilities a custom role may grant: every ability a token can hold except the owner's own. */
export function grantableByRole(ability: string): boolean {
  return Object.hasOwn(catalog, ability) && catalog[ability as AbilityValue].enforcement !== "Retired" && !OWNER_ONLY.has(ability);
}
