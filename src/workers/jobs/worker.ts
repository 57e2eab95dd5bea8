// The worker: runs every discovered ScheduledJob on its cron schedule through pg-boss, a job queue
// kept in PostgreSQL (schema "pgboss", created and upgraded by pg-boss itself on start). Each job
// is a pg-boss queue of the same name with a UTC cron schedule; pg-boss decides when a tick is
// due, lets one process insert it (a singleton per schedule and minute: several workers on one
// database run a tick once), hands it to one worker (SKIP LOCKED), retries a run that threw, and
// gives a job held by a worker that died to another once it expires. The job itself runs as the
// system actor at the worker's clock (injected: tests move it by hand). See README "Scheduled jobs".
import PgBoss from "pg-boss";
import type { Logger } from "pino";
import { exclusively, isEmbedded, type Database } from "../../db/database.ts";
import { directSettings } from "../../db/pool.ts";
import { isSharedEmbedded } from "../../embedded/shared.ts";
import type { JobRun, ScheduledJob } from "../../modules/jobs/scheduled-job.ts";

/** pg-boss's tables live in their own schema, beside (never among) the service's. */
export const QUEUE_SCHEMA = "pgboss";

/** The advisory lock workers take turns on while they set up (any fixed bigint, not the migrations'). */
const WORKER_START_LOCK = "5313092467716392";

export interface QueueTiming {
  /** How often an idle worker looks for a job of each queue (pg-boss polls: see README). */
  pollingIntervalSeconds: number;
  /** How often pg-boss looks for a due cron tick (1-45). */
  cronIntervalSeconds: number;
  /** Runs after the first when a job throws (each at the clock's time then). */
  retryLimit: number;
  retryDelaySeconds: number;
  /** A run still not finished after this long (its worker died) is retried by another worker... */
  expireInSeconds: number;
  /** ... once pg-boss's maintenance, run this often by one of the workers, has found it expired. */
  maintenanceIntervalSeconds: number;
  /** On stop, how long a running job may take to finish before it is failed (and retried later). */
  stopTimeoutMs: number;
}

export const DEFAULT_TIMING: QueueTiming = {
  pollingIntervalSeconds: 2,
  cronIntervalSeconds: 30,
  retryLimit: 3,
  retryDelaySeconds: 60,
  expireInSeconds: 15 * 60,
  maintenanceIntervalSeconds: 120,
  stopTimeoutMs: 20_000,
};

export interface JobWorkerOptions {
  db: Database;
  logger: Logger;
  jobs: readonly ScheduledJob[];
  /** The `now` each run is given (default: the wall clock). */
  clock?: () => Date;
  timing?: Partial<QueueTiming>;
  /** How jobs that act on a platform reach it (the connector drivers' settings and APP_KEY). */
  platformAccess?: JobRun["platformAccess"];
  /** The platform's Stripe, for the jobs that reconcile with it. */
  stripe?: JobRun["stripe"];
}

export interface JobWorker {
  /** Takes no new job, lets a running one finish (up to stopTimeoutMs), then returns. */
  stop(): Promise<void>;
}

/** pg-boss keeps a small pool of its own, opened with the service pool's settings (bounds included). */
const QUEUE_POOL_MAX = 2;

/**
 * Runs one job at `now` and logs the run (name, changed, time taken, and `queued`: which queue
 * entry and attempt); a throw is logged and rethrown.
 */
export async function runLogged(
  job: ScheduledJob,
  run: { db: Database; now: Date; logger: Logger; platformAccess?: JobRun["platformAccess"] | undefined; stripe?: JobRun["stripe"] | undefined },
  queued: Record<string, unknown> = {},
) {
  const started = Date.now();
  const fields = { job: job.name, now: run.now.toISOString(), ...queued };
  try {
    const { changed } = await job.run({
      db: run.db,
      now: run.now,
      logger: run.logger,
      ...(run.platformAccess ? { platformAccess: run.platformAccess } : {}),
      ...(run.stripe ? { stripe: run.stripe } : {}),
    });
    run.logger.info({ ...fields, changed, ms: Date.now() - started }, "scheduled job ran");
    return { changed };
  } catch (err) {
    run.logger.error({ ...fields, err, ms: Date.now() - started }, "scheduled job failed");
    throw err;
  }
}

export async function startJobWorker(options: JobWorkerOptions): Promise<JobWorker> {
  const { db, logger, jobs } = options;
  if (isEmbedded(db) && !isSharedEmbedded(db)) {
    throw new Error("the job worker needs PostgreSQL or the embedded database served on its socket (not in-memory PGlite)");
  }
  const clock = options.clock ?? (() => new Date());
  const timing = { ...DEFAULT_TIMING, ...options.timing };
  // pg-boss on the server's own address (DATABASE_DIRECT_URL) when the pool goes through PgBouncer.
  const settings = directSettings(db);
  if (!settings) throw new Error("the job worker needs the database's connection settings");
  const boss = new PgBoss({
    ...(settings as PgBoss.ConstructorOptions),
    max: QUEUE_POOL_MAX,
    schema: QUEUE_SCHEMA,
    cronMonitorIntervalSeconds: timing.cronIntervalSeconds,
    cronWorkerIntervalSeconds: Math.min(timing.cronIntervalSeconds, 5),
    maintenanceIntervalSeconds: timing.maintenanceIntervalSeconds,
  });
  boss.on("error", (err) => logger.error({ err }, "job queue error"));
  try {
    // Processes starting together on one database take turns: pg-boss creating its schema and the
    // queues at once in several sessions deadlocks in PostgreSQL.
    await exclusively(db, WORKER_START_LOCK, () => setUp(boss));
  } catch (err) {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    throw err;
  }
  async function setUp(boss: PgBoss) {
    await boss.start();
    for (const job of jobs) {
      await boss.createQueue(job.name, {
        name: job.name,
        retryLimit: timing.retryLimit,
        retryDelay: timing.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: timing.expireInSeconds,
      });
      await boss.work(job.name, { pollingIntervalSeconds: timing.pollingIntervalSeconds, batchSize: 1, includeMetadata: true }, async ([queued]) => {
        await runLogged(
          job,
          { db, now: clock(), logger, platformAccess: options.platformAccess, stripe: options.stripe },
          { job_id: queued!.id, attempt: queued!.retryCount + 1 },
        );
      });
      await boss.schedule(job.name, job.cron, {}, { tz: "UTC" });
    }
    // A job removed from the code keeps no schedule (its queue would fill with ticks nobody runs).
    const names = new Set(jobs.map((j) => j.name));
    for (const schedule of await boss.getSchedules()) if (!names.has(schedule.name)) await boss.unschedule(schedule.name);
  }
  logger.info({ jobs: jobs.map((j) => `${j.name} (${j.cron})`) }, "job worker started");
  return {
    async stop() {
      await boss.stop({ graceful: true, wait: true, close: true, timeout: timing.stopTimeoutMs });
      logger.info("job worker stopped");
    },
  };
}
