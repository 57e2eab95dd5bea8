// The values read when Prometheus scrapes, not counted as work happens: the database pool's
// connections (knex's tarn pool), the job queues' depth and age (pg-boss's table), the webhook
// delivery queue's (webhook_deliveries, through its partial index of queued rows), the mail and bot
// message outboxes' (queued, due, sending, failed: a message that never reached its person) and the
// access grants the platforms have not followed yet (failing ones: a member waiting to get in, or
// one who left still inside). Each read is bounded: a database that does not answer leaves its
// gauges out of that scrape, never stalls it.
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

interface OutboxRow {
  outbox: string;
  queued: string | number;
  due: string | number;
  sending: string | number;
  failed: string | number;
  oldest_due_seconds: string | number | null;
}

interface GrantSyncRow {
  unsynced: string | number;
  failing: string | number;
  oldest_failing_seconds: string | number | null;
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
  /** A query every gauge of one scrape shares: the first collect runs it, the others wait for the same answer. */
  const shared = <T>(what: string, query: () => Promise<T>) => {
    let pending: Promise<T | null> | null = null;
    return () => (pending ??= read(what, query).finally(() => (pending = null)));
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
  const jobQueues = shared("job queues", async (): Promise<JobQueueRow[]> => {
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
  });
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

  const deliveryQueue = shared("webhook delivery queue", async () => {
    const result = (await sql.raw(
      `select count(*) as queued,
                count(*) filter (where next_attempt_at <= now()) as due,
                count(*) filter (where lease_expires_at > now()) as in_flight,
                extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now() and (lease_expires_at is null or lease_expires_at <= now()))) as oldest_due_seconds
         from webhook_deliveries where status = 'queued'`,
    )) as { rows: DeliveryQueueRow[] };
    return result.rows[0] ?? null;
  });
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

  // The outboxes: each state through its partial index (queued, sending, failed).
  const outboxes = shared("outboxes", async () => {
    const of = (table: string) =>
      `select '${table === "mail_outbox" ? "mail" : "bot"}' as outbox,
              (select count(*) from ${table} where status = 'queued') as queued,
              (select count(*) from ${table} where status = 'queued' and next_attempt_at <= now()) as due,
              (select count(*) from ${table} where status = 'sending') as sending,
              (select count(*) from ${table} where status = 'failed') as failed,
              (select extract(epoch from now() - min(next_attempt_at)) from ${table} where status = 'queued' and next_attempt_at <= now()) as oldest_due_seconds`;
    return ((await sql.raw(`${of("mail_outbox")} union all ${of("bot_messages")}`)) as { rows: OutboxRow[] }).rows;
  });
  new Gauge({
    name: "subbridge_outbox_messages",
    help: "Mail and bot messages by outbox (mail, bot) and state: queued (due now or later), due, sending (a worker holds it), failed (given up: it never reached its person).",
    labelNames: ["outbox", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await outboxes()) ?? [])
        for (const state of ["queued", "due", "sending", "failed"] as const) this.set({ outbox: row.outbox, state }, Number(row[state]));
    },
  });
  new Gauge({
    name: "subbridge_outbox_oldest_due_age_seconds",
    help: "How long the oldest due message of each outbox has waited past its send time (0 when none waits).",
    labelNames: ["outbox"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await outboxes()) ?? []) this.set({ outbox: row.outbox }, Number(row.oldest_due_seconds ?? 0));
    },
  });

  // Grants of a platform mode the platform has not followed yet; failing ones have been refused or unanswered at least once.
  const grantSync = shared("access grants", async () => {
    const result = (await sql.raw(
      `select count(*) filter (where platform_attempts = 0) as unsynced,
              count(*) filter (where platform_attempts > 0) as failing,
              extract(epoch from now() - min(coalesce(revoked_at, created_at)) filter (where platform_attempts > 0)) as oldest_failing_seconds
       from access_grants where platform_synced_at is null and status in ('pending', 'revoked') and grant_mode <> 'creator_task'`,
    )) as { rows: GrantSyncRow[] };
    return result.rows[0] ?? null;
  });
  new Gauge({
    name: "subbridge_access_grants_unsynced",
    help: "Access the platforms have not given or taken away yet, by state: waiting (its first try) or failing (refused or unanswered; retried with backoff, the creator alerted).",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const row = await grantSync();
      if (!row) return;
      this.set({ state: "waiting" }, Number(row.unsynced));
      this.set({ state: "failing" }, Number(row.failing));
    },
  });
  new Gauge({
    name: "subbridge_access_grants_oldest_failing_age_seconds",
    help: "How long the oldest failing access grant has waited since it was given or revoked in the ledger (0 when none fails).",
    registers: [registry],
    async collect() {
      const row = await grantSync();
      if (row) this.set(Number(row.oldest_failing_seconds ?? 0));
    },
  });
}
