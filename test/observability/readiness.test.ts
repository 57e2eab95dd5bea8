// Readiness (/ready), apart from liveness (/up): 503 while the database or Redis does not answer,
// 200 again once it does, 503 while the process starts and once it is stopping. The backends are
// reached through a TCP proxy the test stops and starts again, as an outage and a recovery would look.
import assert from "node:assert/strict";
import { connect, createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import Koa from "koa";
import { pgDatabase } from "../../src/db/pool.ts";
import { DEFAULT_DATABASE_TIMEOUTS } from "../../src/db/timeouts.ts";
import type { Database } from "../../src/db/database.ts";
import { Backend } from "../../src/embedded/backend.ts";
import { EmbeddedServer } from "../../src/embedded/server.ts";
import type { Kv } from "../../src/kv/kv.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { RedisKv } from "../../src/kv/redis.ts";
import { readinessProbe, readinessRoute, type Readiness } from "../../src/observability/readiness.ts";
import { testDatabase, usingPostgres, usingRedis } from "../helpers/backends.ts";
import { tempDir } from "../helpers/processes.ts";
import { StoppableProxy } from "../helpers/outages.ts";
import { serveOnFreePort, startApi } from "../helpers/server.ts";
import { createApiApp } from "../../src/apps/api/api-app.ts";

/** Checks until `ready` is what the probe answers (a recovering client reconnects with back-off). */
async function until(check: () => Promise<Readiness>, ready: boolean): Promise<Readiness> {
  let last: Readiness | null = null;
  for (let i = 0; i < 120; i++) {
    last = await check();
    if (last.ready === ready) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`readiness stayed ${JSON.stringify(last)}`);
}

describe("readiness (/ready)", function () {
  this.timeout(120_000);
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });

  /** A database reached through a stoppable proxy: the run's PostgreSQL, or PGlite served on a socket. */
  async function proxiedDatabase(): Promise<{ db: Database; proxy: StoppableProxy }> {
    let proxy: StoppableProxy;
    let connection: { connectionString?: string; host?: string; port?: number; database?: string };
    if (usingPostgres) {
      const url = new URL((await testDatabase()).databaseUrl!);
      const [port, host] = [Number(url.port || 5432), url.hostname];
      proxy = new StoppableProxy(() => connect(port, host));
      await proxy.start();
      url.hostname = "127.0.0.1";
      url.port = String(proxy.port);
      connection = { connectionString: url.toString() };
    } else {
      const dir = tempDir("ready-socket");
      const backend = await Backend.open({ onFatal: () => undefined });
      const socketServer = new EmbeddedServer({
        path: join(dir, ".s.PGSQL.5432"),
        maxClients: 8,
        ownerTag: "owner",
        idleInTransactionMs: 5_000,
        statementMs: 5_000,
        onFatal: () => undefined,
      });
      await socketServer.listen();
      socketServer.attach(backend);
      closers.push(
        () => backend.close(),
        () => socketServer.stop(0),
      );
      proxy = new StoppableProxy(() => connect(join(dir, ".s.PGSQL.5432")));
      await proxy.start();
      connection = { host: "127.0.0.1", port: proxy.port, database: "postgres" };
    }
    const db = pgDatabase(connection, { ...DEFAULT_DATABASE_TIMEOUTS, connectMs: 1_000, acquireMs: 1_000 });
    closers.push(
      () => db.destroy(),
      () => proxy.stop(),
    );
    return { db, proxy };
  }

  it("answers 503 while the database is unreachable and 200 once it answers again", async () => {
    const { db, proxy } = await proxiedDatabase();
    const probe = readinessProbe({ db, kv: new MemoryKv(), timeoutMs: 1_000 });
    const app = await serveOnFreePort(() => new Koa().use(readinessRoute(probe)));
    closers.push(() => app.close());

    const up = await fetch(`${app.url}/ready`);
    assert.equal(up.status, 200);
    assert.deepEqual(await up.json(), { status: "ready", checks: { database: "ok", kv: "ok", process: "serving" } });
    assert.equal(up.headers.get("cache-control"), "no-store");

    await proxy.stop();
    await until(() => probe.check(), false);
    const down = await fetch(`${app.url}/ready`);
    assert.equal(down.status, 503);
    const body = (await down.json()) as Readiness & { status: string };
    assert.equal(body.status, "not_ready");
    assert.notEqual(body.checks.database, "ok");
    assert.equal(body.checks.kv, "ok");

    await proxy.start();
    await until(() => probe.check(), true);
    assert.equal((await fetch(`${app.url}/ready`)).status, 200);
  });

  it("answers 503 for a database on a closed port, within the bound", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const db = pgDatabase({ host: "127.0.0.1", port: closed, database: "nothing" }, DEFAULT_DATABASE_TIMEOUTS);
    closers.push(() => db.destroy());
    const readiness = await readinessProbe({ db, kv: new MemoryKv(), timeoutMs: 1_000 }).check();
    assert.equal(readiness.ready, false);
    assert.ok(["unreachable", "timeout"].includes(readiness.checks.database), readiness.checks.database);
  });

  // The in-process KV store of the embedded backends cannot be unreachable.
  if (usingRedis)
    it("answers 503 while Redis is unreachable and 200 once it answers again", async () => {
      const url = new URL(process.env.TEST_REDIS_URL!);
      const [port, host] = [Number(url.port || 6379), url.hostname];
      const proxy = new StoppableProxy(() => connect(port, host));
      await proxy.start();
      closers.push(() => proxy.stop());
      const kv: Kv = await RedisKv.connect(`redis://127.0.0.1:${proxy.port}`, "sbtest:readiness:");
      closers.push(() => kv.close());
      const probe = readinessProbe({ db: (await testDatabase()).db, kv, timeoutMs: 1_000 });
      assert.equal((await probe.check()).ready, true);
      await proxy.stop();
      const down = await until(() => probe.check(), false);
      assert.notEqual(down.checks.kv, "ok");
      assert.equal(down.checks.database, "ok");
      await proxy.start();
      await until(() => probe.check(), true);
    });

  it("answers 503 once the process is stopping, and shares one check among concurrent requests", async () => {
    let queries = 0;
    const { db } = await testDatabase();
    const counting = {
      raw: (sql: string) => {
        queries += 1;
        return db.raw(sql);
      },
    } as unknown as Database;
    const probe = readinessProbe({ db: counting, kv: new MemoryKv() });
    const answers = await Promise.all(Array.from({ length: 20 }, () => probe.check()));
    assert.ok(answers.every((a) => a.ready));
    assert.equal(queries, 1, "20 concurrent checks, one query");
    probe.markStopping();
    assert.deepEqual(await probe.check(), { ready: false, checks: { database: "ok", kv: "ok", process: "stopping" } });
  });

  it("answers 503 while the process starts: before its backends are open, and until every start step is done", async () => {
    const probe = readinessProbe({});
    assert.deepEqual(await probe.check(), { ready: false, checks: { database: "starting", kv: "starting", process: "starting" } });
    probe.attach({ db: (await testDatabase()).db, kv: new MemoryKv() });
    assert.deepEqual(await probe.check(), { ready: false, checks: { database: "ok", kv: "ok", process: "starting" } });
    probe.markServing();
    assert.deepEqual(await probe.check(), { ready: true, checks: { database: "ok", kv: "ok", process: "serving" } });
    probe.markStopping();
    probe.markServing();
    assert.equal((await probe.check()).checks.process, "stopping", "a stop is never undone");
  });

  it("is served on the REST host next to /up", async () => {
    const base = await startApi();
    closers.push(() => base.close());
    const { db, kv } = base.deps;
    const api = await serveOnFreePort((url) => createApiApp({ ...base.deps, baseUrl: url, readiness: readinessProbe({ db, kv }) }));
    closers.push(() => api.close());
    const res = await fetch(`${api.url}/ready`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: string }).status, "ready");
  });
});
