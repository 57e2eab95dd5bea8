// The team area's tenant tables (declared once; every query on them goes through these).
import { tenantTable } from "../../db/tenant.ts";

/** A team is its own tenant: its row is the one whose id is the actor's team. */
export const teamsTable = tenantTable("teams", { team: "id" });

/** Memberships of the team's people (the owner is not one: teams.owner_user_id). */
export const teamMembersTable = tenantTable("team_members", { team: "team_id" });

export const invitationsTable = tenantTable("team_invitations", { team: "team_id" });

export interface TeamRow {
  id: string;
  name: string;
  owner_user_id: string;
  personal: boolean;
  created_at: Date;
}

export function presentTeam(team: TeamRow) {
  return {
    id: team.id,
    name: team.name,
    owner_user_id: team.owner_user_id,
    personal: team.personal,
    created_at: new Date(team.created_at).toISOString(),
  };
}
