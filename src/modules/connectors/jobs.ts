// The connectors' scheduled work, every minute (a sweep that finds nothing to do changes nothing):
// bring the platforms in line with the access ledger (access-sync.ts), and carry out the platform
// tasks installation changes queued that have not run yet or failed (platform-tasks.ts); every
// quarter hour, repair drift between the servers' roles and the ledger (drift.ts: it lists every
// member of each server, so it runs less often than the sweep).
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { syncPlatformAccess } from "./access-sync.ts";
import { runPlatformTasks } from "./platform-tasks.ts";
import { repairDrift } from "./drift.ts";

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "connectors.sync-access",
    cron: "* * * * *",
    description: "Fulfils pending platform grants (invite links, roles), removes revoked access and applies bans on the platforms.",
    async run(job) {
      if (!job.platformAccess) throw new Error("connectors.sync-access: the worker was started without the platform settings");
      return { changed: await syncPlatformAccess(job.db, job.platformAccess, job.now, {}, job.logger) };
    },
  },
  {
    name: "connectors.platform-tasks",
    cron: "* * * * *",
    description:
      "Points bots' updates at their installations, or stops them, where an installation change's platform task has not run yet or failed.",
    async run(job) {
      if (!job.platformAccess) throw new Error("connectors.platform-tasks: the worker was started without the platform settings");
      return { changed: await runPlatformTasks(job.db, job.platformAccess, job.now, {}, job.logger) };
    },
  },
  {
    name: "connectors.repair-drift",
    cron: "*/15 * * * *",
    description:
      "Compares each Discord server's gated roles with the access ledger: takes roles held without a covering grant, gives back granted roles that are missing, and holds a mass removal for the creator.",
    async run(job) {
      if (!job.platformAccess) throw new Error("connectors.repair-drift: the worker was started without the platform settings");
      return { changed: await repairDrift(job.db, job.platformAccess, job.now, {}, job.logger) };
    },
  },
];
