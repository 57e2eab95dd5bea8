// The job worker on pg-boss, on this run's backend: PostgreSQL (TEST_DATABASE_URL) or the embedded
// database served on its unix socket (what `npm start` uses without DATABASE_URL). Cron ticks come
// from pg-boss on the wall clock ("* * * * *" is due at once: pg-boss runs a schedule whose last
// occurrence is under a minute old); each run's `now` comes from the injected clock.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import pino from "pino";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { openEmbeddedDatabase } from "../../src/embedded/database.ts";
import type { ScheduledJob } from "../../src/modules/jobs/scheduled-job.ts";
import { QUEUE_SCHEMA, startJobWorker, type JobWorker, type QueueTiming } from "../../src/workers/jobs/worker.ts";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";
import { TestClock } from "../helpers/clock.ts";
import { tempDir } from "../helpers/processes.ts";

const TIMING: Partial<QueueTiming> = { pollingIntervalSeconds: 0.5, cronIntervalSeconds: 1, retryDelaySeconds: 1, stopTimeoutMs: 10_000 };

interface LogLine {
  level: number;
  msg: string;
  job?: string;
  job_id?: string;
  attempt?: number;
  changed?: number;
  now?: string;
  err?: { message: string };
}

function capturedLogger() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let serial = 0;
const jobName = (what: string) => `test.${what}_${process.pid}_${++serial}`;

/** A job that records the `now` of every run. */
function recordingJob(name: string, runs: Date[], work: (n: number) => Promise<void> = async () => undefined): ScheduledJob {
  return {
    name,
    cron: "* * * * *",
    description: "test job",
    async run({ now }) {
      runs.push(now);
      await work(runs.length);
      return { changed: 1 };
    },
  };
}

describe(`job worker (pg-boss on ${usingPostgres ? "PostgreSQL" : "the embedded database over its socket"})`, function () {
  this.timeout(90_000);
  /** Two pools on one database, as two processes have (embedded: the owner's and a client's). */
  let first: Database;
  let second: Database;
  let close: () => Promise<void>;
  const workers: JobWorker[] = [];
  const start = async (...args: Parameters<typeof startJobWorker>) => {
    const worker = await startJobWorker(...args);
    workers.push(worker);
    return worker;
  };

  before(async () => {
    if (usingPostgres) {
      const { databaseUrl } = await testDatabase();
      first = openDatabase({ url: databaseUrl });
      second = openDatabase({ url: databaseUrl });
      close = async () => {
        await first.destroy();
        await second.destroy();
      };
    } else {
      const dataDir = tempDir("jobs");
      const owner = await openEmbeddedDatabase({ dataDir, mode: "own" });
      const client = await openEmbeddedDatabase({ dataDir, mode: "share" });
      assert.equal(client.owner, false);
      first = owner.db;
      second = client.db;
      close = async () => {
        await client.close();
        await owner.close();
      };
    }
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  after(async () => close?.());

  const queued = async (name: string) =>
    (await first(`${QUEUE_SCHEMA}.job`).where({ name }).select("id", "state")) as { id: string; state: string }[];

  it("runs a job on its cron schedule through the queue, at the injected clock's time, and logs the run", async () => {
    const clock = new TestClock(Date.parse("2031-02-03T04:05:06.000Z"));
    const runs: Date[] = [];
    const name = jobName("scheduled");
    const { logger, lines } = capturedLogger();
    await start({ db: first, logger, jobs: [recordingJob(name, runs)], clock: clock.now, timing: TIMING });
    await until("the job ran", () => runs.length > 0);
    assert.equal(runs[0]!.toISOString(), "2031-02-03T04:05:06.000Z");
    await until("the queue marks it completed", async () => (await queued(name)).some((j) => j.state === "completed"));
    const ran = lines.find((l) => l.msg === "scheduled job ran" && l.job === name);
    assert.ok(ran, "the run is logged");
    assert.equal(ran.changed, 1);
    assert.equal(ran.now, "2031-02-03T04:05:06.000Z");
    assert.equal(ran.attempt, 1);
    assert.ok(
      (await queued(name)).some((j) => j.id === ran.job_id),
      "the logged run is the queue's job",
    );
  });

  it("runs a tick once when two workers share the database", async () => {
    // Started early in a minute, the test stays inside it: one tick is due, and it must run once.
    if (new Date().getUTCSeconds() > 40) await sleep((61 - new Date().getUTCSeconds()) * 1000);
    const began = Date.now();
    const runs: Date[] = [];
    const name = jobName("shared");
    const job = recordingJob(name, runs);
    const a = capturedLogger();
    const b = capturedLogger();
    await Promise.all([
      start({ db: first, logger: a.logger, jobs: [job], timing: TIMING }),
      start({ db: second, logger: b.logger, jobs: [job], timing: TIMING }),
    ]);
    await until("the tick ran", () => runs.length > 0);
    await sleep(4000); // several more cron passes of both workers (every second)
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(began / 60_000) + 1;
    const ids = [...a.lines, ...b.lines].filter((l) => l.msg === "scheduled job ran" && l.job === name).map((l) => l.job_id);
    assert.equal(new Set(ids).size, ids.length, "no queued tick ran twice");
    assert.equal(ids.length, runs.length);
    assert.ok(runs.length <= minutes, `${runs.length} runs over ${minutes} minute(s)`);
    assert.equal((await queued(name)).length, runs.length, "one queue entry per tick");
  });

  it("retries a job that throws, logs the failure, and goes on running the other jobs", async () => {
    const failing: Date[] = [];
    const healthy: Date[] = [];
    const failingName = jobName("failing");
    const healthyName = jobName("healthy");
    const { logger, lines } = capturedLogger();
    const flaky = recordingJob(failingName, failing, async (n) => {
      if (n === 1) throw new Error("the platform is down");
    });
    await start({ db: first, logger, jobs: [flaky, recordingJob(healthyName, healthy)], timing: TIMING });
    await until("the retry succeeded", () => lines.some((l) => l.msg === "scheduled job ran" && l.job === failingName));
    const failed = lines.find((l) => l.msg === "scheduled job failed" && l.job === failingName);
    assert.ok(failed, "the failure is logged");
    assert.equal(failed.attempt, 1);
    assert.equal(failed.err?.message, "the platform is down");
    const retried = lines.find((l) => l.msg === "scheduled job ran" && l.job === failingName)!;
    assert.equal(retried.attempt, 2);
    assert.equal(retried.job_id, failed.job_id, "the same queued tick, tried again");
    await until("the other job ran", () => healthy.length > 0);
  });

  it("stops cleanly: takes no new job, lets the running one finish, leaves the database open", async () => {
    const runs: Date[] = [];
    let release!: () => void;
    let finished = false;
    const slow = recordingJob(jobName("slow"), runs, async () => {
      await new Promise<void>((r) => (release = r));
      finished = true;
    });
    const { logger, lines } = capturedLogger();
    const worker = await startJobWorker({ db: first, logger, jobs: [slow], timing: TIMING });
    await until("the job is running", () => runs.length > 0);
    const stopping = worker.stop();
    setTimeout(() => release(), 300);
    await stopping;
    assert.equal(finished, true, "stop waited for the running job");
    assert.ok(lines.some((l) => l.msg === "scheduled job ran" && l.job === slow.name));
    assert.ok(lines.some((l) => l.msg === "job worker stopped"));
    await sleep(1500);
    assert.equal(runs.length, 1, "nothing runs after stop");
    assert.deepEqual((await first.raw("select 1 as one")).rows, [{ one: 1 }]);
  });

  it("refuses in-memory PGlite (no other process could share its queue)", async () => {
    const memory = openDatabase({ url: null });
    try {
      await assert.rejects(startJobWorker({ db: memory, logger: pino({ level: "silent" }), jobs: [] }), /in-memory PGlite/);
    } finally {
      await memory.destroy();
    }
  });
});
