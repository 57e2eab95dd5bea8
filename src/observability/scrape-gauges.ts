// The values read when Prometheus scrapes, not counted as work happens: the database pool's
// connections (knex's tarn pool), the job queues' depth and age (pg-boss's table) and the webhook
// delivery queue's (webhook_deliveries, through its partial index of queued rows). Each read is
// bounded: a database that does not answer leaves its gauges out of that scrape, never stalls it.
import { Gauge, type Registry } from "prom-client";
import type { Logger } from "pino";
import type { Database } from "../db/database.ts";
import { unscoped } from "../db/tenant.ts";
import { QUEUE_SCHEMA } from "../workers/jobs/worker.ts";
import { withTimeout } from "./readiness.ts";

/** The part of tarn's Pool (knex's pool) read here. */
interface PoolNumbers {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

/** knex's pool; absent for PGlite in memory (one in-process session, no pool). */
function poolOf(db: Database): PoolNumbers | null {
  return ((db as unknown as { client: { pool?: PoolNumbers } }).client.pool ?? null) as PoolNumbers | null;
}

interface JobQueueRow {
  name: string;
  queued: string | number;
  active: string | number;
  oldest_seconds: string | number | null;
}

interface DeliveryQueueRow {
  queued: string | number;
  due: string | number;
  in_flight: string | number;
  oldest_due_seconds: string | number | null;
}

export interface ScrapeGaugeDeps {
  db: Database;
  logger: Logger;
  /** Bound on each scrape-time query. */
  timeoutMs: number;
}

/** Registers the scrape-time gauges on `registry`. */
export function registerScrapeGauges(registry: Registry, deps: ScrapeGaugeDeps): void {
  const { db, logger, timeoutMs } = deps;
  const sql = unscoped(db, "the metrics scrape counts every team's queued deliveries");
  const read = async <T>(what: string, query: () => Promise<T>): Promise<T | null> => {
    try {
      return await withTimeout(query(), timeoutMs, what);
    } catch (err) {
      logger.debug({ err: (err as Error).message }, `metrics: ${what} not read`);
      return null;
    }
  };

  new Gauge({
    name: "subbridge_db_pool_connections",
    help: "The database pool's connections by state (used, free), and requests waiting (pending_acquires, pending_creates).",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const pool = poolOf(db);
      if (!pool) return;
      this.set({ state: "used" }, pool.numUsed());
      this.set({ state: "free" }, pool.numFree());
      this.set({ state: "pending_acquires" }, pool.numPendingAcquires());
      this.set({ state: "pending_creates" }, pool.numPendingCreates());
    },
  });
  new Gauge({
    name: "subbridge_db_pool_max",
    help: "The most connections the database pool opens.",
    registers: [registry],
    collect() {
      const pool = poolOf(db);
      if (pool) this.set(pool.max);
    },
  });

  // pg-boss's jobs: queued (created or waiting to retry, due now), running, and how long the oldest due one has waited.
  let jobRows: Promise<JobQueueRow[] | null> | null = null;
  const jobQueues = () =>
    (jobRows ??= read("job queues", async () => {
      // No queue table until a worker has started on this database.
      const exists = (await sql.raw("select to_regclass(?) as t", [`${QUEUE_SCHEMA}.queue`])) as { rows: { t: string | null }[] };
      if (!exists.rows[0]?.t) return [];
      const result = (await sql.raw(
        `select queue.name,
                count(*) filter (where job.state in ('created', 'retry') and job.start_after <= now()) as queued,
                count(*) filter (where job.state = 'active') as active,
                extract(epoch from now() - min(job.start_after) filter (where job.state in ('created', 'retry') and job.start_after <= now())) as oldest_seconds
         from ${QUEUE_SCHEMA}.queue queue
         left join ${QUEUE_SCHEMA}.job job on job.name = queue.name and job.state in ('created', 'retry', 'active')
         group by queue.name`,
      )) as { rows: JobQueueRow[] };
      return result.rows;
    }).finally(() => (jobRows = null)));
  new Gauge({
    name: "subbridge_jobs_queued",
    help: "Scheduled-job runs due and waiting for a worker, by queue (job name).",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await jobQueues()) ?? []) this.set({ queue: row.name }, Number(row.queued));
    },
  });
  new Gauge({
    name: "subbridge_jobs_active",
    help: "Scheduled-job runs a worker holds now, by queue.",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await jobQueues()) ?? []) this.set({ queue: row.name }, Number(row.active));
    },
  });
  new Gauge({
    name: "subbridge_jobs_oldest_queued_age_seconds",
    help: "How long the oldest due job run has waited for a worker, by queue (0 when none waits).",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await jobQueues()) ?? []) this.set({ queue: row.name }, Number(row.oldest_seconds ?? 0));
    },
  });

  let deliveryRow: Promise<DeliveryQueueRow | null> | null = null;
  const deliveryQueue = () =>
    (deliveryRow ??= read("webhook delivery queue", async () => {
      const result = (await sql.raw(
        `select count(*) as queued,
                count(*) filter (where next_attempt_at <= now()) as due,
                count(*) filter (where lease_expires_at > now()) as in_flight,
                extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now() and (lease_expires_at is null or lease_expires_at <= now()))) as oldest_due_seconds
         from webhook_deliveries where status = 'queued'`,
      )) as { rows: DeliveryQueueRow[] };
      return result.rows[0] ?? null;
    }).finally(() => (deliveryRow = null)));
  const deliveryGauge = (name: string, help: string, value: (row: DeliveryQueueRow) => string | number | null) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const row = await deliveryQueue();
        if (row) this.set(Number(value(row) ?? 0));
      },
    });
  deliveryGauge("subbridge_webhook_deliveries_queued", "Webhook deliveries not yet delivered or given up (due now or later).", (r) => r.queued);
  deliveryGauge("subbridge_webhook_deliveries_due", "Queued webhook deliveries whose next attempt is due now.", (r) => r.due);
  deliveryGauge("subbridge_webhook_deliveries_in_flight", "Queued webhook deliveries a worker holds (an attempt under way).", (r) => r.in_flight);
  deliveryGauge(
    "subbridge_webhook_deliveries_oldest_due_age_seconds",
    "How long the oldest due, unclaimed webhook delivery has waited past its attempt time (0 when none waits).",
    (r) => r.oldest_due_seconds,
  );
}
