// REST latency and throughput of the request pipeline (authentication, rate limit, tenancy,
// abilities, validation, idempotency, handler, activity entry), in-process over loopback.
//   npm run bench:rest                        embedded backends as `npm start` runs them (PGlite on
//                                             disk served on its unix socket, in-process KV)
//   BENCH_DATABASE_URL=postgres://… BENCH_REDIS_URL=redis://… npm run bench:rest
// Writes scripts/bench/results/rest-latency-<backend>.json. Numbers depend on the machine; they
// are recorded, never asserted.
import { cpus, totalmem } from "node:os";
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import knex from "knex";
import pino from "pino";
import { migrate, openConfiguredDatabase } from "../../src/db/database.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { RedisKv } from "../../src/kv/redis.ts";
import type { Kv } from "../../src/kv/kv.ts";
import { createApiApp } from "../../src/apps/api/api-app.ts";
import { handlers, preflights } from "../../src/modules/handlers.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { openPlatforms } from "../../src/outside/platforms.ts";
import { DEFAULT_CONNECTORS_DIR, loadConfig } from "../../src/config.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);

interface Scenario {
  name: string;
  request: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(baseUrl: string, token: string, scenario: Scenario) {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const { method, path, body, headers } = scenario.request(i);
        const t0 = performance.now();
        const res = await fetch(baseUrl + path, { method, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body ? { body } : {}) });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status >= 400) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    scenario: scenario.name,
    requests: REQUESTS,
    concurrency: CONCURRENCY,
    failures,
    requests_per_second: Math.round(REQUESTS / seconds),
    latency_ms: {
      p50: round(percentile(latencies, 50)),
      p95: round(percentile(latencies, 95)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1)!),
    },
  };
}

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? null;
  const redisUrl = process.env.BENCH_REDIS_URL ?? null;
  let benchDbUrl: string | null = null;
  let admin: knex.Knex | null = null;
  if (databaseUrl) {
    const name = `subbridge_bench_${randomBytes(4).toString("hex")}`;
    admin = knex({ client: "pg", connection: databaseUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    benchDbUrl = url.toString();
  }
  // Embedded: the database npm start opens (on disk, served on DATA_DIR's socket), in a temp dir.
  const database = await openConfiguredDatabase({ url: benchDbUrl, dataDir: mkdtempSync(join(tmpdir(), "sb-bench-")), mode: "own" });
  const { db } = database;
  await migrate(db);
  const kv: Kv = redisUrl ? await RedisKv.connect(redisUrl, `sbbench:${randomBytes(4).toString("hex")}:`) : new MemoryKv();
  const email = `bench-${randomBytes(4).toString("hex")}@example.test`;
  await createCreatorAccount(db, { email, password: "benchmark password", tier: "growth" }, new Date());
  const { token } = await mintTokenForCreator(db, { email, abilities: "all" }, new Date());

  const { createServer } = await import("node:http");
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const app = createApiApp({
    db,
    kv,
    appKey: randomBytes(32),
    handlers,
    preflights,
    now: () => new Date(),
    release: "bench",
    baseUrl,
    docsUrl: "http://docs.invalid",
    authUrl: "http://auth.invalid",
    mcpUrl: "http://mcp.invalid",
    // A budget no benchmark reaches: this measures the pipeline, not the limiter's refusals.
    budget: [{ name: "minute", limit: 1e9, windowMs: 60_000 }],
    logger: pino({ level: "silent" }),
    connectors: loadConnectorRegistry(DEFAULT_CONNECTORS_DIR),
    // The local fake platforms: a benchmark never contacts an outside host.
    platforms: (await openPlatforms(loadConfig({}).platforms)).endpoints,
    portalUrl: "http://localhost:4005",
  });
  server.on("request", app.callback());

  const scenarios: Scenario[] = [
    { name: "GET /v1/ping (public, no database)", request: () => ({ method: "GET", path: "/v1/ping" }) },
    { name: "GET /v1/teams/current", request: () => ({ method: "GET", path: "/v1/teams/current" }) },
    { name: "GET /v1/tokens?per_page=25", request: () => ({ method: "GET", path: "/v1/tokens?per_page=25" }) },
    {
      name: "POST /v1/tokens (write: idempotency record, transaction, activity entry)",
      request: (i) => ({
        method: "POST",
        path: "/v1/tokens",
        body: JSON.stringify({ name: `bench ${i}`, abilities: ["team:view"] }),
        headers: { "content-type": "application/json", "idempotency-key": `bench-${i}-${randomBytes(4).toString("hex")}` },
      }),
    },
  ];
  const results = [];
  for (const scenario of scenarios) {
    await run(baseUrl, token, { ...scenario, request: scenario.request }); // warm-up pass (JIT, caches)
    results.push(await run(baseUrl, token, scenario));
    console.log(JSON.stringify(results.at(-1)));
  }
  const backend = databaseUrl ? "postgres-redis" : "embedded";
  const report = {
    $comment: "generated by scripts/bench/rest-latency.ts; machine-dependent, recorded not asserted",
    backend,
    machine: { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30) },
    rss_mb_after: Math.round(process.memoryUsage().rss / 2 ** 20),
    results,
  };
  const dir = new URL("./results/", import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}rest-latency-${backend}.json`, JSON.stringify(report, null, 2) + "\n");
  console.log(`-> scripts/bench/results/rest-latency-${backend}.json`);

  server.close();
  await kv.close();
  await database.close();
  if (admin && benchDbUrl) {
    await admin.raw(`DROP DATABASE ${new URL(benchDbUrl).pathname.slice(1)} WITH (FORCE)`);
    await admin.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
