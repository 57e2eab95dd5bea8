// The data layer: DATABASE_URL set -> PostgreSQL through pg; unset -> PGlite (PostgreSQL in WASM)
// on disk under DATA_DIR. The same Knex migrations serve both.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import knex, { type Knex } from "knex";
import ClientPgLite from "knex-pglite";
import { migrationSource } from "./migrations/index.ts";

export type Database = Knex;

export interface DatabaseOptions {
  /** postgres:// URL, or null for PGlite. */
  url: string | null;
  /** PGlite data directory; null = in memory (tests). */
  dataDir: string | null;
}

export function openDatabase(options: DatabaseOptions): Database {
  if (options.url) {
    return knex({ client: "pg", connection: options.url, pool: { min: 0, max: 10 } });
  }
  let connection: Record<string, string> = {};
  if (options.dataDir) {
    const dir = join(options.dataDir, "pgdata");
    mkdirSync(dir, { recursive: true });
    connection = { filename: dir };
  }
  return knex({ client: ClientPgLite as unknown as typeof knex.Client, dialect: "postgres", connection } as Knex.Config);
}

/** Any fixed number; pg_advisory_lock keys are bigints shared by every session of the server. */
const MIGRATION_LOCK = "5313092467716391";

async function latest(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/**
 * Runs pending migrations. Any number of processes may start together on one empty PostgreSQL
 * database: knex alone races there (two creates of knex_migrations, or MigrationLocked for the
 * loser), so a session advisory lock lets one process migrate while the others wait and then
 * find nothing left to do. The lock is released by the server if the process dies.
 */
export async function migrate(db: Database): Promise<string[]> {
  if (isEmbedded(db)) return latest(db);
  const connection = await db.client.acquireConnection();
  try {
    await db.raw("select pg_advisory_lock(?::bigint)", [MIGRATION_LOCK]).connection(connection);
    try {
      return await latest(db);
    } finally {
      await db.raw("select pg_advisory_unlock(?::bigint)", [MIGRATION_LOCK]).connection(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** The id this deployment's database carries (migration 002); Redis keys are namespaced by it. */
export async function deploymentId(db: Database): Promise<string> {
  const row = (await db("deployment").first("id")) as { id: string } | undefined;
  if (!row) throw new Error("the deployment table has no row; run the migrations");
  return row.id;
}

/** The embedded database runs one connection: isEmbedded lets callers avoid nested pools. */
export function isEmbedded(db: Database): boolean {
  return (db.client.config as Knex.Config).client !== "pg";
}
