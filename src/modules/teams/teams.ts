// Teams: a team is visible to its owner and its members, to nobody else.
import type { Knex } from "knex";
import { notFound } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";

export async function canSeeTeam(db: Knex | Knex.Transaction, userId: string, teamId: string): Promise<boolean> {
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
  const team = await ctx.db("teams").where({ id: ctx.actor.teamId }).first();
  if (!team) throw notFound("team");
  return {
    id: team.id as string,
    name: team.name as string,
    owner_user_id: team.owner_user_id as string,
    personal: team.personal as boolean,
    created_at: new Date(team.created_at).toISOString(),
  };
}
