// The creator's place on a team, in words for the consent page: "owner", or the name of the role
// their membership holds (an OAuth access token acts with exactly what that place grants).
import { unscoped, type Db } from "../../../db/tenant.ts";

/** "owner", the role's name, or null when the creator neither owns nor belongs to the team. */
export async function placeOnTeam(from: Db, userId: string, teamId: string): Promise<string | null> {
  const db = unscoped(from, "the consent page names the creator's role on the team they are about to approve for");
  const row = (await db("teams as t")
    .leftJoin("team_members as m", (j) => j.on("m.team_id", "t.id").andOnVal("m.user_id", userId))
    .leftJoin("roles as r", "r.id", "m.role_id")
    .where("t.id", teamId)
    .first("t.owner_user_id", "m.user_id as member", "r.name as role")) as
    { owner_user_id: string; member: string | null; role: string | null } | undefined;
  if (!row) return null;
  if (row.owner_user_id === userId) return "owner";
  if (!row.member) return null;
  return row.role ?? "member";
}
