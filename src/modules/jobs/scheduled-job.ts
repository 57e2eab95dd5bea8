// What a scheduled job is (the worker runs them; see src/workers/jobs). An area declares its
// jobs in src/modules/<area>/jobs.ts as `export const scheduledJobs: ScheduledJob[]`; the worker
// finds them there, so adding a job edits no shared list.
import type { Db } from "../../db/tenant.ts";
import type { Logger } from "pino";
import type { AccessSyncEnvironment } from "../connectors/access-sync.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import type { StripePayments } from "../payments/stripe/stripe-payments.ts";

export interface JobRun {
  /** The database (not a transaction): a job opens one transaction per team it changes. */
  db: Db;
  /** The job's clock: every "is it due" decision uses this, never Date.now() (tests inject it). */
  now: Date;
  /** How the connector drivers reach their platforms (jobs that act on a platform need it), and the loaded connector packages. */
  platformAccess?: AccessSyncEnvironment & { connectors?: ConnectorRegistry };
  /** The platform's Stripe (jobs that read or act on Stripe need it); absent = none. */
  stripe?: StripePayments | null;
  logger?: Logger;
}

export interface ScheduledJob {
  /** Unique, dotted: "<area>.<what>", e.g. "subscriptions.expire". */
  name: string;
  /** Five-field cron expression (UTC) saying how often the worker runs it. */
  cron: string;
  description: string;
  /**
   * Does what is due at `now` and returns how many rows it changed. Must be idempotent: a second
   * run at the same `now` (or two workers racing) changes nothing more. Changes are made as the
   * system actor (actor_kind system), one transaction per team, with activity entries and events.
   */
  run(job: JobRun): Promise<{ changed: number }>;
}
