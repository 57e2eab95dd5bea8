// ROLE splits one build into api and worker processes: what each role runs, how SURFACES and WORKER
// narrow it, and that DATABASE_DIRECT_URL defaults to DATABASE_URL (refusals: config-errors.test.ts).
import assert from "node:assert/strict";
import { AVAILABLE_SURFACES, loadConfig } from "../../src/config.ts";

describe("ROLE", () => {
  it("defaults to all: every surface and the worker, as before ROLE existed", () => {
    const config = loadConfig({});
    assert.equal(config.role, "all");
    assert.deepEqual(config.surfaces, [...AVAILABLE_SURFACES]);
    assert.equal(config.worker, true);
  });

  it("keeps SURFACES and WORKER working under ROLE=all", () => {
    assert.deepEqual(
      [loadConfig({ SURFACES: "api", WORKER: "off" })].map((c) => [c.surfaces, c.worker]),
      [[["api"], false]],
    );
    const alone = loadConfig({ SURFACES: "worker" });
    assert.deepEqual([alone.surfaces, alone.worker], [[], true]);
  });

  it("api: every HTTP surface (or those SURFACES names) and no background work", () => {
    const api = loadConfig({ ROLE: "api" });
    assert.deepEqual([api.role, api.surfaces, api.worker], ["api", [...AVAILABLE_SURFACES], false]);
    const narrowed = loadConfig({ ROLE: "API", SURFACES: "api,mcp", WORKER: "off" });
    assert.deepEqual([narrowed.surfaces, narrowed.worker], [["api", "mcp"], false]);
  });

  it("worker: the background work and no surface", () => {
    const worker = loadConfig({ ROLE: "worker" });
    assert.deepEqual([worker.role, worker.surfaces, worker.worker], ["worker", [], true]);
    const named = loadConfig({ ROLE: "worker", SURFACES: "worker", WORKER: "on" });
    assert.deepEqual([named.surfaces, named.worker], [[], true]);
  });

  it("DATABASE_DIRECT_URL defaults to DATABASE_URL, and is kept when set", () => {
    assert.equal(loadConfig({}).databaseDirectUrl, null);
    assert.equal(loadConfig({ DATABASE_URL: "postgres://db.example/app" }).databaseDirectUrl, "postgres://db.example/app");
    const pooled = loadConfig({ DATABASE_URL: "postgres://pgbouncer.example:6432/app", DATABASE_DIRECT_URL: "postgres://db.example/app" });
    assert.equal(pooled.databaseDirectUrl, "postgres://db.example/app");
  });
});
