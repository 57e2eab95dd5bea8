// Opens what every surface and command shares: the database (migrated), the KV store, the app
// key, the logger and the clock.
import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";
import { deploymentId, migrate, openConfiguredDatabase, type Database } from "./db/database.ts";
import type { Kv } from "./kv/kv.ts";
import { MemoryKv } from "./kv/memory.ts";
import { RedisKv } from "./kv/redis.ts";
import { loadAppKey } from "./security/app-key.ts";
import { redactLogObject } from "./security/log-redaction.ts";
import { GroupedActivityWriter } from "./modules/activity/grouped-writer.ts";
import { TimeoutError, withTimeout } from "./observability/readiness.ts";

/** A configured backend (DATABASE_URL, REDIS_URL) that cannot be reached at start; the message names the variable. */
export class BackendUnavailableError extends Error {}

/** How long the start waits for Redis (the client retries a refused connection without end). */
const REDIS_CONNECT_TIMEOUT_MS = 10_000;

/** Errors of reaching PostgreSQL at all (network, authentication, a database that does not exist), not of the work asked of it. */
export function isConnectionFailure(err: unknown): boolean {
  const { code, name } = err as { code?: unknown; name?: unknown };
  if (name === "KnexTimeoutError") return true;
  if (typeof code !== "string") return false;
  return ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"].includes(code) || /^(28|3D)/.test(code);
}

export interface Services {
  config: Config;
  db: Database;
  kv: Kv;
  appKey: Buffer;
  logger: Logger;
  now: () => Date;
  /** The group-commit writer of activity entries that join no transaction (MCP reads and refusals); drained on close. */
  activity: GroupedActivityWriter;
  /** Human-readable description of the backends, for the start banner. */
  backends: { database: string; kv: string; appKey: string };
  close(): Promise<void>;
}

/** The shape of every log line: level, ISO time, credential-named properties redacted. */
export function loggerOptions(level: string): pino.LoggerOptions {
  return {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Defence in depth: nothing logs credentials, and if something did they would not be written.
    formatters: { log: redactLogObject },
  };
}

/**
 * JSON lines on stdout, gathered into 4 KB batches, each written at once by the server's own
 * thread (one write per dozen or so request lines), flushed every second and on shutdown. A write
 * per line was a measurable share of every request, and so were batches written through libuv's
 * threadpool (sync: false): each woke a pool thread to write a few KB, which on a busy core cost
 * the request pipeline more than the write itself (docs/performance.md). As with pino's default
 * destination, a log reader that stops reading holds the server up rather than letting lines pile
 * up in its memory.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 1000 });
  return pino(loggerOptions(level), destination);
}

/** Redis, or a BackendUnavailableError naming REDIS_URL when it cannot be reached in time. */
async function connectRedis(url: string, keyPrefix: string): Promise<Kv> {
  try {
    return await withTimeout(RedisKv.connect(url, keyPrefix), REDIS_CONNECT_TIMEOUT_MS, "Redis");
  } catch (err) {
    const reason = err instanceof TimeoutError ? `no answer within ${REDIS_CONNECT_TIMEOUT_MS / 1000} s` : (err as Error).message;
    throw new BackendUnavailableError(`REDIS_URL: could not connect to Redis at ${new URL(url).host}: ${reason}`);
  }
}

export async function openServices(config: Config, logger = createLogger(config.logLevel)): Promise<Services> {
  const database = await openConfiguredDatabase({
    url: config.databaseUrl,
    timeouts: config.databaseTimeouts,
    dataDir: config.dataDir,
    mode: "own",
    onFatal: (err) => {
      logger.fatal({ err }, "the embedded database stopped working; exiting");
      logger.flush();
      process.exit(70);
    },
  });
  const { db } = database;
  try {
    await migrate(db);
  } catch (err) {
    await database.close();
    if (config.databaseUrl && isConnectionFailure(err))
      throw new BackendUnavailableError(
        `DATABASE_URL: could not connect to PostgreSQL at ${new URL(config.databaseUrl).host}: ${(err as Error).message}`,
      );
    throw err;
  }
  let kv: Kv;
  try {
    kv = config.redisUrl ? await connectRedis(config.redisUrl, `${config.redisKeyPrefix}:${await deploymentId(db)}:`) : new MemoryKv();
  } catch (err) {
    await database.close();
    throw err;
  }
  const appKey = loadAppKey(config.appKey, config.dataDir);
  const activity = new GroupedActivityWriter(db, logger);
  return {
    config,
    db,
    kv,
    appKey: appKey.key,
    logger,
    now: () => new Date(),
    activity,
    backends: {
      database: database.description,
      kv: config.redisUrl ? `Redis (${new URL(config.redisUrl).host})` : "in-process",
      appKey: appKey.source,
    },
    async close() {
      // Entries recorded by the last requests are written before the database closes.
      await activity.drain();
      await kv.close();
      await database.close();
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    },
  };
}
