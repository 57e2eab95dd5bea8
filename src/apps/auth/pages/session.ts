// Browser sessions on {auth_url} (koa-session with the database as its store, so any number of
// processes share them): the cookie holds a random key, the table its SHA-256 and the session's
// data; a session nobody signed in to is kept in the KV store instead, for 15 minutes (anyone can
// start one, so it must not cost a durable row). Signing in regenerates the key (no fixation);
// signing out deletes the row. A session acts
// on one team at a time, chosen with the team switcher.
import type Koa from "koa";
import createSession from "koa-session";
import { randomToken, sha256Hex } from "../../../security/crypto.ts";
import { unscoped, type Db } from "../../../db/tenant.ts";
import type { AuthDeps } from "../deps.ts";

/** A session lasts two weeks from its last renewal. */
export const SESSION_MAX_AGE_MS = 14 * 24 * 3600_000;
/** How long confirming it is them (password or a second factor) lets a creator change how they sign in. */
export const REAUTHENTICATION_WINDOW_MS = 10 * 60_000;

export interface SessionData {
  /** The signed-in creator. */
  uid?: string;
  /** The team the session acts on. */
  team?: string;
  /** Password checked, second factor still owed (sign-in is not complete). */
  pending?: { uid: string; returnTo: string; at: number };
  /** When the signed-in creator last confirmed it is them (ms); kept in the session row, never read from the client. */
  reauthenticated?: { uid: string; at: number };
  /** Anything a flow keeps between two requests (a WebAuthn challenge). */
  [key: string]: unknown;
}

/**
 * A session without a signed-in creator (a passkey sign-in's challenge, a password waiting for its
 * second factor) lives this long in the KV store and never as a row, since anyone may start one;
 * longer than what it holds lives (a challenge 5 minutes, a pending sign-in 10).
 */
export const ANONYMOUS_SESSION_MS = 15 * 60_000;

const sessions = (db: Db) => unscoped(db, "browser sessions belong to people, not teams")("auth_sessions");
const anonymousKey = (key: string) => `auth-session:${sha256Hex(key)}`;

/**
 * The session middleware: one cookie, HttpOnly, SameSite=Lax, Secure and __Host- on https. A
 * session gains its creator only under a new key (establishSession) and loses it only by ending,
 * so a key's data is either a row (signed in) or a KV entry (anonymous), never both.
 */
export function sessionMiddleware(app: Koa, deps: Pick<AuthDeps, "db" | "kv" | "now" | "authUrl">): Koa.Middleware {
  const secure = new URL(deps.authUrl).protocol === "https:";
  return createSession(
    {
      key: secure ? "__Host-sb_session" : "sb_session",
      maxAge: SESSION_MAX_AGE_MS,
      httpOnly: true,
      sameSite: "lax",
      secure,
      signed: false,
      renew: true,
      genid: () => randomToken(43),
      store: {
        async get(key: string) {
          const row = (await sessions(deps.db)
            .where({ key_hash: sha256Hex(key) })
            .where("expires_at", ">", deps.now())
            .first("data")) as { data: SessionData | string } | undefined;
          if (row) return typeof row.data === "string" ? JSON.parse(row.data) : row.data;
          const anonymous = await deps.kv.get(anonymousKey(key));
          return anonymous === null ? undefined : JSON.parse(anonymous);
        },
        async set(key: string, data: SessionData, maxAge: number | string) {
          const now = deps.now();
          const ms = typeof maxAge === "number" ? maxAge : SESSION_MAX_AGE_MS;
          if (typeof data.uid !== "string") {
            await deps.kv.set(anonymousKey(key), JSON.stringify(data), { ttlMs: Math.min(ms, ANONYMOUS_SESSION_MS) });
            return;
          }
          await sessions(deps.db)
            .insert({
              key_hash: sha256Hex(key),
              user_id: data.uid,
              data: JSON.stringify(data),
              expires_at: new Date(now.getTime() + ms),
              created_at: now,
              updated_at: now,
            })
            .onConflict("key_hash")
            .merge(["user_id", "data", "expires_at", "updated_at"]);
        },
        async destroy(key: string) {
          await sessions(deps.db)
            .where({ key_hash: sha256Hex(key) })
            .delete();
          const anonymous = await deps.kv.get(anonymousKey(key));
          if (anonymous !== null) await deps.kv.compareAndDelete(anonymousKey(key), anonymous);
        },
      },
    },
    app,
  );
}

/** The request's session data (koa-session's object: writing to it saves it). */
export function sessionOf(ctx: Koa.Context): SessionData {
  return (ctx as unknown as { session: SessionData }).session;
}

/** Starts a signed-in session under a new key (the old one, and anything it held, is gone). */
export async function establishSession(ctx: Koa.Context, userId: string, teamId: string | null): Promise<void> {
  const holder = ctx as unknown as { session: SessionData & { regenerate(): Promise<void> } };
  await holder.session.regenerate();
  holder.session.uid = userId;
  if (teamId) holder.session.team = teamId;
}

/** Notes that the session's creator just confirmed it is them (the security page's changes open for a while). */
export function markReauthenticated(ctx: Koa.Context, userId: string, now: Date): void {
  sessionOf(ctx).reauthenticated = { uid: userId, at: now.getTime() };
}

/** When the creator's re-authentication in this session stops counting, or null when there is none still counting. */
export function reauthenticationEndsAt(ctx: Koa.Context, userId: string, now: Date): Date | null {
  const mark = sessionOf(ctx).reauthenticated;
  if (!mark || mark.uid !== userId || typeof mark.at !== "number") return null;
  const age = now.getTime() - mark.at;
  return age >= 0 && age < REAUTHENTICATION_WINDOW_MS ? new Date(mark.at + REAUTHENTICATION_WINDOW_MS) : null;
}

/** Ends the session (its row is deleted; the cookie is cleared). */
export function endSession(ctx: Koa.Context): void {
  (ctx as unknown as { session: SessionData | null }).session = null;
}

/**
 * Ends every other session of the creator: after a change to how they sign in (a second factor on
 * or off, a passkey added or removed, new recovery codes), a browser signed in before the change
 * (perhaps someone else's) must sign in again under the new rules. This session stays.
 */
export async function endOtherSessions(ctx: Koa.Context, db: Db, userId: string): Promise<void> {
  const own = (ctx as unknown as { session: { externalKey?: string } | null }).session?.externalKey;
  const others = sessions(db).where({ user_id: userId });
  await (own ? others.whereNot({ key_hash: sha256Hex(own) }) : others).delete();
}
