// The load side of scripts/bench/pipeline-ceilings.ts: the servers it starts (each its own process
// pinned to CPU 0, scripts/bench/bench-server.ts), the load sent to them (wrk pinned to CPU 1, or
// autocannon in this process without wrk), and the CPU time read from /proc around a measurement.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { profilerFlags } from "./profile-summary.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

/** The Node flags `npm run start:prod` (and npm start's compiled branch) runs the server with. */
export const PRODUCTION_NODE_FLAGS: readonly string[] = (() => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const match = /\bnode((?: --\S+)*) dist\/src\/main\.js/.exec(scripts["start:prod"] ?? "");
  if (!match) throw new Error("package.json's start:prod no longer reads `node [flags] dist/src/main.js`");
  return match[1]!.split(" ").filter(Boolean);
})();

export interface Started {
  child: ChildProcess;
  url: string;
}

/** Servers still running: killed when the run is interrupted, so none outlives it holding a core. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});
/** What an interrupted run still undoes (its database, its profiles): given 10 s in all, then the run exits. */
const undoOnInterrupt: (() => unknown)[] = [];
export function undoIfInterrupted(undo: () => unknown): void {
  undoOnInterrupt.push(undo);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill("SIGKILL");
    const undone = Promise.allSettled(undoOnInterrupt.map(async (undo) => undo()));
    void Promise.race([undone, new Promise((resolve) => setTimeout(resolve, 10_000))]).then(() => process.exit(130));
  });
}

export function startServer(target: string, env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    // Each server writes a V8 CPU profile when it stops (scripts/bench/profile-summary.ts).
    const profile = profilerFlags();
    // Every server runs with start:prod's Node flags, plus BENCH_NODE_ARGS="--flag ..." (a flag's
    // cost measured side by side). The sources' import condition only when they are measured.
    const nodeArgs = [...PRODUCTION_NODE_FLAGS, ...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)];
    const sources = process.env.BENCH_SOURCES === "1" ? ["--conditions=subbridge-source"] : [];
    const child = spawn(
      "taskset",
      ["-c", "0", process.execPath, ...nodeArgs, ...profile, "--import", "tsx", ...sources, "scripts/bench/bench-server.ts"],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, BENCH_TARGET: target, LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    running.add(child);
    child.once("exit", () => running.delete(child));
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

export async function stop(started: Started) {
  started.child.removeAllListeners("exit");
  await new Promise((resolve) => {
    started.child.once("exit", resolve);
    started.child.kill("SIGTERM");
  });
}

export interface Load {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A fresh Idempotency-Key per request. */
  uniqueKey?: boolean;
  /** Authorization headers taken in turn, one per request (a load spread over several teams). */
  authorizations?: string[];
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
export const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** The machine's busy and idle clock ticks so far, over every CPU (/proc/stat). */
export function machineTicks(): { busy: number; idle: number } {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as number[];
  return { busy: user! + nice! + system! + irq! + softirq! + steal!, idle: idle! + iowait! };
}

/** CPU time a process has used, in clock ticks (utime + stime). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU ticks used so far by each PostgreSQL and Redis process on the machine, by pid. */
export function serviceTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
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
    ticks.set(entry, Number(fields[11]) + Number(fields[12]));
  }
  return ticks;
}

/**
 * The services' CPU ticks between two snapshots: each process's own growth, a process started
 * meanwhile counted whole. One that exited meanwhile (a pooled connection closed for idleness)
 * takes its ticks with it and is left out, rather than subtracted.
 */
export function serviceTicksBetween(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ticks] of after) total += ticks - (before.get(pid) ?? 0);
  return total;
}

export const hasWrk = (() => {
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
    `local authorizations = { ${(load.authorizations ?? []).map(lua).join(", ")} }`,
    `request = function()`,
    `  n = n + 1`,
    ...(load.uniqueKey ? [`  wrk.headers["idempotency-key"] = seed .. "-" .. n`] : []),
    ...(load.authorizations?.length ? [`  wrk.headers["authorization"] = authorizations[(n % #authorizations) + 1]`] : []),
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
export async function answersSuccessfully(url: string, load: Load, label: string): Promise<void> {
  const headers = {
    ...load.headers,
    ...(load.authorizations?.length ? { authorization: load.authorizations[0]! } : {}),
    ...(load.uniqueKey ? { "idempotency-key": randomUUID() } : {}),
  };
  const res = await fetch(url + load.path, { method: load.method, headers, ...(load.body ? { body: load.body } : {}) });
  const text = await res.text();
  const failed = res.status >= 300 || /"error"\s*:|"isError"\s*:\s*true/.test(text);
  if (failed) throw new Error(`${label}: the load does not succeed (${res.status}): ${text.slice(0, 300)}`);
}

/** What one load measures from the client side. */
export interface WrkResult {
  requests_per_second: number;
  latency_ms: { p50: number; p99: number };
  non_2xx: number;
  errors: number;
}

export async function measure(url: string, load: Load, seconds: number): Promise<WrkResult> {
  if (hasWrk) return runWrk(url, load, seconds);
  let n = 0;
  const perRequest = (headers: Record<string, string>) => ({
    ...headers,
    ...(load.uniqueKey ? { "idempotency-key": randomUUID() } : {}),
    ...(load.authorizations?.length ? { authorization: load.authorizations[n++ % load.authorizations.length]! } : {}),
  });
  const request = {
    method: load.method,
    path: load.path,
    headers: load.headers ?? {},
    ...(load.body ? { body: load.body } : {}),
    ...(load.uniqueKey || load.authorizations?.length
      ? { setupRequest: (req: Record<string, any>) => ({ ...req, headers: perRequest(req.headers) }) }
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

/**
 * A 2026-07-28 `tools/call` of get_current_team as a conforming client sends it: the routing
 * headers and the envelope's _meta. The tool is in the teams toolset, outside the default selection.
 */
export function currentTeamToolCall(authorization: string, id = 1): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      authorization,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "get_current_team",
      "x-mcp-toolsets": "default,teams",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
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
    }),
  };
}
