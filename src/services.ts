// Opens what every surface and command shares: the database (migrated), the KV store, the app
// key, the logger and the clock.
import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";
import { deploymentId, migrate, openConfiguredDatabase, type Database, type OpenedDatabase } from "./db/database.ts";
import type { Kv } from "./kv/kv.ts";
import { MemoryKv } from "./kv/memory.ts";
import { RedisKv } from "./kv/redis.ts";
import { loadAppKey } from "./security/app-key.ts";
import { redactLogObject } from "./security/log-redaction.ts";
import { GroupedActivityWriter } from "./modules/activity/grouped-writer.ts";

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

/**
 * The database this process is configured for, before it is reached: a PostgreSQL pool (nothing
 * connects yet), or the embedded database, claimed for this process (refused while another owns it).
 */
export function openServiceDatabase(config: Config, logger: Logger): Promise<OpenedDatabase> {
  return openConfiguredDatabase({
    url: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    timeouts: config.databaseTimeouts,
    dataDir: config.dataDir,
    mode: "own",
    openInBackground: true,
    onFatal: (err) => {
      logger.fatal({ err }, "the embedded database stopped working; exiting");
      logger.flush();
      process.exit(70);
    },
  });
}

/**
 * Opens what the surfaces share: the database (migrated), Redis (its client waits for the server,
 * reconnecting by itself), the app key and the activity writer. Given `database`, a failure leaves
 * it open, so a start that met an outage can try again on it (src/startup.ts).
 */
export async function openServices(config: Config, logger = createLogger(config.logLevel), database?: OpenedDatabase): Promise<Services> {
  const opened = database ?? (await openServiceDatabase(config, logger));
  const { db } = opened;
  let kv: Kv;
  try {
    await opened.ready;
    await migrate(db);
    kv = config.redisUrl ? await RedisKv.connect(config.redisUrl, `${config.redisKeyPrefix}:${await deploymentId(db)}:`, logger) : new MemoryKv();
  } catch (err) {
    if (!database) await opened.close();
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
      database: opened.description,
      kv: config.redisUrl ? `Redis (${new URL(config.redisUrl).host})` : "in-process",
      appKey: appKey.source,
    },
    async close() {
      // Entries recorded by the last requests are written before the database closes.
      await activity.drain();
      await kv.close();
      await opened.close();
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    },
  };
}
