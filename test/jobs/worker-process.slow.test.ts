// Which process runs the worker (WORKER, SURFACES), and `npm start` running it and stopping it on SIGTERM.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { emptyPostgresDatabase, usingPostgres } from "../helpers/backends.ts";
import { startNpm, tempDir } from "../helpers/processes.ts";

describe("the worker in npm start", function () {
  this.timeout(120_000);

  it("runs by default; WORKER=off turns it off; a process with neither surfaces nor worker is refused", () => {
    assert.equal(loadConfig({}).worker, true);
    assert.equal(loadConfig({ WORKER: "on" }).worker, true);
    assert.equal(loadConfig({ WORKER: "OFF" }).worker, false);
    assert.deepEqual(loadConfig({ SURFACES: "", WORKER: "on" }).surfaces, []);
    assert.deepEqual(loadConfig({ SURFACES: "worker" }).surfaces, []);
    assert.equal(loadConfig({ SURFACES: "worker" }).worker, true);
    assert.deepEqual(loadConfig({ SURFACES: "api,worker" }).surfaces, ["api"]);
    assert.throws(() => loadConfig({ SURFACES: "worker", WORKER: "off" }), /names the worker but WORKER=off/);
    assert.throws(
      () => loadConfig({ WORKER: "sometimes" }),
      (err: Error) => err instanceof ConfigError && /WORKER must be on or off/.test(err.message),
    );
    assert.throws(() => loadConfig({ SURFACES: "", WORKER: "off" }), /would run nothing/);
  });

  it("runs the worker alone (SURFACES=worker: scheduled jobs and webhook deliveries) and stops it gracefully on SIGTERM", async () => {
    // Its own database on PostgreSQL: a worker serves every team's webhook deliveries, and those of
    // the other tests' teams are theirs to drive.
    const database = usingPostgres ? await emptyPostgresDatabase("worker_process") : null;
    try {
      const env = { SURFACES: "worker", LOG_LEVEL: "info", DATA_DIR: tempDir("worker"), ...(database ? { DATABASE_URL: database.url } : {}) };
      const started = await startNpm(env, /"msg":"job worker started"/);
      await started.stop(); // npm itself dies of the signal: the log tells how the service stopped
      const out = started.output();
      assert.match(out, /Job worker\s+\d+ scheduled jobs? on pg-boss/);
      assert.match(out, /Webhooks\s+delivery worker on \(timeout 10 s\)/);
      assert.ok(!/REST API\s+http/.test(out), "no surface runs");
      assert.match(out, /teams\.invitations\.expire \(\*\/15 \* \* \* \*\)/);
      assert.match(out, /"signal":"SIGTERM","deadline_ms":30000,"msg":"shutting down"/);
      assert.match(out, /"msg":"job worker stopped"/);
      assert.match(out, /"msg":"webhook delivery worker stopped"/);
    } finally {
      await database?.drop();
    }
  });
});
