// The payments area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// payments.expire-checkouts: a checkout left open for two days is expired, so an invoice link made
// for it (Telegram's do not lapse) is declined at the pre-checkout query instead of charging for a
// plan the member may no longer want. Two days outlast a Stripe Checkout Session (24 hours at most),
// and a payment the provider reports for an expired checkout is still honoured (apply.ts): money
// taken always starts the subscription or is refunded.
//
// payments.reconcile (reconcile.ts): what the providers know and we missed is applied, and refunds
// owed to members are retried.
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { sweepTeams } from "../subscriptions/sweep.ts";
import { reconcileJob } from "./reconcile.ts";
import { checkoutsTable } from "./tables.ts";

/** How long a checkout stays open. */
export const CHECKOUT_OPEN_MS = 48 * 3600_000;

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "payments.expire-checkouts",
    cron: "*/15 * * * *",
    description: "Checkouts left open for two days expire: an invoice made for one is then declined before any charge.",
    run: (job) =>
      sweepTeams(
        job,
        {
          table: "payment_checkouts",
          where: (q) => q.where({ status: "open" }).where("created_at", "<=", new Date(job.now.getTime() - CHECKOUT_OPEN_MS)),
        },
        async (ctx, ids) => checkoutsTable.rows(ctx).whereIn("id", ids).where({ status: "open" }).update({ status: "expired" }),
      ),
  },
  reconcileJob,
];
