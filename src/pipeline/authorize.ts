// Tenancy and abilities, from the operation table; the same checks for REST and MCP.
import type { OperationSpec } from "../../generated/operations.ts";
import { ApiError } from "../errors.ts";
import { holdsAbility } from "../modules/tokens/abilities.ts";
import type { Principal } from "./context.ts";

/** The path parameter naming a project; project-scoped routes use it. */
export const PROJECT_PARAM = "project";
/** The path parameter naming a team: only the token's own is found. */
export const TEAM_PARAM = "team";

/** Whether the principal may use `ability` here: team-wide, or through a group on the path's project. */
function mayUse(principal: Principal, ability: string, project: string | undefined): boolean {
  if (holdsAbility(principal.abilities, ability)) return true;
  const granted = project === undefined ? undefined : principal.projectAbilities.get(project);
  return granted !== undefined && holdsAbility(granted, ability);
}

/**
 * Runs before any handler: a credential without a visible team scope is refused with
 * TENANT_MISMATCH, a {team} other than the token's with 404 RESOURCE_NOT_FOUND, a missing ability
 * with TOKEN_MISSING_ABILITY, and a project outside the allow-list with 404 TENANT_MISMATCH.
 */
export function authorizeOperation(
  op: OperationSpec,
  principal: Principal,
  pathParams: Record<string, string>,
): asserts principal is Principal & { teamId: string } {
  if (principal.teamId === null) {
    throw new ApiError("TENANT_MISMATCH", "This credential carries no team scope that its creator can still see.", {
      remediation: "Mint a new token on a team you own or belong to; a token needs exactly one scope:team entry.",
    });
  }
  const team = pathParams[TEAM_PARAM];
  if (team !== undefined && team !== principal.teamId) throw new ApiError("RESOURCE_NOT_FOUND", "No team with that id is visible to this token.");
  const project = pathParams[PROJECT_PARAM];
  if (op.ability && !mayUse(principal, op.ability, project)) {
    throw new ApiError("TOKEN_MISSING_ABILITY", `This token does not hold the ability ${op.ability}.`, { context: { required_ability: op.ability } });
  }
  if (project !== undefined && principal.projectIds !== null && !principal.projectIds.includes(project)) {
    throw new ApiError("TENANT_MISMATCH", "This project is outside the token's project allow-list.", { context: { project_id: project } });
  }
}
