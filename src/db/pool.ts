// The pool every PostgreSQL connection of a process comes from: knex's own, on pg, each connection
// opened with the bounds of timeouts.ts. The embedded database's socket is reached the same way.
import knex, { type Knex } from "knex";
import type pg from "pg";
import { boundedConnection, boundedPool, type DatabaseTimeouts } from "./timeouts.ts";

/** Connections the pool keeps open at most (per process; each is one PostgreSQL backend). */
const POOL_MAX = 10;

/** The pg settings each database's pool connects with: a session of its own opens with the same (exclusively). */
const sessionSettings = new WeakMap<Knex, pg.ClientConfig>();

/**
 * Where knex's own warnings go (a connection that failed, an acquire that timed out): standard
 * error, one line each. Its default, console.log, wrote them into standard output, between the
 * server's JSON log lines and into the operator CLI's JSON answer.
 */
export const knexLog: Knex.Config["log"] = {
  warn: (message: unknown) => process.stderr.write(`knex: ${String(message)}\n`),
  error: (message: unknown) => process.stderr.write(`knex: ${String(message)}\n`),
  deprecate: (method: string, alternative: string) => process.stderr.write(`knex: ${method} is deprecated, use ${alternative}\n`),
  debug: () => undefined,
};

/** The direct (not pooled by PgBouncer) settings of each database whose pool goes through one: see directSettings. */
const directSessionSettings = new WeakMap<Knex, pg.ClientConfig>();

/**
 * A knex instance on a pg pool whose every connection carries the bounds of `timeouts`; `direct`,
 * when the pool's address is a PgBouncer in transaction pooling mode, is the server's own address
 * for what needs a session of its own (DATABASE_DIRECT_URL).
 */
export function pgDatabase(connection: pg.ClientConfig, timeouts: DatabaseTimeouts, max = POOL_MAX, direct?: pg.ClientConfig): Knex {
  const settings = boundedConnection(connection, timeouts);
  const db = knex({ client: "pg", connection: settings as Knex.PgConnectionConfig, pool: boundedPool(max, timeouts), log: knexLog });
  sessionSettings.set(db, settings);
  if (direct) directSessionSettings.set(db, boundedConnection(direct, timeouts));
  return db;
}

/**
 * Settings for a session that must stay one server session (a session advisory lock, pg-boss, the
 * migrations): the direct address when one was given, else the pool's own (null for PGlite in memory).
 */
export function directSettings(db: Knex): pg.ClientConfig | null {
  return directSessionSettings.get(db) ?? connectionSettings(db);
}

/** Whether `db`'s pool goes through a pooler and has a direct address beside it. */
export function hasDirectAddress(db: Knex): boolean {
  return directSessionSettings.has(db);
}

/** The pg settings `db`'s pool connects with (null for PGlite in memory): for a session or pool of its own. */
export function connectionSettings(db: Knex): pg.ClientConfig | null {
  return sessionSettings.get(db) ?? null;
}
