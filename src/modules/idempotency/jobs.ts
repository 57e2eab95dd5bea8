// The idempotency area's scheduled job (the worker in src/workers/jobs finds it here).
//
// idempotency.purge-expired deletes the responses kept for Idempotency-Key replays once their 24
// hours are over (keptResponse already ignores them; the rows, which hold encrypted response
// bodies, should not pile up). A credential's records, not a team's data: no activity, no event.
import { unscoped } from "../../db/tenant.ts";
import { deleteInBatches } from "../../db/purge.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { IDEMPOTENCY_TTL_MS } from "./records.ts";

/** Deletes, in batches, the kept responses older than 24 hours at `now`. */
export const purgeExpiredIdempotencyRecords: ScheduledJob = {
  name: "idempotency.purge-expired",
  cron: "37 * * * *",
  description: "Deletes the responses kept for Idempotency-Key replays once their 24 hours are over.",
  run: async ({ db, now }) => ({
    changed: await deleteInBatches(
      unscoped(db, "kept responses belong to credentials, not teams: a job clears the expired ones"),
      "idempotency_records",
      "record_key",
      (due) => due.where("created_at", "<=", new Date(now.getTime() - IDEMPOTENCY_TTL_MS)),
    ),
  }),
};

export const scheduledJobs: ScheduledJob[] = [purgeExpiredIdempotencyRecords];
