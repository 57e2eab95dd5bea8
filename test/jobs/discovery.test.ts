// The worker finds each area's jobs in src/modules/<area>/jobs.ts, and refuses a job it could not
// schedule or tell apart from another.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScheduledJob } from "../../src/modules/jobs/scheduled-job.ts";
import { checkScheduledJobs, discoverScheduledJobs, isFiveFieldCron, ScheduledJobError } from "../../src/workers/jobs/discovery.ts";
import { tempDir } from "../helpers/processes.ts";

/** A modules folder with the given <area>/jobs.ts sources. */
function modulesWith(areas: Record<string, string>): string {
  const dir = tempDir("job-modules");
  for (const [area, source] of Object.entries(areas)) {
    mkdirSync(join(dir, area));
    writeFileSync(join(dir, area, "jobs.ts"), source);
  }
  mkdirSync(join(dir, "no-jobs-here"));
  return dir;
}

const jobSource = (...jobs: [string, string][]) =>
  `export const scheduledJobs = [${jobs
    .map(([name, cron]) => `{ name: "${name}", cron: "${cron}", description: "d", run: async () => ({ changed: 0 }) }`)
    .join(", ")}];`;

const job = (name: string, cron = "0 * * * *"): ScheduledJob => ({ name, cron, description: "d", run: async () => ({ changed: 0 }) });

describe("scheduled job discovery", () => {
  it("finds the jobs the areas of src/modules declare", async () => {
    const names = (await discoverScheduledJobs()).map((j) => j.name);
    assert.ok(names.includes("teams.invitations.expire"), names.join(", "));
  });

  it("collects every area's jobs.ts, sorted by name, and skips areas without one", async () => {
    const dir = modulesWith({
      zebra: jobSource(["zebra.feed", "*/5 * * * *"]),
      apple: jobSource(["apple.pick", "0 3 * * *"], ["apple.count", "15 * * * 1-5"]),
    });
    const jobs = await discoverScheduledJobs(dir);
    assert.deepEqual(
      jobs.map((j) => [j.name, j.cron]),
      [
        ["apple.count", "15 * * * 1-5"],
        ["apple.pick", "0 3 * * *"],
        ["zebra.feed", "*/5 * * * *"],
      ],
    );
  });

  it("refuses a jobs.ts without a scheduledJobs array", async () => {
    const dir = modulesWith({ broken: "export const jobs = [];" });
    await assert.rejects(discoverScheduledJobs(dir), /must export scheduledJobs/);
  });

  it("refuses a name used twice, across areas too", async () => {
    const dir = modulesWith({ a: jobSource(["shared.job", "0 * * * *"]), b: jobSource(["shared.job", "30 * * * *"]) });
    await assert.rejects(discoverScheduledJobs(dir), /shared\.job is declared twice/);
  });

  it("refuses names that are not <area>.<what>", () => {
    for (const name of ["expire", "Teams.expire", "teams..expire", "teams.expire!", "teams.expire job", "-teams.expire"]) {
      assert.throws(() => checkScheduledJobs([job(name)]), ScheduledJobError, name);
    }
    // Areas are folder names (kebab-case), so are the jobs' names after them.
    assert.doesNotThrow(() => checkScheduledJobs([job("subscriptions.expire"), job("access-codes.expire"), job("connectors.sync-access")]));
  });

  it("accepts five-field cron expressions only (UTC; no seconds, no names)", () => {
    for (const cron of ["* * * * *", "*/15 * * * *", "0 3 * * 1-5", "5,35 0-6/2 1 1,7 0"]) assert.equal(isFiveFieldCron(cron), true, cron);
    for (const cron of ["", "* * * *", "0 * * * * *", "@daily", "0 3 * * MON", "0 3 * * ? "]) assert.equal(isFiveFieldCron(cron), false, cron);
    assert.throws(() => checkScheduledJobs([job("teams.sweep", "0 * * * * *")]), /not a five-field expression/);
  });
});
