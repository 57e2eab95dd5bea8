// The pass windows area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// pass-windows.open-passes: a pass bought before its window opened got no grants (apply.ts sets
// grants_due_at to the window's start); once the window starts, its plan's grants are issued and
// the connector sweep gives the member access. Its end is the subscriptions' expiry job (ends_at
// is the window's end), which revokes them through the normal path.
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { plansTable, type PlanRow } from "../plans/tables.ts";
import { grantPlanResources } from "../subscriptions/grants.ts";
import { presentSubscription } from "../subscriptions/subscriptions.ts";
import { sweepTeams } from "../subscriptions/sweep.ts";
import { isLive, subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "pass-windows.open-passes",
    cron: "* * * * *",
    description:
      "Passes bought before their window opened get their plan's grants once it starts (the connector then gives access); they expire with the window.",
    run: (job) =>
      sweepTeams(
        job,
        // Still giving access (a ban ends it now, before the expiry job has run).
        {
          table: "subscriptions",
          where: (q) => q.whereNot({ status: "expired" }).where("ends_at", ">", job.now).where("grants_due_at", "<=", job.now),
        },
        async (ctx, ids) => {
          let changed = 0;
          for (const id of [...ids].sort()) {
            // Claimed by clearing grants_due_at under the row lock: a second run or worker finds nothing due.
            const row = (await subscriptionsTable.rows(ctx).where({ id }).whereNot({ status: "expired" }).forUpdate().first()) as
              SubscriptionRow | undefined;
            if (!row?.grants_due_at || new Date(row.grants_due_at) > ctx.now || !isLive(row, ctx.now)) continue;
            await subscriptionsTable.rows(ctx).where({ id }).update({ grants_due_at: null, updated_at: ctx.now });
            const plan = (await plansTable.rows(ctx).where({ id: row.plan_id }).first()) as PlanRow;
            const member = (await membersTable.rows(ctx).where({ id: row.member_id }).first()) as MemberRow;
            const { grants } = await grantPlanResources(ctx, { subscription: row, member, plan });
            await recordActivity(ctx, {
              event: "pass_opened",
              description: "The pass window opened: the plan's access is granted",
              subjectType: "subscription",
              subjectId: row.id,
              projectId: row.project_id,
              properties: { subscription: presentSubscription({ ...row, updated_at: ctx.now }), grants },
            });
            changed++;
          }
          return changed;
        },
      ),
  },
];
