// The members export on the embedded backend (PGlite on disk, as `npm start` runs it): 100,000
// members of one project streamed as CSV through the REST API in this process, timed, with the
// process's RSS sampled every 20 ms while it runs. Writes scripts/bench/results/exports-embedded.json.
//   tsx --conditions=subbridge-source scripts/bench/exports.ts [rows]
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import pino from "pino";
import { migrate, openConfiguredDatabase } from "../../src/db/database.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { createApiApp } from "../../src/apps/api/api-app.ts";
import { handlers, preflights } from "../../src/modules/handlers.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { openPlatforms } from "../../src/outside/platforms.ts";
import { DEFAULT_CONNECTORS_DIR, loadConfig } from "../../src/config.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";

const ROWS = Number(process.argv[2] ?? 100_000);
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function main() {
  const database = await openConfiguredDatabase({ url: null, dataDir: mkdtempSync(join(tmpdir(), "sb-bench-exports-")), mode: "own" });
  const { db } = database;
  await migrate(db);
  const kv = new MemoryKv();
  const email = `bench-${randomBytes(4).toString("hex")}@example.test`;
  await createCreatorAccount(db, { email, password: "benchmark password", tier: "growth" }, new Date());
  const { token } = await mintTokenForCreator(db, { email, abilities: "all" }, new Date());
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
    budget: [{ name: "minute", limit: 1e9, windowMs: 60_000 }],
    logger: pino({ level: "silent" }),
    connectors: loadConnectorRegistry(DEFAULT_CONNECTORS_DIR),
    platforms: (await openPlatforms(loadConfig({}).platforms)).endpoints,
    portalUrl: "http://localhost:4005",
  });
  server.on("request", app.callback());
  const auth = { authorization: `Bearer ${token}` };
  const created = await fetch(`${baseUrl}/v1/projects`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({ name: "Bench exports" }),
  });
  const project = ((await created.json()) as { data: { id: string } }).data.id;
  const { team_id } = await db("projects").where({ id: project }).first("team_id");
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < ROWS; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, ROWS - i) }, (_, j) => ({
      id: randomUUID(),
      team_id,
      project_id: project,
      connector_key: "telegram",
      external_user_id: String(1e9 + i + j),
      display_name: `Member ${i + j}, "bench"`,
      email: `m${i + j}@example.test`,
      status: "customer",
      joined_at: new Date(start + (i + j) * 1000),
      created_at: new Date(start + (i + j) * 1000),
      updated_at: new Date(start),
    }));
    await db("members").insert(rows);
  }
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const began = performance.now();
  const res = await fetch(`${baseUrl}/v1/projects/${project}/members/export`, { headers: auth });
  let firstByteMs: number | null = null;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    firstByteMs ??= performance.now() - began;
    bytes += chunk.byteLength;
    for (const b of chunk) if (b === 10) lines++;
  }
  const totalMs = performance.now() - began;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const result = {
    scenario: `GET /v1/projects/{project}/members/export, ${ROWS} members, embedded PGlite, server and client in one process`,
    status: res.status,
    rows: lines - 1,
    bytes,
    first_byte_ms: Math.round(firstByteMs ?? 0),
    total_ms: Math.round(totalMs),
    rows_per_second: Math.round(((lines - 1) / totalMs) * 1000),
    rss_before_mb: mb(baseline),
    rss_peak_mb: mb(peak),
    rss_growth_mb: mb(peak - baseline),
    machine: { cpus: cpus().length, memory_mb: mb(totalmem()), node: process.version },
    measured_at: new Date().toISOString(),
  };
  mkdirSync("scripts/bench/results", { recursive: true });
  writeFileSync("scripts/bench/results/exports-embedded.json", `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
  server.close();
  await kv.close();
  await database.close();
}

await main();
