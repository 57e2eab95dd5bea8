// How close the pipeline comes to what the machine allows, measured side by side in one run:
// every server runs in its own process pinned to CPU 0 (scripts/bench/bench-server.ts), the load
// comes from wrk pinned to CPU 1 (Debian's package: apt-get install wrk), or, without wrk, from
// autocannon in this process (the npm script runs it on CPU 1; it saturates near 5k requests/s,
// so without wrk the ceilings are understated).
//   ceilings   bare Koa; Koa + one `select 1` (the one-query ceiling); Koa + one Redis EVALSHA +
//              one `select 1` (the floor under any request admitted through Redis, as ours are)
//   pipeline   GET /v1/teams/current and, next to it, MCP tools/call get_current_team (its twin),
//              GET /v1/tokens, POST /v1/tokens (idempotent write)
// Each scenario starts after a VACUUM and a CHECKPOINT, so none is measured while the database
// vacuums or writes out what an earlier one (the write load) left behind.
// Ratios against the ceilings and the MCP/REST ratio are written, with the raw numbers, to
// scripts/bench/results/pipeline-ceilings.json. Needs PostgreSQL and Redis:
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:ceilings
// BENCH_ONLY=<label parts> runs some scenarios only (nothing written); BENCH_PROFILE_DIR=<dir> profiles
// each server (V8 .cpuprofile files). Machine-dependent: recorded, never asserted.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpus } from "node:os";
import autocannon from "autocannon";
import knex from "knex";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
/** Rounds over every scenario, interleaved; medians are reported (a shared VM is noisy). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_ONLY=mcp,teams: only the scenarios whose label contains one of these (the results file is left alone). */
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",").map((s) => s.trim().toLowerCase()) : null;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROOT = new URL("../../", import.meta.url).pathname;

interface Started {
  child: ChildProcess;
  url: string;
}

function startServer(target: string, env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    // BENCH_PROFILE_DIR=<dir>: each server writes a V8 CPU profile there when it stops.
    const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-interval=100", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const child = spawn("taskset", ["-c", "0", process.execPath, ...profile, "--import", "tsx", "scripts/bench/bench-server.ts"], {
      cwd: ROOT,
      env: { ...process.env, ...env, BENCH_TARGET: target, LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      if (seen === null) return; // logs after start: drained, as a log shipper would
      seen += chunk;
      const match = /listening (\d+)/.exec(seen);
      if (match) {
        resolve({ child, url: `http://127.0.0.1:${match[1]}` });
        seen = null as unknown as string;
      }
    });
    child.on("exit", (code) => reject(new Error(`bench server ${target} exited with ${code}`)));
  });
}

async function stop(started: Started) {
  started.child.removeAllListeners("exit");
  await new Promise((resolve) => {
    started.child.once("exit", resolve);
    started.child.kill("SIGTERM");
  });
}

interface Load {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A fresh Idempotency-Key per request. */
  uniqueKey?: boolean;
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
const WARMUP_SECONDS = 2;

/** The machine's busy and idle clock ticks so far, over every CPU (/proc/stat). */
function machineTicks(): { busy: number; idle: number } {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as number[];
  return { busy: user! + nice! + system! + irq! + softirq! + steal!, idle: idle! + iowait! };
}

/** CPU time a process has used, in clock ticks (utime + stime). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU ticks used so far by every PostgreSQL and Redis process on the machine (their share of a request). */
function serviceTicks(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    if (!/^(postgres|postmaster|redis-server)/.test(comm)) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += Number(fields[11]) + Number(fields[12]);
  }
  return total;
}

const hasWrk = (() => {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (err) {
    return (err as { status?: number }).status === 1; // wrk --version exits 1 after printing
  }
})();

/** A wrk script sending `load`, with a fresh Idempotency-Key per request when asked. */
function wrkScript(load: Load): string {
  const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal here
  const headers = Object.entries(load.headers ?? {}).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`);
  return [
    `wrk.method = ${lua(load.method)}`,
    ...(load.body ? [`wrk.body = ${lua(load.body)}`] : []),
    ...headers,
    `local n = 0`,
    `local seed = tostring(os.time()) .. tostring(math.random(1, 1e9))`,
    `request = function()`,
    ...(load.uniqueKey ? [`  n = n + 1`, `  wrk.headers["idempotency-key"] = seed .. "-" .. n`] : []),
    `  return wrk.format(nil, ${lua(load.path)})`,
    `end`,
    `done = function(summary, latency, requests)`,
    `  local e = summary.errors`,
    `  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"p50":%.2f,"p99":%.2f,"non_2xx":%d,"errors":%d}\\n',`,
    `    summary.requests, summary.duration, latency:percentile(50) / 1000, latency:percentile(99) / 1000, e.status, e.connect + e.read + e.write + e.timeout))`,
    `end`,
  ].join("\n");
}

/**
 * Runs wrk without blocking this process: the server's log lines (stdout, piped here) are drained
 * while it measures, as a log shipper would. A blocked reader (execFileSync) let the pipe fill, and
 * the server then kept every later line in memory (sonic-boom retries EAGAIN), which cost the
 * scenarios that log (the pipeline's) garbage collection the ceilings never paid.
 */
function runWrk(url: string, load: Load, seconds: number): Promise<WrkResult> {
  const script = join(mkdtempSync(join(tmpdir(), "bench-")), "load.lua");
  writeFileSync(script, wrkScript(load));
  return new Promise((resolve, reject) => {
    const wrk = spawn("taskset", ["-c", "1", "wrk", "-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "-s", script, url], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    wrk.stdout!.on("data", (chunk: Buffer) => (out += chunk));
    wrk.on("error", reject);
    wrk.on("exit", (code) => {
      const match = /RESULT (\{.*\})/.exec(out);
      if (code !== 0 || !match) return reject(new Error(`wrk exited with ${code}: ${out.slice(0, 300)}`));
      const r = JSON.parse(match[1]!);
      resolve({
        requests_per_second: Math.round(r.requests / (r.duration_us / 1e6)),
        latency_ms: { p50: r.p50, p99: r.p99 },
        non_2xx: r.non_2xx,
        errors: r.errors,
      });
    });
  });
}

/**
 * One request of the load first: a 2xx, and over MCP a result that is not an error (a JSON-RPC or
 * tool error also comes with 200, and measuring an error path would say nothing of the call).
 */
async function answersSuccessfully(url: string, load: Load, label: string): Promise<void> {
  const headers = { ...load.headers, ...(load.uniqueKey ? { "idempotency-key": randomUUID() } : {}) };
  const res = await fetch(url + load.path, { method: load.method, headers, ...(load.body ? { body: load.body } : {}) });
  const text = await res.text();
  const failed = res.status >= 300 || /"error"\s*:|"isError"\s*:\s*true/.test(text);
  if (failed) throw new Error(`${label}: the load does not succeed (${res.status}): ${text.slice(0, 300)}`);
}

/** What one load measures from the client side. */
type WrkResult = Pick<Measured, "requests_per_second" | "latency_ms" | "non_2xx" | "errors">;

interface Measured {
  /** Server CPU (user + system) per request, from /proc: steadier than throughput on a shared host. */
  cpu_us_per_request: number;
  /**
   * The whole machine's CPU per request (server, PostgreSQL, Redis, wrk and anything else): where a
   * request's database work goes, which the server's own figure leaves out.
   */
  machine_cpu_us_per_request: number;
  /** PostgreSQL's and Redis's CPU per request (every process of theirs on the machine). */
  services_cpu_us_per_request: number;
  /** Transactions committed in the bench database per request (pg_stat_database; approximate, stats flush about once a second). */
  commits_per_request: number;
  /** Share of the machine's CPU time left idle while measuring. */
  machine_idle: number;
  requests_per_second: number;
  latency_ms: { p50: number; p99: number };
  non_2xx: number;
  errors: number;
}

async function measure(url: string, load: Load, seconds: number): Promise<WrkResult> {
  if (hasWrk) return runWrk(url, load, seconds);
  const request = {
    method: load.method,
    path: load.path,
    headers: load.headers ?? {},
    ...(load.body ? { body: load.body } : {}),
    ...(load.uniqueKey
      ? { setupRequest: (req: Record<string, any>) => ({ ...req, headers: { ...req.headers, "idempotency-key": randomUUID() } }) }
      : {}),
  };
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, requests: [request] as never });
  return {
    requests_per_second: Math.round(result.requests.average),
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error("set BENCH_DATABASE_URL and BENCH_REDIS_URL (the ceilings are measured on PostgreSQL and Redis)");
  const name = `subbridge_bench_${randomBytes(4).toString("hex")}`;
  const admin = knex({ client: "pg", connection: databaseUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(databaseUrl);
  dbUrl.pathname = `/${name}`;
  const db = openDatabase({ url: dbUrl.toString() });
  const samples: Record<string, Measured[]> = {};
  const commits = async () =>
    Number((await admin.raw("select xact_commit from pg_stat_database where datname = ?", [name])).rows[0]?.xact_commit ?? 0);
  try {
    await migrate(db);
    const email = `bench-${randomBytes(4).toString("hex")}@example.test`;
    await createCreatorAccount(db, { email, password: "benchmark password", tier: "growth" }, new Date());
    const { token } = await mintTokenForCreator(db, { email, abilities: "all" }, new Date());
    const auth = { authorization: `Bearer ${token}` };
    // Writes mint tokens: a creator of their own, so the token list keeps its size across rounds.
    const writerEmail = `bench-writer-${randomBytes(4).toString("hex")}@example.test`;
    await createCreatorAccount(db, { email: writerEmail, password: "benchmark password", tier: "growth" }, new Date());
    const writer = { authorization: `Bearer ${(await mintTokenForCreator(db, { email: writerEmail, abilities: "all" }, new Date())).token}` };
    const env = {
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `bench${randomBytes(3).toString("hex")}`,
      APP_KEY: randomBytes(32).toString("base64"),
    };
    const mcpCall = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "get_current_team",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const plan: [string, string, Load][] = [
      ["bare Koa", "bare", { method: "GET", path: "/" }],
      ["Koa + select 1", "select1", { method: "GET", path: "/" }],
      ["Koa + EVALSHA + select 1", "select1-redis", { method: "GET", path: "/" }],
      ["GET /v1/teams/current", "api", { method: "GET", path: "/v1/teams/current", headers: auth }],
      [
        "MCP tools/call get_current_team",
        "mcp",
        {
          method: "POST",
          path: "/",
          body: mcpCall,
          headers: {
            ...auth,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "get_current_team",
            // get_current_team is in the teams toolset, outside the default selection.
            "x-mcp-toolsets": "default,teams",
          },
        },
      ],
      ["GET /v1/tokens?per_page=25", "api", { method: "GET", path: "/v1/tokens?per_page=25", headers: auth }],
      [
        "POST /v1/tokens (idempotent write)",
        "api",
        {
          method: "POST",
          path: "/v1/tokens",
          headers: { ...writer, "content-type": "application/json" },
          body: JSON.stringify({ name: "bench", abilities: ["team:view"] }),
          uniqueKey: true,
        },
      ],
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [label, target, load] of plan) {
        if (ONLY && !ONLY.some((part) => label.toLowerCase().includes(part))) continue;
        // Every scenario starts on a quiet database: what an earlier one left behind (a write
        // load's new rows, which autovacuum would visit, its dirty pages and WAL) is vacuumed and
        // written now, not during the next one's measurement.
        await db.raw("VACUUM (ANALYZE)").catch(() => undefined);
        await admin.raw("CHECKPOINT").catch(() => undefined);
        const server = await startServer(target, env);
        try {
          await answersSuccessfully(server.url, load, label);
          await measure(server.url, load, WARMUP_SECONDS); // JIT, pools, caches
          const cpuBefore = cpuTicks(server.child.pid!);
          const machineBefore = machineTicks();
          const servicesBefore = serviceTicks();
          const commitsBefore = await commits();
          const run = await measure(server.url, load, DURATION);
          const ticks = cpuTicks(server.child.pid!) - cpuBefore;
          const services = serviceTicks() - servicesBefore;
          await new Promise((r) => setTimeout(r, 1500)); // backends flush their statistics about once a second
          const committed = (await commits()) - commitsBefore;
          const machineAfter = machineTicks();
          const busy = machineAfter.busy - machineBefore.busy;
          const idle = machineAfter.idle - machineBefore.idle;
          const perRequest = (t: number) => Math.round((t * (1e6 / CLOCK_TICKS)) / (run.requests_per_second * DURATION));
          const measured: Measured = {
            ...run,
            cpu_us_per_request: perRequest(ticks),
            machine_cpu_us_per_request: perRequest(busy),
            services_cpu_us_per_request: perRequest(services),
            commits_per_request: Math.round((100 * committed) / (run.requests_per_second * DURATION)) / 100,
            machine_idle: Math.round((1000 * idle) / (busy + idle)) / 1000,
          };
          (samples[label] ??= []).push(measured);
          console.log(`round ${round}`, label, JSON.stringify(measured));
        } finally {
          await stop(server);
        }
      }
    }
  } finally {
    await db.destroy();
    await admin.raw(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.destroy();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const results = Object.fromEntries(
    Object.entries(samples).map(([label, runs]) => [
      label,
      {
        requests_per_second: median(runs.map((r) => r.requests_per_second)),
        cpu_us_per_request: median(runs.map((r) => r.cpu_us_per_request)),
        machine_cpu_us_per_request: median(runs.map((r) => r.machine_cpu_us_per_request)),
        services_cpu_us_per_request: median(runs.map((r) => r.services_cpu_us_per_request)),
        commits_per_request: median(runs.map((r) => r.commits_per_request)),
        machine_idle: median(runs.map((r) => r.machine_idle)),
        p50_ms: median(runs.map((r) => r.latency_ms.p50)),
        p99_ms: median(runs.map((r) => r.latency_ms.p99)),
        rounds: runs.map((r) => r.requests_per_second),
        non_2xx: runs.reduce((n, r) => n + r.non_2xx, 0),
        errors: runs.reduce((n, r) => n + r.errors, 0),
      },
    ]),
  );
  const rps = (label: string) => results[label]!.requests_per_second;
  if (ONLY) return console.log("BENCH_ONLY: a partial run; scripts/bench/results/pipeline-ceilings.json is left as it was");
  const ratio = (a: string, b: string) => Math.round((rps(a) / rps(b)) * 1000) / 1000;
  const ratios = {
    "authenticated GET / one-query ceiling (goal >= 0.5)": ratio("GET /v1/teams/current", "Koa + select 1"),
    "token list / one-query ceiling": ratio("GET /v1/tokens?per_page=25", "Koa + select 1"),
    "idempotent write / one-query ceiling (goal >= 0.25)": ratio("POST /v1/tokens (idempotent write)", "Koa + select 1"),
    "MCP tools/call / its REST twin (goal >= 0.7)": ratio("MCP tools/call get_current_team", "GET /v1/teams/current"),
    "one-query ceiling / bare Koa": ratio("Koa + select 1", "bare Koa"),
    "Redis-admitted floor (one EVALSHA + one query) / one-query ceiling": ratio("Koa + EVALSHA + select 1", "Koa + select 1"),
  };
  // The same goals in server CPU per request (ceiling's cost / pipeline's cost): on a shared host
  // this moves far less between runs than throughput does.
  const cpu = (label: string) => results[label]!.cpu_us_per_request;
  const cpuRatio = (a: string, b: string) => Math.round((cpu(b) / cpu(a)) * 1000) / 1000;
  const cpuRatios = {
    "authenticated GET / one-query ceiling (goal >= 0.5)": cpuRatio("GET /v1/teams/current", "Koa + select 1"),
    "token list / one-query ceiling": cpuRatio("GET /v1/tokens?per_page=25", "Koa + select 1"),
    "idempotent write / one-query ceiling (goal >= 0.25)": cpuRatio("POST /v1/tokens (idempotent write)", "Koa + select 1"),
    "MCP tools/call / its REST twin (goal >= 0.7)": cpuRatio("MCP tools/call get_current_team", "GET /v1/teams/current"),
    "Redis-admitted floor (one EVALSHA + one query) / one-query ceiling": cpuRatio("Koa + EVALSHA + select 1", "Koa + select 1"),
  };
  console.log(JSON.stringify({ throughput: ratios, server_cpu: cpuRatios }, null, 2));
  const dir = new URL("./results/", import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    `${dir}pipeline-ceilings.json`,
    JSON.stringify(
      {
        $comment: "generated by scripts/bench/pipeline-ceilings.ts; machine-dependent, recorded not asserted",
        machine: {
          node: process.version,
          cpus: cpus().length,
          cpu: cpus()[0]?.model,
          server_pinned_to: "cpu 0",
          load_from: hasWrk ? "wrk, cpu 1" : "autocannon, cpu 1",
        },
        duration_seconds: DURATION,
        rounds: ROUNDS,
        statistic: "median of the rounds",
        connections: CONNECTIONS,
        ratios: { throughput: ratios, server_cpu_per_request: cpuRatios },
        results,
      },
      null,
      2,
    ) + "\n",
  );
  console.log("-> scripts/bench/results/pipeline-ceilings.json");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
