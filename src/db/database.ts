// The data layer: DATABASE_URL set -> PostgreSQL through pg; unset -> PGlite (PostgreSQL in WASM)
// on disk under DATA_DIR, served to every process on a unix socket (embedded.ts), or in memory for
// tests. The same Knex migrations serve all three.
import { join } from "node:path";
import knex, { type Knex } from "knex";
import { createRequire } from "node:module";
import pg from "pg";
import { migrationSource } from "./migrations/index.ts";
import { isSharedEmbedded } from "../embedded/shared.ts";
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from "./timeouts.ts";
import { connectionSettings, directSettings, hasDirectAddress, knexLog, pgDatabase } from "./pool.ts";

export type Database = Knex;

/** PostgreSQL, or PGlite in memory (tests and benchmarks). DATA_DIR goes through openConfiguredDatabase. */
export function openDatabase(options: { url: string | null; timeouts?: DatabaseTimeouts; directUrl?: string | null }): Database {
  if (options.url) {
    const direct = options.directUrl && options.directUrl !== options.url ? { connectionString: options.directUrl } : undefined;
    return pgDatabase({ connectionString: options.url }, options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS, undefined, direct);
  }
  // Loaded here only: a process on PostgreSQL never loads PGlite (about 2 MB of its heap).
  const ClientPgLite = createRequire(import.meta.url)("knex-pglite") as unknown;
  return knex({ client: ClientPgLite as typeof knex.Client, dialect: "postgres", connection: {}, log: knexLog } as Knex.Config);
}

export interface OpenedDatabase {
  db: Database;
  /** For the start banner. */
  description: string;
  /** Settles once the database can be used: the embedded one may still be opening (openInBackground). */
  ready?: Promise<void>;
  close(): Promise<void>;
}

/**
 * The database a process is configured for: PostgreSQL when url is set, else the embedded one in
 * dataDir. "own": this process serves the embedded database (the server; refused while another
 * process owns it); "share": a client of the owner if there is one (operator commands).
 */
export async function openConfiguredDatabase(options: {
  url: string | null;
  /** DATABASE_DIRECT_URL: see Config.databaseDirectUrl. */
  directUrl?: string | null;
  timeouts?: DatabaseTimeouts;
  dataDir: string;
  mode: "own" | "share";
  onFatal?: (err: unknown) => void;
  /** The embedded database opens behind the claimed socket; see EmbeddedOptions.openInBackground. */
  openInBackground?: boolean;
}): Promise<OpenedDatabase> {
  if (options.url) {
    const db = openDatabase({ url: options.url, directUrl: options.directUrl ?? null, ...(options.timeouts ? { timeouts: options.timeouts } : {}) });
    const url = new URL(options.url);
    return { db, description: `PostgreSQL (${url.host}${url.pathname})`, close: () => db.destroy() };
  }
  const { openEmbeddedDatabase } = await import("../embedded/database.ts");
  const embedded = await openEmbeddedDatabase({
    dataDir: options.dataDir,
    mode: options.mode,
    waitMs: options.mode === "own" ? 10_000 : 0,
    timeouts: options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS,
    ...(options.onFatal ? { onFatal: options.onFatal } : {}),
    ...(options.openInBackground ? { openInBackground: true } : {}),
  });
  return {
    db: embedded.db,
    ready: embedded.opened,
    description: embedded.owner
      ? `PGlite in ${join(options.dataDir, "pgdata")}, served on ${embedded.socketPath} (psql -h ${options.dataDir})`
      : `PGlite served by another process on ${embedded.socketPath}`,
    close: () => embedded.close(),
  };
}

/** Any fixed number; pg_advisory_lock keys are bigints shared by every session of the server. */
const MIGRATION_LOCK = "5313092467716391";

async function latest(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/**
 * The processes sharing an embedded database share one PostgreSQL session, where an advisory
 * lock excludes nobody; knex's own lock row does, and the process that finds it taken waits.
 */
async function latestWhenFree(db: Database): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await latest(db);
    } catch (err) {
      if ((err as Error).name !== "MigrationLocked" || attempt >= 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Runs pending migrations. Any number of processes may start together on one empty PostgreSQL
 * database: knex alone races there (two creates of knex_migrations, or MigrationLocked for the
 * loser), so a session advisory lock lets one process migrate while the others wait and then
 * find nothing left to do. The lock is released by the server if the process dies.
 */
export async function migrate(db: Database): Promise<string[]> {
  if (isEmbedded(db)) return latestWhenFree(db);
  if (!hasDirectAddress(db)) return exclusively(db, MIGRATION_LOCK, () => latest(db));
  // Behind PgBouncer the migrations run on the server's own address: a migration may need session
  // state (SET, a lock held across its statements) that transaction pooling would hand to another client.
  const direct = knex({ client: "pg", connection: directSettings(db) as Knex.PgConnectionConfig, pool: { min: 0, max: 1 }, log: knexLog });
  try {
    return await exclusively(db, MIGRATION_LOCK, () => latest(direct));
  } finally {
    await direct.destroy();
  }
}

/** How long a process waits its turn for an advisory lock (another process migrating, say). */
const TURN_WAIT_MS = 120_000;

/**
 * Runs `work` while this process holds the PostgreSQL session advisory lock `key` (bigint text),
 * so processes starting together on one database take turns; the lock is held by a session of its
 * own, which the server releases when the session ends (here, or when the process dies). Embedded
 * databases are owned by one process: `work` just runs.
 */
export async function exclusively<T>(db: Database, key: string, work: () => Promise<T>): Promise<T> {
  // A session advisory lock through PgBouncer would stay on whichever server session ran it: direct.
  const settings = directSettings(db);
  if (isEmbedded(db) || !settings) return work();
  const session = new pg.Client({ ...settings, statement_timeout: TURN_WAIT_MS, lock_timeout: TURN_WAIT_MS, query_timeout: TURN_WAIT_MS + 5_000 });
  // A session the server ends while idle (a terminated backend, a restart) emits 'error', which
  // unheard would end the process: its lock is gone with it, and the work's own statements meet the outage.
  session.on("error", () => undefined);
  try {
    await session.connect();
    await session.query("select pg_advisory_lock($1::bigint)", [key]);
    return await work();
  } finally {
    // Ending the session releases the lock (an unlock first would be one more round trip to fail).
    await session.end().catch(() => undefined);
  }
}

/** The id this deployment's database carries (migration 002); Redis keys are namespaced by it. */
export async function deploymentId(db: Database): Promise<string> {
  const row = (await db("deployment").first("id")) as { id: string } | undefined;
  if (!row) throw new Error("the deployment table has no row; run the migrations");
  return row.id;
}

/** PGlite, in memory or served on DATA_DIR's socket (one PostgreSQL session for every client). */
export function isEmbedded(db: Database): boolean {
  return connectionSettings(db) === null || isSharedEmbedded(db);
}
