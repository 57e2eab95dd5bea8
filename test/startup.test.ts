// How a start meets an outage (src/startup.ts): a step is tried again after each passing outage,
// waiting longer each time, any other failure ends it at once, and a stop ends the waiting; while
// the steps run, a listener answers as a starting process (src/http/starting-app.ts) until its
// surface's app takes it over.
import assert from "node:assert/strict";
import Koa from "koa";
import pino from "pino";
import { createHttpServer, DEFAULT_HTTP_LIMITS, listen, replaceApp, stopServer } from "../src/http/server.ts";
import { createStartingApp } from "../src/http/starting-app.ts";
import { readinessProbe } from "../src/observability/readiness.ts";
import { isPassingOutage, StartStopped, startSteps } from "../src/startup.ts";
import { KvUnavailableError } from "../src/kv/kv.ts";
import type { AddressInfo } from "node:net";

const terminated = () => Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" });

/** A logger that keeps what it was told. */
function keptLogger() {
  const lines: { msg: string; attempt?: number; retry_in_ms?: number }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("a start that meets an outage", () => {
  it("knows the outages that pass: the database's, Redis's, and the deadlock of processes setting up one schema", () => {
    for (const err of [
      terminated(),
      new KvUnavailableError("Redis: The client is offline"),
      Object.assign(new Error("deadlock detected"), { code: "40P01" }),
    ])
      assert.equal(isPassingOutage(err), true, err.message);
    for (const err of [new Error("migration failed: syntax error"), Object.assign(new Error("port taken"), { code: "EADDRINUSE" })])
      assert.equal(isPassingOutage(err), false, err.message);
  });

  it("tries a step again after each outage, waiting longer each time, and logs each attempt", async () => {
    const { logger, lines } = keptLogger();
    const steps = startSteps(logger, { firstMs: 10, maxMs: 25 });
    let calls = 0;
    const result = await steps.run("open the database", async () => {
      calls += 1;
      if (calls < 4) throw terminated();
      return "opened";
    });
    assert.equal(result, "opened");
    assert.equal(calls, 4);
    const waits = lines.filter((l) => l.msg === "start step met an outage; trying again").map((l) => l.retry_in_ms);
    assert.deepEqual(waits, [10, 20, 25]);
    assert.ok(lines.some((l) => l.msg === "start step done after an outage" && l.attempt === 4));
  });

  it("ends the start at once for anything but an outage", async () => {
    const steps = startSteps(keptLogger().logger, { firstMs: 10, maxMs: 10 });
    let calls = 0;
    await assert.rejects(
      steps.run("migrate", async () => {
        calls += 1;
        throw new Error("relation already exists");
      }),
      /relation already exists/,
    );
    assert.equal(calls, 1);
  });

  it("stops waiting when the process stops", async () => {
    const steps = startSteps(keptLogger().logger, { firstMs: 60_000, maxMs: 60_000 });
    const waiting = steps.run("open Redis", async () => Promise.reject(new KvUnavailableError("Redis: offline")));
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    steps.stop();
    await assert.rejects(waiting, StartStopped);
    assert.ok(Date.now() - started < 1_000);
  });

  it("answers as a starting process until the surface's app takes the listener over", async () => {
    const logger = pino({ level: "silent" });
    const readiness = readinessProbe({});
    const server = await listen(
      createHttpServer(createStartingApp({ surface: "api", release: "3.0.0", docsUrl: "http://docs.test", logger, readiness }), DEFAULT_HTTP_LIMITS, {
        docsUrl: "http://docs.test",
        logger,
      }),
      0,
      "127.0.0.1",
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const up = await fetch(`${url}/up`);
      assert.deepEqual([up.status, await up.json()], [200, { status: "up", release: "3.0.0" }]);
      const ready = await fetch(`${url}/ready`);
      assert.deepEqual(
        [ready.status, await ready.json()],
        [503, { status: "not_ready", checks: { database: "starting", kv: "starting", process: "starting" } }],
      );
      const other = await fetch(`${url}/v1/teams/current`);
      assert.equal(other.status, 503);
      assert.equal(other.headers.get("retry-after"), "1");
      assert.equal(((await other.json()) as { error: { code: string } }).error.code, "SERVICE_BUSY");
      replaceApp(
        server,
        new Koa().use((ctx) => void (ctx.body = { served: true })),
      );
      assert.deepEqual(await (await fetch(`${url}/v1/teams/current`)).json(), { served: true });
    } finally {
      await stopServer(server);
    }
  });
});
