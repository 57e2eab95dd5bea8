// Access-code expiry: unredeemed codes whose expires_at has passed become expired
// (access_code.expired each). A code claimed by a redemption is never expired.
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { sweepTeams } from "../subscriptions/sweep.ts";
import { recordCodeChange } from "./codes.ts";
import { accessCodesTable, type AccessCodeRow } from "./tables.ts";

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "access-codes.expire",
    cron: "* * * * *",
    description: "Unredeemed access codes past their expiry become expired (access_code.expired).",
    run: (job) =>
      sweepTeams(
        job,
        { table: "access_codes", where: (q) => q.where({ status: "unredeemed" }).where("expires_at", "<=", job.now) },
        async (ctx, ids) => {
          const changes = { status: "expired" as const, expired_at: ctx.now, updated_at: ctx.now };
          const moved = (await accessCodesTable
            .rows(ctx)
            .whereIn("id", ids)
            .where({ status: "unredeemed" })
            .where("expires_at", "<=", ctx.now)
            .update(changes)
            .returning("*")) as AccessCodeRow[];
          for (const row of moved.sort((a, b) => a.id.localeCompare(b.id))) await recordCodeChange(ctx, row, "expired");
          return moved.length;
        },
      ),
  },
];
