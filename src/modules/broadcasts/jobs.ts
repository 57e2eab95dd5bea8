// Scheduled broadcasts start when their send_at comes: every minute, each due one is started in its
// team's transaction (recipients snapshotted then, opted-out members counted, not sent).
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { sweepTeams } from "../subscriptions/sweep.ts";
import { sendBroadcastNow } from "./sending.ts";
import { broadcastsTable, type BroadcastRow } from "./tables.ts";

const due = (now: Date) => (q: any) => q.where({ status: "scheduled" }).where("send_at", "<=", now);

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "broadcasts.start",
    cron: "* * * * *",
    description:
      "Starts each scheduled broadcast whose send_at has come: its recipients are snapshotted from the segment and their messages queued for the bot message worker.",
    run: (job) =>
      sweepTeams(job, { table: "broadcasts", where: due(job.now) }, async (ctx, ids) => {
        const rows = (await due(ctx.now)(broadcastsTable.rows(ctx).whereIn("id", ids)).orderBy("send_at").select("id", "project_id")) as Pick<
          BroadcastRow,
          "id" | "project_id"
        >[];
        let changed = 0;
        for (const row of rows) if ((await sendBroadcastNow(ctx, row.project_id, row.id)).started_at !== null) changed++;
        return changed;
      }),
  },
];
