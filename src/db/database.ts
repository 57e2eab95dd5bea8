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

export async function migrate(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** The embedded database runs one connection: isEmbedded lets callers avoid nested pools. */
export function isEmbedded(db: Database): boolean {
  return (db.client.config as Knex.Config).client !== "pg";
}
