// Which process runs the worker (WORKER, SURFACES), and `npm start` running it and stopping it on SIGTERM.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { testDatabase } from "../helpers/backends.ts";
import { startNpm, tempDir } from "../helpers/processes.ts";

describe("the worker in npm start", function () {
  this.timeout(120_000);

  it("runs by default; WORKER=off turns it off; a process with neither surfaces nor worker is refused", () => {
    assert.equal(loadConfig({}).worker, true);
    assert.equal(loadConfig({ WORKER: "on" }).worker, true);
    assert.equal(loadConfig({ WORKER: "OFF" }).worker, false);
    assert.deepEqual(loadConfig({ SURFACES: "", WORKER: "on" }).surfaces, []);
    assert.throws(
      () => loadConfig({ WORKER: "sometimes" }),
      (err: Error) => err instanceof ConfigError && /WORKER must be on or off/.test(err.message),
    );
    assert.throws(() => loadConfig({ SURFACES: "", WORKER: "off" }), /would run nothing/);
  });

  it("runs the worker alone (SURFACES= WORKER=on) and stops it gracefully on SIGTERM", async () => {
    const { databaseUrl } = await testDatabase();
    const env = { SURFACES: "", WORKER: "on", LOG_LEVEL: "info", DATA_DIR: tempDir("worker"), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
    const started = await startNpm(env, /"msg":"job worker started"/);
    await started.stop(); // npm itself dies of the signal: the log tells how the service stopped
    const out = started.output();
    assert.match(out, /Job worker\s+\d+ scheduled jobs? on pg-boss/);
    assert.ok(!/REST API\s+http/.test(out), "no surface runs");
    assert.match(out, /teams\.invitations\.expire \(\*\/15 \* \* \* \*\)/);
    assert.match(out, /"signal":"SIGTERM","msg":"shutting down"/);
    assert.match(out, /"msg":"job worker stopped"/);
  });
});
