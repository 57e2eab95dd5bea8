// Whole mocha runs end, and say why, whatever their tests do: a browser suite whose browser cannot
// start fails and exits (it used to leave its servers listening and the run waiting forever), a file
// that leaves a server open fails naming it, and a run past its deadline says which test it was in.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../helpers/processes.ts";

interface Run {
  code: number | null;
  output: string;
  seconds: number;
}

/** `mocha <file>` with the repository's settings, killed (and the test failed) past `limitS`. */
function mocha(file: string, env: Record<string, string>, limitS = 120): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    // A run of its own: with this run's id, its teardown would drop this run's databases.
    const { TEST_RUN_ID: _run, SUBBRIDGE_TEST_MAIN_PID: _main, TEST_TIMES_FILE: _times, ...inherited } = process.env;
    const child = spawn(process.execPath, [join(ROOT, "node_modules/mocha/bin/mocha.js"), file], {
      cwd: ROOT,
      env: { ...inherited, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const killer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
      reject(new Error(`mocha ${file} was still running after ${limitS} s:\n${output}`));
    }, limitS * 1000);
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

describe("test runs end with a report", function () {
  this.timeout(180_000);

  it("a browser suite whose Chromium cannot start fails and the run exits", async () => {
    const run = await mocha("test/portal/portal.browser.test.ts", { CHROMIUM_PATH: "/nonexistent/chromium" });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /"before all" hook/);
    assert.match(run.output, /nonexistent\/chromium/);
    assert.doesNotMatch(run.output, /left open after its tests/, "the failed setup closed its own servers");
  });

  it("a file that leaves a server listening fails, naming the server and the file, and the run exits", async () => {
    const run = await mocha("test/fixtures/harness/leaves-server-open.ts", {});
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /1 passing/);
    assert.match(
      run.output,
      /left open after its tests \(now closed\): forgotten app server on 127\.0\.0\.1:\d+ \(opened by test\/fixtures\/harness\/leaves-server-open\.ts\)/,
    );
  });

  it("a run past its deadline prints the test it was in and what was open, and exits", async () => {
    const run = await mocha("test/fixtures/harness/hangs.ts", { TEST_DEADLINE_S: "5" });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /the test run's deadline of 5 s \(TEST_DEADLINE_S\) passed/);
    assert.match(run.output, /running test: "a run that hangs waits for something that never comes" \(.*hangs\.ts\)/);
    assert.match(run.output, /Node resources alive: .*Timeout/);
  });
});
