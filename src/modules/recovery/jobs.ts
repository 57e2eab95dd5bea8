// The recovery area's scheduled work: the probes, every 5 minutes (the shortest interval a setting
// may ask for); each setting is probed once its own interval_minutes has passed, or at once when a
// place was added or moved.
import type { ScheduledJob } from "../jobs/scheduled-job.ts";
import { runRecoveryProbes } from "./probes.ts";

export const scheduledJobs: ScheduledJob[] = [
  {
    name: "recovery.probe",
    cron: "*/5 * * * *",
    description:
      "Probes every installation unless its recovery setting turns probes off (the bot's token, the bot an administrator of each gated place), fills status and last_probe_at, and raises a recovery alert on a change for the worse or a newly failing place. A place just added or moved is probed at the next run.",
    async run(job) {
      if (!job.platformAccess) throw new Error("recovery.probe: the worker was started without the platform settings");
      return { changed: await runRecoveryProbes(job.db, job.platformAccess, job.now, {}, job.logger) };
    },
  },
];
