// The connectors' scheduled work: bring the platforms in line with the access ledger (see
// access-sync.ts). Every minute; a sweep that finds nothing to do changes nothing.
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { syncPlatformAccess } from "./access-sync.ts";

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
];
