// The backends a test process uses: embedded (PGlite in memory, in-process KV) by default, or a
// fresh PostgreSQL database and a private Redis key prefix when TEST_DATABASE_URL / TEST_REDIS_URL
// are set. One database per process (the run's single process, or each worker of a parallel run),
// created lazily; names start with the run's id (TEST_RUN_ID, set by .mocharc.cjs) so the run's
// teardown can find every database and key its processes left (sweepRun).
import { randomBytes } from "node:crypto";
import knex from "knex";
import { createClient } from "redis";
import { migrate, openDatabase, type Database } from "../../src/db/database.ts";
import type { Kv } from "../../src/kv/kv.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { RedisKv } from "../../src/kv/redis.ts";

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);
export const usingRedis = Boolean(process.env.TEST_REDIS_URL);
const runPrefix = process.env.TEST_RUN_ID ?? randomBytes(4).toString("hex");
/** This process's id within the run: the run's id and a part of its own. */
export const runId = `${runPrefix}_${randomBytes(2).toString("hex")}`;
const DATABASE_PREFIX = "subbridge_test_";
const KEY_PREFIX = "sbtest:";

interface Backends {
  db: Database;
  /** postgres:// URL of this run's database, or null on PGlite. */
  databaseUrl: string | null;
}

let backends: Promise<Backends> | null = null;
const kvs: Kv[] = [];

/** Runs one statement on the TEST_DATABASE_URL server's maintenance connection. */
async function onServer<T = unknown>(sql: string, bindings: readonly string[] = []): Promise<T> {
  const admin = knex({ client: "pg", connection: process.env.TEST_DATABASE_URL!, pool: { min: 0, max: 1 } });
  try {
    return (await admin.raw(sql, bindings)) as T;
  } finally {
    await admin.destroy();
  }
}

/**
 * A new, empty PostgreSQL database on the TEST_DATABASE_URL server (named after this run and
 * `label`), for a test that needs one to itself; `drop` removes it.
 */
export async function emptyPostgresDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${DATABASE_PREFIX}${runId}${label ? `_${label}` : ""}`;
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
    kv = await RedisKv.connect(process.env.TEST_REDIS_URL!, `${KEY_PREFIX}${runId}:${space}:`);
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

/** Closes the KV stores opened so far (a parallel worker's file closes its own; the database stays). */
export async function closeKvs(): Promise<void> {
  await Promise.all(kvs.splice(0).map((kv) => kv.close()));
  sharedMemory.clear();
}

/** Closes everything this process opened and drops its database. */
export async function closeBackends(): Promise<void> {
  await closeKvs();
  if (!backends) return;
  const { db } = await backends;
  backends = null;
  await db.destroy();
  await runDatabase?.drop();
  runDatabase = null;
}

/**
 * Drops every database and deletes every Redis key of this run, whichever process made them: a
 * parallel run's workers are stopped by mocha without a chance to clean up after themselves.
 */
export async function sweepRun(): Promise<void> {
  if (usingPostgres) {
    const { rows } = await onServer<{ rows: { datname: string }[] }>("select datname from pg_database where starts_with(datname, ?)", [
      `${DATABASE_PREFIX}${runPrefix}_`,
    ]);
    for (const { datname } of rows) await onServer(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
  if (usingRedis) {
    const redis = createClient({ url: process.env.TEST_REDIS_URL! });
    await redis.connect();
    try {
      for await (const keys of redis.scanIterator({ MATCH: `${KEY_PREFIX}${runPrefix}_*`, COUNT: 1000 })) {
        if (keys.length) await redis.unlink(keys);
      }
    } finally {
      redis.destroy();
    }
  }
}
