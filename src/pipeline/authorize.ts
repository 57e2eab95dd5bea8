// Tenancy and abilities, from the operation table; the same checks for REST and MCP.
import type { OperationSpec } from "../../generated/operations.ts";
import { ApiError } from "../errors.ts";
import { holdsAbility } from "../modules/tokens/abilities.ts";
import type { Principal } from "./context.ts";

/** The path parameter naming a project; project-scoped routes use it. */
export const PROJECT_PARAM = "project";

/**
 * Runs before any handler: a credential without a visible team scope is refused with
 * TENANT_MISMATCH, a missing ability with TOKEN_MISSING_ABILITY, and a project outside the
 * allow-list with 404 TENANT_MISMATCH.
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
  if (op.ability && !holdsAbility(principal.abilities, op.ability)) {
    throw new ApiError("TOKEN_MISSING_ABILITY", `This token does not hold the ability ${op.ability}.`, { context: { required_ability: op.ability } });
  }
  const project = pathParams[PROJECT_PARAM];
  if (project !== undefined && principal.projectIds !== null && !principal.projectIds.includes(project)) {
    throw new ApiError("TENANT_MISMATCH", "This project is outside the token's project allow-list.", { context: { project_id: project } });
  }
}
