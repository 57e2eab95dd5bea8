// How many projects a team may hold, by its owner's tier (Free 3, Starter 10, Growth 20). Every
// project counts, archived ones included (deleting one frees its place). A team over its limit
// after a downgrade keeps its projects; it cannot create another until it is below the limit.
import { ApiError } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import type { Tier } from "../teams/tier.ts";
import { teamsTable } from "../teams/tables.ts";
import { teamTier } from "../teams/tier.ts";
import { projectsTable } from "./tables.ts";

export const PROJECT_LIMITS: Readonly<Record<Tier, number>> = { free: 3, starter: 10, growth: 20 };

/** The lowest tier that allows more than `count` projects, or null when none does. */
function tierAllowing(count: number): Tier | null {
  return (["starter", "growth"] as const).find((tier) => PROJECT_LIMITS[tier] > count) ?? null;
}

/**
 * 403 TEAM_TIER_REQUIRED (context: the tier that allows another project, or null when none does,
 * the current tier, the limit and the count) unless the team may create one more project. The
 * team's row is locked until the transaction ends, so two creations cannot both take the last place.
 */
export async function requireProjectPlace(ctx: DomainContext): Promise<void> {
  await teamsTable.rows(ctx).forUpdate().first("id");
  const tier = await teamTier(ctx);
  const limit = PROJECT_LIMITS[tier];
  const count = Number((await projectsTable.teamRows(ctx).count({ n: "*" }).first())?.n ?? 0);
  if (count < limit) return;
  const required = tierAllowing(count);
  throw new ApiError("TEAM_TIER_REQUIRED", `This team holds ${count} projects, the limit of its owner's ${tier} tier (${limit}).`, {
    context: { required_tier: required, current_tier: tier, project_limit: limit, project_count: count },
    remediation: required
      ? `The team's owner can move to ${required} in the dashboard's billing settings, or delete a project first.`
      : "Delete a project first: no tier allows more projects.",
  });
}
