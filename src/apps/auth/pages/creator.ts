// Who the page is for: the signed-in creator, their teams, and the team the session acts on (kept
// only while the creator may still see it; otherwise their current team, else their first).
import type Koa from "koa";
import { unscoped, type Db } from "../../../db/tenant.ts";
import { sessionOf } from "./session.ts";

export interface SignedIn {
  userId: string;
  email: string;
  /** The team the session acts on; null for a creator who belongs to no team. */
  teamId: string | null;
  teams: { id: string; name: string }[];
}

/** Every team a creator owns or belongs to, by name. */
export async function teamsOf(from: Db, userId: string): Promise<{ id: string; name: string }[]> {
  const db = unscoped(from, "the teams a signed-in creator may act on (the team switcher)");
  return (await db("teams")
    .where((q) =>
      q
        .where("teams.owner_user_id", userId)
        .orWhereExists(db("team_members").where("team_members.team_id", db.ref("teams.id")).andWhere("team_members.user_id", userId)),
    )
    .orderByRaw("lower(teams.name), teams.id")
    .select("teams.id", "teams.name")) as { id: string; name: string }[];
}

/** The signed-in creator, or null (no session, or its creator is gone). */
export async function signedInCreator(ctx: Koa.Context, db: Db): Promise<SignedIn | null> {
  const state = ctx.state as { creator?: SignedIn | null };
  if (state.creator !== undefined) return state.creator;
  const session = sessionOf(ctx);
  let creator: SignedIn | null = null;
  if (typeof session.uid === "string") {
    const users = unscoped(db, "the session's creator");
    const user = (await users("users").where({ id: session.uid }).first("id", "email", "current_team_id")) as
      { id: string; email: string; current_team_id: string | null } | undefined;
    if (user) {
      const teams = await teamsOf(db, user.id);
      const visible = (id: unknown) => typeof id === "string" && teams.some((t) => t.id === id);
      const teamId = visible(session.team) ? (session.team as string) : visible(user.current_team_id) ? user.current_team_id : (teams[0]?.id ?? null);
      if (teamId !== session.team) session.team = teamId ?? undefined;
      creator = { userId: user.id, email: user.email, teamId, teams };
    }
  }
  state.creator = creator;
  return creator;
}

/** The signed-in creator; otherwise the response becomes a redirect to sign-in (coming back here) and null is returned. */
export async function requireCreator(ctx: Koa.Context, db: Db): Promise<SignedIn | null> {
  const creator = await signedInCreator(ctx, db);
  if (creator) return creator;
  const here = ctx.method === "GET" ? ctx.path + (ctx.querystring ? `?${ctx.querystring}` : "") : "/";
  ctx.redirect(`/sign-in?return_to=${encodeURIComponent(here)}`);
  return null;
}
