// The teams area's scheduled jobs (the worker in src/workers/jobs finds them here).
//
// teams.invitations.expire: an invitation past its expires_at can no longer be accepted (reads
// already compare the date), but its row stays "pending" until something moves it; this job does,
// so the stored status, the partial unique index on pending invitations, psql and the team's
// activity log all tell the truth: status "expired" and one "invitation_expired" entry each,
// recorded by the system actor at the moment the job saw it expired. No webhook event: the
// description names none for invitations that lapse.
import { createDomainContext, systemActor, unscoped } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { invitationsTable } from "./tables.ts";

export const expireInvitations: ScheduledJob = {
  name: "teams.invitations.expire",
  cron: "*/15 * * * *",
  description: "Marks pending team invitations past their expiry date as expired (an activity entry each).",
  async run({ db, now }) {
    const acrossTeams = unscoped(db, "a job finds the teams that have invitations past their date");
    const teams = (await acrossTeams("team_invitations").where({ status: "pending" }).where("expires_at", "<=", now).distinct("team_id")) as {
      team_id: string;
    }[];
    let changed = 0;
    for (const { team_id: teamId } of teams) {
      changed += await db.transaction(async (trx) => {
        const ctx = createDomainContext(trx, systemActor(teamId), now);
        // Locked and checked again: a second run racing this one finds them no longer pending.
        const due = (await invitationsTable
          .rows(ctx)
          .where({ status: "pending" })
          .where("expires_at", "<=", now)
          .forUpdate()
          .select("id", "email")) as {
          id: string;
          email: string;
        }[];
        if (due.length === 0) return 0;
        await invitationsTable
          .rows(ctx)
          .whereIn(
            "id",
            due.map((d) => d.id),
          )
          .update({ status: "expired" });
        for (const invitation of due) {
          await recordActivity(ctx, {
            event: "invitation_expired",
            description: `Invitation of ${invitation.email} expired`,
            subjectType: "team",
            subjectId: teamId,
            properties: { invitation },
          });
        }
        return due.length;
      });
    }
    return { changed };
  },
};

export const scheduledJobs: ScheduledJob[] = [expireInvitations];
