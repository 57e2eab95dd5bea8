// subbridge://team: who the token acts as, on which team, over which projects, with which
// abilities. Read live, scoped exactly as REST scopes (team, project allow-list, abilities).
import type { Knex } from "knex";
import { ApiError } from "../../../errors.ts";
import { holdsAbility } from "../../../modules/tokens/abilities.ts";
import { callerOverview } from "../../../modules/projects/caller-overview.ts";
import type { Principal } from "../../../pipeline/context.ts";
import { createDomainContext } from "../../../db/tenant.ts";

const TEAM_ABILITY = "team:view";
const PROJECTS_ABILITY = "project:view-any";

export async function callerTeamDocument(db: Knex, principal: Principal, now: Date, requestId: string) {
  if (principal.teamId === null) {
    throw new ApiError("TENANT_MISMATCH", "This credential carries no team scope that its creator can still see.", {
      remediation: "Mint a new token on a team you own or belong to; a token needs exactly one scope:team entry.",
    });
  }
  const access = {
    canViewTeam: holdsAbility(principal.abilities, TEAM_ABILITY),
    canViewProjects: holdsAbility(principal.abilities, PROJECTS_ABILITY),
  };
  const actor = {
    userId: principal.userId,
    teamId: principal.teamId,
    projectIds: principal.projectIds,
    kind: "mcp" as const,
    credentialKind: principal.credentialKind,
    requestId,
  };
  const overview = await callerOverview(createDomainContext(db, actor, now), access);
  const hidden = [
    ...(access.canViewTeam ? [] : [{ field: "team", required_ability: TEAM_ABILITY }]),
    ...(access.canViewProjects ? [] : [{ field: "projects", required_ability: PROJECTS_ABILITY }]),
  ];
  return {
    credential: {
      kind: principal.credentialKind,
      id: principal.credentialId,
      team_id: principal.teamId,
      project_allow_list: principal.projectIds,
      abilities: [...principal.abilities].sort(),
    },
    team: overview.team,
    projects: overview.projects,
    ...(hidden.length ? { hidden } : {}),
  };
}
