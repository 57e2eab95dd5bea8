// Finds every scheduled job where its area declares it: `export const scheduledJobs` in
// src/modules/<area>/jobs.ts (as migrations/index.ts finds migrations). Adding a job edits no shared list.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ScheduledJob } from "../../modules/jobs/scheduled-job.ts";

const MODULES = fileURLToPath(new URL("../../modules/", import.meta.url));
/** .ts where tsx runs the sources, .js in the compiled build (dist/). */
const EXTENSION = import.meta.url.endsWith(".js") ? ".js" : ".ts";
/** "<area>.<what>", lower case: also the job's queue name. */
const NAME = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$/;
const FIELD = /^[0-9*,\-/]+$/;

export class ScheduledJobError extends Error {}

/** Five fields (minute hour day-of-month month day-of-week), digits and * , - / only: UTC, no names or seconds. */
export function isFiveFieldCron(cron: string): boolean {
  const fields = cron.trim().split(/\s+/);
  return fields.length === 5 && fields.every((f) => FIELD.test(f));
}

/** Refuses a misnamed job, a name used twice, or a cron that is not five fields. */
export function checkScheduledJobs(jobs: readonly ScheduledJob[]): ScheduledJob[] {
  const seen = new Set<string>();
  for (const job of jobs) {
    if (!NAME.test(job.name)) throw new ScheduledJobError(`scheduled job "${job.name}": name it <area>.<what> (lower case, dotted)`);
    if (seen.has(job.name)) throw new ScheduledJobError(`scheduled job ${job.name} is declared twice`);
    if (!isFiveFieldCron(job.cron)) throw new ScheduledJobError(`scheduled job ${job.name}: cron "${job.cron}" is not a five-field expression`);
    seen.add(job.name);
  }
  return [...jobs].sort((a, b) => a.name.localeCompare(b.name));
}

/** Every area's scheduled jobs, by name. `modulesDir` is for tests (a folder of <area>/jobs.ts). */
export async function discoverScheduledJobs(modulesDir = MODULES): Promise<ScheduledJob[]> {
  const files = readdirSync(modulesDir)
    .map((area) => join(modulesDir, area, `jobs${EXTENSION}`))
    .filter((file) => existsSync(file));
  const jobs: ScheduledJob[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(file).href)) as { scheduledJobs?: ScheduledJob[] };
    if (!Array.isArray(module.scheduledJobs)) throw new ScheduledJobError(`${file} must export scheduledJobs: ScheduledJob[]`);
    jobs.push(...module.scheduledJobs);
  }
  return checkScheduledJobs(jobs);
}
