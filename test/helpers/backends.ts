// The backends a test run uses: embedded (PGlite in memory, in-process KV) by default, or a fresh
// PostgreSQL database and a private Redis key prefix when TEST_DATABASE_URL / TEST_REDIS_URL are
// set. One database per run, created lazily and dropped when the run ends.
import { randomBytes } from "node:crypto";
import knex from "knex";
import { migrate, openDatabase, type Database } from "../../src/db/database.ts";
import type { Kv } from "../../src/kv/kv.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { RedisKv } from "../../src/kv/redis.ts";

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);
export const usingRedis = Boolean(process.env.TEST_REDIS_URL);
export const runId = randomBytes(4).toString("hex");

interface Backends {
  db: Database;
  /** postgres:// URL of this run's database, or null on PGlite. */
  databaseUrl: string | null;
}

let backends: Promise<Backends> | null = null;
const kvs: Kv[] = [];

/** Runs one statement on the TEST_DATABASE_URL server's maintenance connection. */
async function onServer(sql: string): Promise<void> {
  const admin = knex({ client: "pg", connection: process.env.TEST_DATABASE_URL!, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(sql);
  } finally {
    await admin.destroy();
  }
}

/**
 * A new, empty PostgreSQL database on the TEST_DATABASE_URL server (named after this run and
 * `label`), for a test that needs one to itself; `drop` removes it.
 */
export async function emptyPostgresDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `subbridge_test_${runId}${label ? `_${label}` : ""}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

let runDatabase: { url: string; drop(): Promise<void> } | null = null;

export function testDatabase(): Promise<Backends> {
  backends ??= (async () => {
    runDatabase = usingPostgres ? await emptyPostgresDatabase("") : null;
    const databaseUrl = runDatabase?.url ?? null;
    const db = openDatabase({ url: databaseUrl });
    await migrate(db);
    return { db, databaseUrl };
  })();
  return backends;
}

/**
 * A KV store for one app instance. Instances given the same `shared` name share state: on Redis
 * through separate connections (as separate processes would), in memory through one object.
 */
const sharedMemory = new Map<string, MemoryKv>();
export async function testKv(options: { shared?: string; now?: () => number } = {}): Promise<Kv> {
  const space = options.shared ?? randomBytes(4).toString("hex");
  let kv: Kv;
  if (usingRedis) {
    kv = await RedisKv.connect(process.env.TEST_REDIS_URL!, `sbtest:${runId}:${space}:`);
  } else {
    let memory = sharedMemory.get(space);
    if (!memory) {
      memory = new MemoryKv(options.now);
      if (options.shared) sharedMemory.set(space, memory);
    }
    kv = memory;
  }
  kvs.push(kv);
  return kv;
}

export async function closeBackends(): Promise<void> {
  await Promise.all(kvs.splice(0).map((kv) => kv.close()));
  sharedMemory.clear();
  if (!backends) return;
  const { db } = await backends;
  backends = null;
  await db.destroy();
  await runDatabase?.drop();
  runDatabase = null;
}
