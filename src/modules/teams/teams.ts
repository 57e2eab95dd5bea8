// Teams: a team is visible to its owner and its members, to nobody else.
import { notFound } from "../../errors.ts";
import { afterCommit, tenantTable, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import { tokensTable } from "../tokens/tokens.ts";

/** A team is its own tenant: its row is the one whose id is the actor's team. */
export const teamsTable = tenantTable("teams", { team: "id" });

/** Memberships of the team's people (the owner is not one: teams.owner_user_id). */
export const teamMembersTable = tenantTable("team_members", { team: "team_id" });

/** Whether a user owns or belongs to a team (asked before any actor exists: authentication). */
export async function canSeeTeam(from: Db, userId: string, teamId: string): Promise<boolean> {
  const db = unscoped(from, "authentication: which teams a credential's creator may still act on");
  const row = await db("teams")
    .where("teams.id", teamId)
    .andWhere((q) =>
      q
        .where("teams.owner_user_id", userId)
        .orWhereExists(db("team_members").where("team_members.team_id", db.ref("teams.id")).andWhere("team_members.user_id", userId)),
    )
    .first("teams.id");
  return row !== undefined;
}

/**
 * Ends a person's membership of the actor's team (the owner has none to end). Their tokens on the
 * team stop acting on it from the next request (TENANT_MISMATCH). False when there was none.
 */
export async function endMembership(ctx: DomainContext, userId: string): Promise<boolean> {
  const removed = await teamMembersTable.rows(ctx).where({ user_id: userId }).delete();
  if (!removed) return false;
  const tokenIds: (string | number)[] = await tokensTable.rows(ctx).where({ user_id: userId }).pluck("id");
  afterCommit(ctx, { kind: "credentials-changed", tokenIds: tokenIds.map(String) });
  return true;
}

export async function getCurrentTeam(ctx: DomainContext) {
  const team = await teamsTable.rows(ctx).first();
  if (!team) throw notFound("team");
  return {
    id: team.id as string,
    name: team.name as string,
    owner_user_id: team.owner_user_id as string,
    personal: team.personal as boolean,
    created_at: new Date(team.created_at).toISOString(),
  };
}
