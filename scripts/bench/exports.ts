// The members export on the embedded backend (PGlite on disk, as `npm start` runs it): 100,000
// members of one project streamed as CSV through the REST API in this process, timed, with the
// process's RSS sampled every 20 ms while it runs. Writes scripts/bench/results/exports-embedded.json.
//   tsx --conditions=subbridge-source scripts/bench/exports.ts [rows]
import { randomUUID } from "node:crypto";
import { MemoryKv } from "../../src/kv/memory.ts";
import { openBenchApi } from "./bench-api.ts";
import { machine, writeResults } from "./results-file.ts";

const ROWS = Number(process.argv[2] ?? 100_000);
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function main() {
  const kv = new MemoryKv();
  const api = await openBenchApi(kv, { databaseUrl: null });
  const { db, baseUrl, token } = api;
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
    machine: machine(),
    measured_at: new Date().toISOString(),
  };
  console.log(JSON.stringify(result, null, 2));
  writeResults("exports-embedded", result);
  await api.close();
  await kv.close();
}

await main();
