// The portal area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// portal.purge-expired: sign-in handoffs and member sessions past their expiry by more than a day
// (both are already refused by time; the day keeps "this sign-in link has expired" answerable for
// a moment). Rows of many teams at once, named as such; no activity entry (nothing a team did).
import { unscoped } from "../../db/tenant.ts";
import { deleteInBatches } from "../../db/purge.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";

export const EXPIRED_PORTAL_ROWS_KEPT_MS = 24 * 3600_000;

export const purgeExpiredPortalRows: ScheduledJob = {
  name: "portal.purge-expired",
  cron: "17 * * * *",
  description: "Deletes portal sign-in handoffs and member sessions that expired more than a day ago.",
  async run({ db, now }) {
    const rows = unscoped(db, "a job clears every team's expired portal handoffs and sessions");
    const cutoff = new Date(now.getTime() - EXPIRED_PORTAL_ROWS_KEPT_MS);
    const handoffs = await deleteInBatches(rows, "portal_handoffs", "id", (q) => q.where("expires_at", "<=", cutoff));
    // A session's key is (browser key, project): one statement, as a browser key alone names sessions of several projects.
    const sessions = ((await rows("portal_sessions").where("expires_at", "<=", cutoff).delete().returning("key_hash")) as unknown[]).length;
    return { changed: handoffs + sessions };
  },
};

export const scheduledJobs: ScheduledJob[] = [purgeExpiredPortalRows];
