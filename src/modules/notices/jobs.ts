// Member reminders: three days before a period ends, a renewal reminder (with the amount that will
// be charged) or an expiry reminder (with where to renew), once per subscription and period end.
import type { Knex } from "knex";
import { botMessagesTable } from "../bot-messages/tables.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { sweepTeams } from "../subscriptions/sweep.ts";
import { subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { queueReminder, REMINDER_LEAD_MS, reminderKey, reminderKind } from "./notices.ts";

/** Subscriptions whose period ends within the reminder lead of `now` (and has not ended yet). */
const endingSoon = (now: Date) => (q: Knex.QueryBuilder) =>
  q
    .whereIn("status", ["trialing", "active", "canceled"])
    .where("ends_at", ">", now)
    .where("ends_at", "<=", new Date(now.getTime() + REMINDER_LEAD_MS));

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "notices.reminders",
    cron: "57 * * * *",
    description:
      "Three days before a period ends, each member with a platform account is reminded through the bot: a renewal reminder with the amount when a provider will charge again, an expiry reminder with the portal link when access ends there; once per subscription and period end.",
    run: (job) =>
      sweepTeams(job, { table: "subscriptions", where: endingSoon(job.now) }, async (ctx, ids) => {
        const rows = (await endingSoon(ctx.now)(subscriptionsTable.rows(ctx).whereIn("id", ids)).orderBy("id")) as (SubscriptionRow & {
          ends_at: Date;
        })[];
        // A subscription that began inside its own reminder window (a one-day plan) has just been told its terms.
        const due = rows.flatMap((row) => {
          const kind = reminderKind(row);
          const remindAt = new Date(row.ends_at).getTime() - REMINDER_LEAD_MS;
          return kind && new Date(row.started_at).getTime() <= remindAt ? [{ row, kind, key: reminderKey(kind, row) }] : [];
        });
        // Earlier runs queued most of them: only the rest are looked up and queued.
        const queued = new Set(
          (await botMessagesTable
            .rows(ctx)
            .whereIn(
              "dedupe_key",
              due.map((d) => d.key),
            )
            .pluck("dedupe_key")) as string[],
        );
        let changed = 0;
        for (const { row, kind, key } of due) if (!queued.has(key) && (await queueReminder(ctx, row, kind))) changed++;
        return changed;
      }),
  },
];
