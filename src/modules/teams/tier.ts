// Tiers are the team owner's (a creator's plan): Free, Starter, Growth. Growth gates inviting
// members and changing their role, running two distinct connectors on one project, custom handles
// and advanced role-based access (custom roles and groups). Removing a member is never gated.
import { ApiError } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { teamsTable } from "./tables.ts";

export const TIERS = ["free", "starter", "growth"] as const;
export type Tier = (typeof TIERS)[number];

export async function teamTier(ctx: DomainContext): Promise<Tier> {
  const row = (await teamsTable.rows(ctx).join("users", "users.id", "teams.owner_user_id").first("users.tier")) as { tier: Tier } | undefined;
  return row?.tier ?? "free";
}

/** 403 TEAM_TIER_REQUIRED (nothing changes) unless the team's owner is on Growth. */
export async function requireGrowth(ctx: DomainContext, feature: string): Promise<void> {
  const tier = await teamTier(ctx);
  if (tier !== "growth") {
    throw new ApiError("TEAM_TIER_REQUIRED", `${feature} needs the Growth tier; this team's owner is on ${tier[0]!.toUpperCase()}${tier.slice(1)}.`, {
      context: { required_tier: "growth", current_tier: tier },
      remediation: "The team's owner can move to Growth in the dashboard's billing settings.",
    });
  }
}
