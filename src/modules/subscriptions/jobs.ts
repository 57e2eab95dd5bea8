// Subscription jobs: expiry at the end of the paid period (grants revoked, the member's status
// derived again), and the end of a trial (trialing -> active, subscription.activated).
import type { Knex } from "knex";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { refreshMemberStatus } from "../members/status.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { expireSubscription, PAYMENT_GRACE_MS, presentSubscription } from "./subscriptions.ts";
import { sweepTeams } from "./sweep.ts";
import { subscriptionsTable, type SubscriptionRow } from "./tables.ts";

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "subscriptions.expire",
    cron: "* * * * *",
    description:
      "Subscriptions whose ends_at has passed expire (a provider-billed one when its renewal has not come within the payment grace; a window's pass at its window's end): grants revoked (member.resource_removed per granted one), subscription.expired, member churned when it was the last.",
    run: (job) =>
      sweepTeams(
        job,
        {
          table: "subscriptions",
          where: (q: Knex.QueryBuilder) =>
            q.where((due: Knex.QueryBuilder) =>
              due
                .where((ended: Knex.QueryBuilder) => ended.whereIn("status", ["canceled", "past_due"]).where("ends_at", "<=", job.now))
                .orWhere((own: Knex.QueryBuilder) =>
                  own.whereIn("status", ["trialing", "active"]).whereNull("provider").where("ends_at", "<=", job.now),
                )
                // A window's pass ends with its window: no renewal is on its way.
                .orWhere((pass: Knex.QueryBuilder) =>
                  pass.whereIn("status", ["trialing", "active"]).whereNotNull("pass_window_id").where("ends_at", "<=", job.now),
                )
                // A provider-billed period ends when its renewal report does not come within the grace.
                .orWhere((billed: Knex.QueryBuilder) =>
                  billed
                    .whereIn("status", ["trialing", "active"])
                    .whereNotNull("provider")
                    .where("ends_at", "<=", new Date(job.now.getTime() - PAYMENT_GRACE_MS)),
                ),
            ),
        },
        async (ctx, ids) => {
          let changed = 0;
          for (const id of [...ids].sort()) if (await expireSubscription(ctx, id)) changed++;
          return changed;
        },
      ),
  },
  {
    name: "subscriptions.end-trials",
    cron: "* * * * *",
    description: "Trials whose trial_ends_at has passed become active (subscription.activated); the member becomes a customer.",
    run: (job) =>
      sweepTeams(
        job,
        { table: "subscriptions", where: (q) => q.where({ status: "trialing" }).where("trial_ends_at", "<=", job.now) },
        async (ctx, ids) => {
          const changes = { status: "active" as const, updated_at: ctx.now };
          const moved = (await subscriptionsTable
            .rows(ctx)
            .whereIn("id", ids)
            .where({ status: "trialing" })
            .where("trial_ends_at", "<=", ctx.now)
            .update(changes)
            .returning("*")) as SubscriptionRow[];
          for (const row of moved.sort((a, b) => a.id.localeCompare(b.id))) {
            const subscription = presentSubscription(row);
            const entry = { subjectType: "subscription", subjectId: row.id, projectId: row.project_id, properties: { subscription } };
            await recordActivity(ctx, { event: "activated", description: "Trial ended; subscription active", ...entry });
            await emitEvent(ctx, { type: "subscription.activated", projectId: row.project_id, data: { subscription } });
            await refreshMemberStatus(ctx, row.project_id, row.member_id);
          }
          return moved.length;
        },
      ),
  },
];
