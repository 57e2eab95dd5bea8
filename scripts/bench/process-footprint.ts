// The process's footprint under both ways of starting it, every surface and the worker in one
// process: the compiled build (`npm run start:prod`'s node command, which `npm start` runs when the
// build is current, as after `npm ci`; `npm run bench:footprint` builds it first) and the sources
// through tsx (`npm run dev`). For each command and backend - the embedded defaults (PGlite on disk, in-process KV) and
// PostgreSQL + Redis (BENCH_DATABASE_URL, BENCH_REDIS_URL; skipped when unset) - it measures:
//   cold start   spawn -> every surface's /up answering (liveness: the listeners answer while the
//                rest loads, src/serve.ts) and spawn -> the API's /ready answering 200 (every
//                surface and worker serving): the first start on an empty data folder
//                (embedded: initdb, migrations and the demo seed) and a restart on existing data;
//   idle RSS     3 s after the first start's /ready, and a minute after the restart's spawn (issue
//                48's "idle after its first minute"); after a few hundred requests (reads,
//                idempotent writes, MCP), 2 s after them and 30 s after them (once V8's memory
//                reducer has given back the heap the burst grew: what the process holds);
//   peak RSS     VmHWM over a hostile burst: megabyte bodies, deep JSON, malformed requests.
// Results: scripts/bench/results/process-footprint.json. Machine-dependent: recorded, never asserted.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openConfiguredDatabase, type Database } from "../../src/db/database.ts";
import { currentTeamToolCall } from "./load-harness.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

/** A start command as package.json has it: node's flags and the entry, so the two never differ. */
interface Command {
  name: string;
  script: string;
  nodeArgs: string[];
  entry: string;
}

function command(name: string, scriptName: string): Command {
  const script = SCRIPTS[scriptName]!;
  // The script execs node so that the supervisor's signal reaches the server; the process measured is that node.
  const [node, ...args] = script.replace(/^exec\s+/, "").split(/\s+/);
  if (node !== "node") throw new Error(`${scriptName} should run node directly (the process measured is the server), not: ${script}`);
  return { name, script, nodeArgs: args.slice(0, -1), entry: join(ROOT, args.at(-1)!) };
}

// npm start runs start:prod's command when the build is current (scripts/start.sh), as after npm ci; npm run dev runs the sources.
const COMMANDS = [command("npm start (compiled, as start:prod)", "start:prod"), command("npm run dev (sources through tsx)", "dev")];
const SURFACES = ["API", "MCP", "AUTH", "SITE", "DOCS", "PORTAL"] as const;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
/** Whether a surface's listener answers: /up (the reference site's app has none once it serves: its home page then). */
async function surfaceUp(url: string): Promise<boolean> {
  return (await answers(`${url}/up`)) || (await answers(`${url}/`));
}

interface Running {
  child: ChildProcess;
  urls: Record<(typeof SURFACES)[number], string>;
}

const megabytes = (kb: number) => Math.round((kb / 1024) * 10) / 10;

/** VmRSS and VmHWM (peak) of a process, in kB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

function freePort(): number {
  return 20_000 + Math.floor(Math.random() * 12_000);
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** Starts the server; resolves once the API's /ready answers 200, with the time every surface's /up first answered and that time. */
async function start(cmd: Command, env: Record<string, string>): Promise<{ running: Running; startMs: number; readyMs: number }> {
  const urls = {} as Running["urls"];
  const portEnv: Record<string, string> = {};
  for (const surface of SURFACES) {
    const port = freePort();
    portEnv[`${surface}_PORT`] = String(port);
    portEnv[surface === "API" ? "BASE_URL" : `${surface}_URL`] = `http://127.0.0.1:${port}`;
    urls[surface] = `http://127.0.0.1:${port}`;
  }
  const began = performance.now();
  const child = spawn(process.execPath, [...cmd.nodeArgs, cmd.entry], {
    cwd: ROOT,
    // The sandbox, as `npm start` runs on the embedded defaults (simulated platforms and Stripe; sbt_test_ tokens).
    env: { PATH: process.env.PATH!, HOST: "127.0.0.1", LOG_LEVEL: "warn", SUBBRIDGE_ENVIRONMENT: "test", ...portEnv, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`the server exited with ${code}`))));
  let startMs: number | null = null;
  for (;;) {
    if (startMs === null) {
      const up = await Promise.race([Promise.all(SURFACES.map((s) => surfaceUp(urls[s]))), exited]);
      if (up.every(Boolean)) startMs = Math.round(performance.now() - began);
    }
    if (startMs !== null && (await Promise.race([answers(`${urls.API}/ready`), exited])))
      return { running: { child, urls }, startMs, readyMs: Math.round(performance.now() - began) };
    if (performance.now() - began > 120_000) {
      child.kill("SIGKILL");
      throw new Error("the server did not come up in 2 minutes");
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stop(running: Running): Promise<void> {
  const exited = new Promise((resolve) => running.child.once("exit", resolve));
  running.child.kill("SIGTERM");
  await exited;
}

/** Reads, idempotent writes and MCP calls, 8 at a time. */
async function traffic(running: Running, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const calls: (() => Promise<Response>)[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const kind = i % 4;
    if (kind === 0) calls.push(() => fetch(`${running.urls.API}/v1/teams/current`, { headers: auth }));
    else if (kind === 1) calls.push(() => fetch(`${running.urls.API}/v1/tokens?per_page=25`, { headers: auth }));
    else if (kind === 2)
      calls.push(() =>
        fetch(`${running.urls.API}/v1/tokens`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
          body: JSON.stringify({ name: `Footprint ${i}`, abilities: ["team:view"] }),
        }),
      );
    else
      calls.push(() => {
        const call = currentTeamToolCall(auth.authorization, i);
        return fetch(running.urls.MCP, { method: "POST", headers: call.headers, body: call.body });
      });
  }
  // Normal traffic must succeed: a figure measured on refusals would measure the wrong thing.
  const failed = (await inParallel(calls, 8)).filter((status) => status < 200 || status >= 300).length;
  if (failed) throw new Error(`${failed} of ${calls.length} requests of the traffic did not succeed`);
}

/** Bodies and requests a hostile client sends: megabyte bodies, deep nesting, long arrays, garbage. */
async function hostileBurst(running: Running, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const big = JSON.stringify({ name: "x".repeat(1_100_000) });
  const deep = "[".repeat(5000) + "]".repeat(5000);
  const long = JSON.stringify({ abilities: Array.from({ length: 30_000 }, () => "team:view") });
  const bodies = [big, deep, long, "{", "\u0000".repeat(10_000)];
  const calls: (() => Promise<Response>)[] = [];
  for (let i = 0; i < 200; i++) {
    const body = bodies[i % bodies.length]!;
    const target = i % 2 ? `${running.urls.API}/v1/tokens` : running.urls.MCP;
    calls.push(() =>
      fetch(target, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID(), accept: "application/json, text/event-stream" },
        body,
      }),
    );
  }
  await inParallel(calls, 16);
}

/** Runs the calls `width` at a time; each one's status (0 when no answer came). */
async function inParallel(calls: (() => Promise<Response>)[], width: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < calls.length) {
        const res = await calls[next++]!().catch(() => null);
        const body = await res?.text().catch(() => "");
        // A tools/call refused by the protocol or the tool still answers 200: read the JSON-RPC result.
        const refused = body?.includes('"error"') || body?.includes('"isError":true');
        statuses.push(res ? (refused ? 400 : res.status) : 0);
      }
    }),
  );
  return statuses;
}

/** A creator with a token holding every grantable ability, made through `db` (the server's database). */
async function mintBenchToken(db: Database): Promise<string> {
  const email = `footprint-${randomBytes(4).toString("hex")}@example.test`;
  await createCreatorAccount(db, { email, password: "footprint password", tier: "growth" }, new Date());
  return (await mintTokenForCreator(db, { email, abilities: "all", environment: "test" }, new Date())).token;
}

/** When the restart's idle RSS is read: a minute after its spawn. */
const IDLE_AT_MS = 60_000;
/** When the RSS after the requests is read again: what the process holds once it has been idle a while. */
const SETTLED_AFTER_MS = 30_000;

async function settle(ms: number) {
  await new Promise((r) => setTimeout(r, ms));
}

interface Figures {
  first_start_ms: number;
  first_start_ready_ms: number;
  restart_ms: number;
  restart_ready_ms: number;
  idle_rss_mb_after_first_start: number;
  idle_rss_mb_a_minute_after_restart: number;
  rss_mb_after_requests: number;
  rss_mb_30s_after_requests: number;
  requests: number;
  peak_rss_mb_over_hostile_burst: number;
}

async function measureBackend(
  cmd: Command,
  label: string,
  env: Record<string, string>,
  tokenFor: (running: Running) => Promise<string>,
): Promise<Figures> {
  const first = await start(cmd, env);
  let afterFirst: ReturnType<typeof memory>;
  try {
    await settle(3000);
    afterFirst = memory(first.running.child.pid!);
  } finally {
    await stop(first.running);
  }
  const again = await start(cmd, env);
  let afterRestart: ReturnType<typeof memory>, afterRequests: ReturnType<typeof memory>, settled: ReturnType<typeof memory>;
  let afterHostile: ReturnType<typeof memory>;
  try {
    await settle(Math.max(3000, IDLE_AT_MS - again.readyMs));
    afterRestart = memory(again.running.child.pid!);
    const token = await tokenFor(again.running);
    await traffic(again.running, token);
    await settle(2000);
    afterRequests = memory(again.running.child.pid!);
    await settle(SETTLED_AFTER_MS - 2000);
    settled = memory(again.running.child.pid!);
    await hostileBurst(again.running, token);
    await settle(1000);
    afterHostile = memory(again.running.child.pid!);
  } finally {
    await stop(again.running);
  }
  const figures: Figures = {
    first_start_ms: first.startMs,
    first_start_ready_ms: first.readyMs,
    restart_ms: again.startMs,
    restart_ready_ms: again.readyMs,
    idle_rss_mb_after_first_start: megabytes(afterFirst.rss),
    idle_rss_mb_a_minute_after_restart: megabytes(afterRestart.rss),
    rss_mb_after_requests: megabytes(afterRequests.rss),
    rss_mb_30s_after_requests: megabytes(settled.rss),
    requests: REQUESTS,
    peak_rss_mb_over_hostile_burst: megabytes(afterHostile.peak),
  };
  console.log(cmd.name, label, JSON.stringify(figures));
  return figures;
}

/** A bench token minted through the server's database (PostgreSQL at `url`, or the embedded one in `dataDir`). */
async function mintThrough(url: string | null, dataDir: string): Promise<string> {
  const opened = await openConfiguredDatabase({ url, dataDir, mode: "share" });
  try {
    return await mintBenchToken(opened.db);
  } finally {
    await opened.close();
  }
}

/** One command's figures on each backend. */
async function measureCommand(cmd: Command): Promise<Record<string, unknown>> {
  if (!existsSync(cmd.entry)) throw new Error(`${cmd.entry} is missing: run npm run build first`);
  const results: Record<string, unknown> = { command: cmd.script };
  const dataDir = mkdtempSync(join(tmpdir(), "sb-footprint-"));
  try {
    // A client of the running server's embedded database, through its socket.
    results.embedded = await measureBackend(cmd, "embedded", { DATA_DIR: dataDir }, () => mintThrough(null, dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  const serverUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!serverUrl || !redisUrl) {
    console.log(cmd.name, "postgres+redis: skipped (set BENCH_DATABASE_URL and BENCH_REDIS_URL)");
    return results;
  }
  const name = `sb_footprint_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pgData = mkdtempSync(join(tmpdir(), "sb-footprint-pg-"));
  try {
    const env = {
      DATABASE_URL: url.toString(),
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: name,
      DATA_DIR: pgData,
      APP_KEY: randomBytes(32).toString("base64"),
    };
    results.postgres_redis = await measureBackend(cmd, "postgres+redis", env, () => mintThrough(url.toString(), pgData));
  } finally {
    rmSync(pgData, { recursive: true, force: true });
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  return results;
}

async function main() {
  const results: Record<string, unknown> = { measured_at: new Date().toISOString(), node: process.version };
  for (const cmd of COMMANDS) results[cmd.name] = await measureCommand(cmd);

  const dir = join(ROOT, "scripts/bench/results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "process-footprint.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("-> scripts/bench/results/process-footprint.json");
}

await main();
