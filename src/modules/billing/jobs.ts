// The billing area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// billing.end-grace: a creator whose tier renewal failed keeps the tier for BILLING_GRACE_MS (7
// days from the failed renewal) while Stripe retries; once the grace is over the tier falls back to
// Free, whatever Stripe's retry schedule (an operator may have set longer retries than the grace).
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { endPastGraces } from "./tier-subscription.ts";

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "billing.end-grace",
    cron: "*/15 * * * *",
    description: "A creator whose tier renewal failed falls back to Free once the 7-day grace is over.",
    run: (job) => endPastGraces(job.db, job.now),
  },
];
