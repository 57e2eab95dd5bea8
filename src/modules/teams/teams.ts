// Teams: a team is visible to its owner and its members, to nobody else.
import { notFound } from "../../errors.ts";
import { tenantTable, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";

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
