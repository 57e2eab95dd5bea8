// Teams: a team is visible to its owner and its members, to nobody else. A token acts on exactly
// one (the pipeline refuses any other {team}); a creator may own or belong to several.
import { randomUUID } from "node:crypto";
import { ApiError, domainRefusal, notFound } from "../../errors.ts";
import { afterCommit, createDomainContext, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import type { PageWindow } from "../../db/pages.ts";
import { fetchPage, orderClause } from "../../db/pages.ts";
import { tokensTable } from "../tokens/tables.ts";
import { BUILT_IN_ROLES } from "./built-in-roles.ts";
import { presentTeam, teamsTable, type TeamRow } from "./tables.ts";
import { recordTeamChange } from "./team-change.ts";

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

/** The actor's team (the token's). */
export async function getCurrentTeam(ctx: DomainContext) {
  const team = (await teamsTable.rows(ctx).first()) as TeamRow | undefined;
  if (!team) throw notFound("team");
  return presentTeam(team);
}

/**
 * A new team's rows: the team and its built-in roles, recorded as the team's first activity.
 * `teamCtx` acts on the new team (its actor's teamId is the new id).
 */
export async function createTeamRecords(teamCtx: DomainContext, input: { name: string; ownerUserId: string; personal: boolean }): Promise<TeamRow> {
  const row = { name: input.name, owner_user_id: input.ownerUserId, personal: input.personal, created_at: teamCtx.now };
  await teamsTable.insert(teamCtx, row);
  const roles = unscoped(teamCtx, "the new team's built-in roles, team_id set to the new team");
  for (const role of BUILT_IN_ROLES) {
    await roles("roles").insert({
      id: randomUUID(),
      team_id: teamCtx.actor.teamId,
      code: role.code,
      name: role.name,
      abilities: "[]",
      built_in: true,
      created_at: teamCtx.now,
      updated_at: teamCtx.now,
    });
  }
  return { id: teamCtx.actor.teamId, ...row };
}

const TEAM_SORT: Record<string, string> = { created_at: "teams.created_at", name: "lower(teams.name)" };

/** Every team the actor's creator owns or belongs to. */
export async function listTeams(ctx: DomainContext & { actor: { userId: string } }, window: PageWindow) {
  const db = unscoped(ctx, "the creator's teams, all of them (a token acts on one, its creator may see several)");
  const userId = ctx.actor.userId;
  const query = db("teams").where((q) =>
    q
      .where("teams.owner_user_id", userId)
      .orWhereExists(db("team_members").where("team_members.team_id", db.ref("teams.id")).andWhere("team_members.user_id", userId)),
  );
  const sort = TEAM_SORT[window.sortBy] ?? TEAM_SORT.created_at!;
  const { rows, total } = await fetchPage<TeamRow>(
    query.select("teams.*"),
    window,
    `${orderClause(sort, window.sortDirection)}, teams.id ${window.sortDirection}`,
  );
  return { rows: rows.map(presentTeam), total };
}

/** Creates a team owned by the actor's creator (the token keeps acting on its own team). */
export async function createTeam(ctx: DomainContext & { actor: { userId: string } }, input: { name: string }) {
  const teamId = randomUUID();
  // The same actor and transaction, acting on the new team.
  const teamCtx = createDomainContext(
    unscoped(ctx, "the transaction, handed to the new team's own context"),
    { ...ctx.actor, teamId, projectIds: null },
    ctx.now,
  );
  const team = presentTeam(await createTeamRecords(teamCtx, { name: input.name, ownerUserId: ctx.actor.userId, personal: false }));
  await recordTeamChange(teamCtx, team, {
    activity: "created",
    description: `Team ${team.name} created`,
    properties: { name: team.name },
    event: "team.created",
    data: { team },
  });
  return team;
}

export async function updateTeam(ctx: DomainContext, input: { name: string }) {
  const before = await getCurrentTeam(ctx);
  await teamsTable.rows(ctx).update({ name: input.name });
  const team = { ...before, name: input.name };
  await recordTeamChange(ctx, team, {
    activity: "updated",
    description: `Team renamed to ${input.name}`,
    properties: { name: { from: before.name, to: input.name } },
    event: "team.updated",
    data: { team },
  });
  return team;
}

/**
 * Deletes the actor's team and everything it holds. Only the owner may; a personal team never.
 * Every token on it (the caller's too) stops working from the next request.
 */
export async function deleteTeam(ctx: DomainContext) {
  const team = await getCurrentTeam(ctx);
  if (team.owner_user_id !== ctx.actor.userId) {
    throw new ApiError("FORBIDDEN", "Only the team's owner can delete it.", { remediation: "Ask the team's owner to delete it." });
  }
  if (team.personal) throw domainRefusal("A personal team cannot be deleted; it goes with its creator's account.");
  const tokenIds: (string | number)[] = await tokensTable.rows(ctx).pluck("id");
  // The activity entry and the event are written first: the team's rows go with it (events cascade).
  await recordTeamChange(ctx, team, {
    activity: "deleted",
    description: `Team ${team.name} deleted`,
    properties: { name: team.name },
    event: "team.deleted",
    data: { team },
  });
  await teamsTable.rows(ctx).delete();
  afterCommit(ctx, { kind: "credentials-revoked", tokenIds: tokenIds.map(String) });
}
