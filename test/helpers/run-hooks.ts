// Mocha's root hooks and global fixtures (loaded through test/helpers/hooks.mjs in every test
// process). A run ends, and ends with a report rather than a hang:
// - after each file in a parallel worker, or after the whole serial run, whatever a file left open
//   (servers, browsers, processes: open-resources.ts) is closed and the run fails naming it;
// - a serial run's process that is still alive shortly after its last hook says what holds it
//   and exits with a failure;
// - every process has a deadline (TEST_DEADLINE_S, set by the tier's config) after which it prints
//   the test it was running and what was open, and exits with a failure.
// The main process of a run drops every database and Redis key its workers made (sweepRun).
// TEST_TIMES_FILE=<path> makes each parallel worker append how long each of its files took.
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import { closeBackends, closeKvs, sweepRun } from "./backends.ts";
import { closeLeftovers, openResources } from "./open-resources.ts";

/** Set by the main process (mochaGlobalSetup runs there only); a worker inherits it. */
const MAIN_PID = "SUBBRIDGE_TEST_MAIN_PID";
const inWorker = () => process.env[MAIN_PID] !== undefined && process.env[MAIN_PID] !== String(process.pid);

let running: { title: string; file: string; since: number } | null = null;

function stopWithReport(reason: string): never {
  const lines = [
    `\n✖ ${reason}`,
    running
      ? `  running test: "${running.title}" (${running.file}), started ${Math.round((Date.now() - running.since) / 1000)} s ago`
      : "  no test running in this process (a hook, or between files)",
    `  opened by tests and not closed: ${openResources().join("; ") || "nothing"}`,
    `  Node resources alive: ${process.getActiveResourcesInfo().join(", ") || "none"}`,
  ];
  process.stderr.write(`${lines.join("\n")}\n`);
  process.exit(1);
}

const deadlineSeconds = Number(process.env.TEST_DEADLINE_S ?? 0);
if (deadlineSeconds > 0) {
  const passed = () => stopWithReport(`the test run's deadline of ${deadlineSeconds} s (TEST_DEADLINE_S) passed in process ${process.pid}`);
  setTimeout(() => {
    // A parallel run's main process runs no test itself: its workers report what they were
    // running first, and it stops the run a little later.
    if (process.env[MAIN_PID] === String(process.pid) && running === null) setTimeout(passed, 10_000).unref();
    else passed();
  }, deadlineSeconds * 1000).unref();
}

/** How long a serial run's process may stay alive after its last hook before it is reported. */
const EXIT_GRACE_MS = 30_000;

/** A parallel worker's current file, timed for TEST_TIMES_FILE (a line per file: milliseconds, path). */
let fileStarted: { at: number; file: string } | null = null;

export const mochaHooks = {
  beforeAll(this: Mocha.Context) {
    const file = this.test?.parent?.suites[0]?.file;
    fileStarted = file ? { at: Date.now(), file: relative(process.cwd(), file) } : null;
  },
  beforeEach(this: Mocha.Context) {
    const test = this.currentTest;
    running = test ? { title: test.fullTitle(), file: test.file ?? "?", since: Date.now() } : null;
  },
  afterEach() {
    running = null;
  },
  async afterAll() {
    const leftovers = await closeLeftovers();
    if (inWorker()) {
      // The database stays for the worker's next file; the worker is stopped at the end of the run.
      await closeKvs();
      if (process.env.TEST_TIMES_FILE && fileStarted)
        appendFileSync(process.env.TEST_TIMES_FILE, `${Date.now() - fileStarted.at}\t${fileStarted.file}\n`);
    } else {
      await closeBackends();
      setTimeout(
        () => stopWithReport(`the run ended ${EXIT_GRACE_MS / 1000} s ago and something still keeps its process alive`),
        EXIT_GRACE_MS,
      ).unref();
    }
    if (leftovers.length) throw new Error(`left open after its tests (now closed): ${leftovers.join("; ")}`);
  },
};

export function mochaGlobalSetup() {
  process.env[MAIN_PID] = String(process.pid);
}

export async function mochaGlobalTeardown() {
  await sweepRun();
}
