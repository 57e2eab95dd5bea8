// How close the pipeline comes to what the machine allows, measured side by side in one run:
// every server runs in its own process pinned to CPU 0 (scripts/bench/bench-server.ts), the load
// comes from wrk pinned to CPU 1 (Debian's package: apt-get install wrk), or, without wrk, from
// autocannon in this process (the npm script runs it on CPU 1; it saturates near 5k requests/s,
// so without wrk the ceilings are understated).
//   ceilings   bare Koa; Koa + one `select 1` (the one-query ceiling); Koa + one Redis EVALSHA +
//              one `select 1` (the floor under any request admitted through Redis, as ours are);
//              Koa + a stock knex transaction with one insert (the write ceiling), and with four
//   pipeline   GET /v1/teams/current and, next to it, MCP tools/call get_current_team (its twin),
//              GET /v1/tokens, POST /v1/tokens (idempotent write) spread over 16 teams (a token
//              each, taken in turn) and, beside it, from one team (whose writes serialise on
//              its plan's token count)
//   floors     the same cases' work done by stock libraries alone (scripts/bench/floor-servers.ts):
//              each goal is printed beside the ratio its floor reaches against the same ceiling
// Every server is started once and warmed up; then the scenarios take turns in short slices
// (BENCH_SECONDS, 2 s each), each twice per round in mirrored order (A B C … C B A), over
// BENCH_ROUNDS rounds (5). A ratio is taken within each round and its median over the rounds is
// reported: on a shared host whose speed drifts by a factor of two within minutes, a ratio of two
// medians measured a minute apart said more about the drift than about the code.
// Each slice starts after a VACUUM and a CHECKPOINT, so none is measured while the database
// vacuums or writes out what an earlier one (the write load) left behind.
// Ratios against the ceilings and the MCP/REST ratio are written, with the raw numbers, to
// scripts/bench/results/pipeline-ceilings.json. Needs PostgreSQL and Redis:
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench:ceilings
// Each result carries a profile summary: where the server's CPU went while it was measured
// (scripts/bench/profile-summary.ts: BENCH_PROFILE_DIR keeps the profiles, BENCH_PROFILE=0 turns it
// off). BENCH_ONLY=<label parts> runs some scenarios only (nothing written); BENCH_NODE_ARGS="<flags>"
// starts every server with these Node or V8 flags. Machine-dependent: recorded, never asserted.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import knex from "knex";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";
import {
  answersSuccessfully,
  CLOCK_TICKS,
  CONNECTIONS,
  cpuTicks,
  currentTeamToolCall,
  hasWrk,
  machineTicks,
  measure,
  serviceTicks,
  serviceTicksBetween,
  startServer,
  stop,
  type Load,
  type Started,
  type WrkResult,
  undoIfInterrupted,
} from "./load-harness.ts";
import { dropProfiles, nowUs, summarizeProfile, type ProfileSummary } from "./profile-summary.ts";

/** Seconds of one slice (a scenario has two per round). */
const SLICE = Number(process.env.BENCH_SECONDS ?? 2);
/** Rounds over every scenario; medians are reported (a shared VM is noisy). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Once per server after it starts (JIT, pools, caches), and briefly before each slice (after it sat idle). */
const WARMUP_SECONDS = 2;
const SLICE_WARMUP_SECONDS = 1;
/** How far the host's speed may move between rounds before a run's figures are refused. */
const MAX_DRIFT = Number(process.env.BENCH_MAX_DRIFT ?? 2);
/** Teams the spread write load takes turns over. */
const TEAMS = 16;
/** BENCH_ONLY=mcp,teams: only the scenarios whose label contains one of these (the results file is left alone). */
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",").map((s) => s.trim().toLowerCase()) : null;

interface Measured extends WrkResult {
  /** Server CPU (user + system) per request, from /proc: steadier than throughput on a shared host. */
  cpu_us_per_request: number;
  /**
   * The whole machine's CPU per request (server, PostgreSQL, Redis, wrk and anything else): where a
   * request's database work goes, which the server's own figure leaves out.
   */
  machine_cpu_us_per_request: number;
  /** PostgreSQL's and Redis's CPU per request (every process of theirs on the machine). */
  services_cpu_us_per_request: number;
  /**
   * Transactions that wrote, per request: transaction ids PostgreSQL assigned while measuring (read
   * at once, unlike pg_stat_database's commit count, which idle backends report up to 10 s late and
   * so charged one slice with another's commits). A commit group counts once.
   */
  write_transactions_per_request: number;
  /** Share of the machine's CPU time left idle while measuring. */
  machine_idle: number;
}

/** One slice's raw counts (measureSlice). */
interface Slice {
  run: WrkResult;
  /** When it was measured, on the profiler's clock (profile-summary.ts). */
  window: [number, number];
  requests: number;
  serverTicks: number;
  services: number;
  busy: number;
  idle: number;
  wrote: number;
}

/** A scenario's slices of one round, as one measurement. */
function combine(slices: readonly Slice[]): Measured {
  const sum = (of: (s: Slice) => number) => slices.reduce((n, s) => n + of(s), 0);
  const mean = (of: (s: Slice) => number) => Math.round((100 * sum(of)) / slices.length) / 100;
  const requests = sum((s) => s.requests);
  const busy = sum((s) => s.busy);
  const idle = sum((s) => s.idle);
  const perRequest = (ticks: number) => Math.round((ticks * (1e6 / CLOCK_TICKS)) / requests);
  return {
    requests_per_second: Math.round(requests / (SLICE * slices.length)),
    latency_ms: { p50: mean((s) => s.run.latency_ms.p50), p99: mean((s) => s.run.latency_ms.p99) },
    non_2xx: sum((s) => s.run.non_2xx),
    errors: sum((s) => s.run.errors),
    cpu_us_per_request: perRequest(sum((s) => s.serverTicks)),
    machine_cpu_us_per_request: perRequest(busy),
    services_cpu_us_per_request: perRequest(sum((s) => s.services)),
    write_transactions_per_request: Math.round((1000 * sum((s) => s.wrote)) / requests) / 1000,
    machine_idle: Math.round((1000 * idle) / (busy + idle)) / 1000,
  };
}

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error("set BENCH_DATABASE_URL and BENCH_REDIS_URL (the ceilings are measured on PostgreSQL and Redis)");
  const name = `subbridge_bench_${randomBytes(4).toString("hex")}`;
  const admin = knex({ client: "pg", connection: databaseUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  undoIfInterrupted(() => admin.raw(`DROP DATABASE ${name} WITH (FORCE)`));
  undoIfInterrupted(dropProfiles);
  const dbUrl = new URL(databaseUrl);
  dbUrl.pathname = `/${name}`;
  const db = openDatabase({ url: dbUrl.toString() });
  const samples: Record<string, Measured[]> = {};
  const measuredSlices: Record<string, Slice[]> = {};
  const profiles: Record<string, ProfileSummary | null> = {};
  /** The next transaction id PostgreSQL will assign (reading it assigns none). */
  const nextXid = async () => Number((await admin.raw("select pg_snapshot_xmax(pg_current_snapshot())::text as xid")).rows[0].xid);
  try {
    await migrate(db);
    const email = `bench-${randomBytes(4).toString("hex")}@example.test`;
    /** The floors' principals, by the SHA-256 of the Authorization header (floor-servers.ts). */
    const principals: Record<string, { teamId: string; userId: string }> = {};
    const creator = async (email: string) => {
      const account = await createCreatorAccount(db, { email, password: "benchmark password", tier: "growth" }, new Date());
      const authorization = `Bearer ${(await mintTokenForCreator(db, { email, abilities: "all" }, new Date())).token}`;
      principals[createHash("sha256").update(authorization).digest("hex")] = { teamId: account.team_id, userId: account.user_id };
      return authorization;
    };
    const auth = { authorization: await creator(email) };
    // Writes mint tokens: a creator of their own, so the token list keeps its size across rounds.
    const writer = { authorization: await creator(`bench-writer-${randomBytes(4).toString("hex")}@example.test`) };
    // Sixteen more, for the write spread over teams: one team's writes serialise on its row.
    const writers: string[] = [];
    for (let i = 0; i < TEAMS; i++) writers.push(await creator(`bench-team-${i}-${randomBytes(4).toString("hex")}@example.test`));
    const env = {
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `bench${randomBytes(3).toString("hex")}`,
      APP_KEY: randomBytes(32).toString("base64"),
      FLOOR_PRINCIPALS: JSON.stringify(principals),
    };
    const mcpCall = currentTeamToolCall(auth.authorization);
    const mcpLoad: Load = { method: "POST", path: "/", body: mcpCall.body, headers: mcpCall.headers };
    const spreadWrite: Load = {
      method: "POST",
      path: "/v1/tokens",
      headers: { "content-type": "application/json" },
      authorizations: writers,
      body: JSON.stringify({ name: "bench", abilities: ["team:view"] }),
      uniqueKey: true,
    };
    const plan: [string, string, Load][] = [
      ["bare Koa", "bare", { method: "GET", path: "/" }],
      ["Koa + select 1", "select1", { method: "GET", path: "/" }],
      ["Koa + EVALSHA + select 1", "select1-redis", { method: "GET", path: "/" }],
      ["Koa + knex transaction, 1 insert", "write1", { method: "POST", path: "/" }],
      ["Koa + knex transaction, 4 inserts", "write4", { method: "POST", path: "/" }],
      ["GET /v1/teams/current", "api", { method: "GET", path: "/v1/teams/current", headers: auth }],
      ["MCP tools/call get_current_team", "mcp", mcpLoad],
      ["GET /v1/tokens?per_page=25", "api", { method: "GET", path: "/v1/tokens?per_page=25", headers: auth }],
      [`POST /v1/tokens (idempotent write, ${TEAMS} teams)`, "api", spreadWrite],
      [
        "POST /v1/tokens (idempotent write, one team)",
        "api",
        {
          method: "POST",
          path: "/v1/tokens",
          headers: { ...writer, "content-type": "application/json" },
          body: JSON.stringify({ name: "bench", abilities: ["team:view"] }),
          uniqueKey: true,
        },
      ],
      ["floor: read", "floor-read", { method: "GET", path: "/v1/teams/current", headers: auth }],
      ["floor: MCP tools/call", "floor-mcp", mcpLoad],
      ["floor: token list", "floor-list", { method: "GET", path: "/v1/tokens?per_page=25", headers: auth }],
      [`floor: idempotent write (${TEAMS} teams)`, "floor-write", spreadWrite],
      [`floor: idempotent write in one statement (${TEAMS} teams)`, "floor-write-one", spreadWrite],
    ];
    /** One slice of a load: what the client saw and what it cost, in raw counts. */
    const measureSlice = async (server: Started, load: Load): Promise<Slice> => {
      // Every slice starts on a quiet database: what an earlier one left behind (a write load's
      // new rows, which autovacuum would visit, its dirty pages and WAL) is vacuumed and written
      // now, not during the next one's measurement.
      await db.raw("VACUUM (ANALYZE)").catch(() => undefined);
      await admin.raw("CHECKPOINT").catch(() => undefined);
      await measure(server.url, load, SLICE_WARMUP_SECONDS); // back to work after sitting idle
      const cpuBefore = cpuTicks(server.child.pid!);
      const machineBefore = machineTicks();
      const servicesBefore = serviceTicks();
      const xidBefore = await nextXid();
      const from = nowUs();
      const run = await measure(server.url, load, SLICE);
      const window: [number, number] = [from, nowUs()];
      const serverTicks = cpuTicks(server.child.pid!) - cpuBefore;
      const services = serviceTicksBetween(servicesBefore, serviceTicks());
      const machineAfter = machineTicks();
      const wrote = (await nextXid()) - xidBefore;
      return {
        run,
        window,
        requests: run.requests_per_second * SLICE,
        serverTicks,
        services,
        busy: machineAfter.busy - machineBefore.busy,
        idle: machineAfter.idle - machineBefore.idle,
        wrote,
      };
    };
    const scenarios = plan.filter(([label]) => !ONLY || ONLY.some((part) => label.toLowerCase().includes(part)));
    // Every server is started and warmed up before any slice is measured; one whose load does not
    // succeed stops the run.
    const servers = new Map<string, Started>();
    try {
      for (const [label, target, load] of scenarios) {
        const server = await startServer(target, env);
        servers.set(label, server);
        await answersSuccessfully(server.url, load, label);
        await measure(server.url, load, WARMUP_SECONDS); // JIT, pools, caches
      }
      for (let round = 1; round <= ROUNDS; round++) {
        // Each scenario twice per round, in mirrored order (A B C … C B A): a drift of the host's
        // speed that runs through the round touches every scenario alike.
        const order = round % 2 ? scenarios : [...scenarios].reverse();
        const slices = new Map<string, Slice[]>();
        for (const [label, , load] of [...order, ...[...order].reverse()]) {
          const slice = await measureSlice(servers.get(label)!, load);
          (measuredSlices[label] ??= []).push(slice);
          (slices.get(label) ?? slices.set(label, []).get(label)!).push(slice);
        }
        for (const [label] of scenarios) {
          const measured = combine(slices.get(label)!);
          (samples[label] ??= []).push(measured);
          console.log(`round ${round}`, label, JSON.stringify(measured));
        }
      }
    } finally {
      for (const server of servers.values()) await stop(server);
    }
    // Each server's profile is written as it stops: where its CPU went in its measured slices.
    for (const [label, server] of servers) {
      profiles[label] = summarizeProfile(
        server.child.pid!,
        (measuredSlices[label] ?? []).map((slice) => slice.window),
      );
    }
    dropProfiles();
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
        write_transactions_per_request: median(runs.map((r) => r.write_transactions_per_request)),
        machine_idle: median(runs.map((r) => r.machine_idle)),
        p50_ms: median(runs.map((r) => r.latency_ms.p50)),
        p99_ms: median(runs.map((r) => r.latency_ms.p99)),
        rounds: runs.map((r) => r.requests_per_second),
        non_2xx: runs.reduce((n, r) => n + r.non_2xx, 0),
        errors: runs.reduce((n, r) => n + r.errors, 0),
        profile: profiles[label] ?? null,
      },
    ]),
  );
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  /**
   * numerator / denominator within each round (slices measured seconds apart, so a drift of the
   * host's speed touches both alike), and the median over the rounds. Null when either scenario
   * was left out (BENCH_ONLY).
   */
  const paired = (numerator: string, denominator: string, of: (m: Measured) => number) => {
    const a = samples[numerator];
    const b = samples[denominator];
    if (!a || !b) return null;
    const rounds = a.map((m, i) => round3(of(m) / of(b[i]!)));
    return { median: median(rounds), rounds };
  };
  const rps = (m: Measured) => m.requests_per_second;
  const cpu = (m: Measured) => m.cpu_us_per_request;
  const floorWrite = `floor: idempotent write (${TEAMS} teams)`;
  // [name, pipeline, ceiling, goal, floor]: the goals of issue 48, each with the pair measuring its
  // stock floor (the same ratio reached by stock libraries doing the case's work).
  const pairs: [string, string, string, number | null, string?][] = [
    ["authenticated GET / one-query ceiling", "GET /v1/teams/current", "Koa + select 1", 0.5, "floor: read / one-query ceiling"],
    ["MCP tools/call / its REST twin", "MCP tools/call get_current_team", "GET /v1/teams/current", 0.7, "floor: MCP / floor: read"],
    ["token list / one-query ceiling", "GET /v1/tokens?per_page=25", "Koa + select 1", 0.3, "floor: token list / one-query ceiling"],
    [
      `idempotent write (${TEAMS} teams) / 1-insert write ceiling`,
      `POST /v1/tokens (idempotent write, ${TEAMS} teams)`,
      "Koa + knex transaction, 1 insert",
      0.5,
      "floor: write in one statement / 1-insert write ceiling",
    ],
    [
      "idempotent write (one team) / 1-insert write ceiling",
      "POST /v1/tokens (idempotent write, one team)",
      "Koa + knex transaction, 1 insert",
      null,
    ],
    ["4-insert / 1-insert write ceiling", "Koa + knex transaction, 4 inserts", "Koa + knex transaction, 1 insert", null],
    ["1-insert write ceiling / one-query ceiling", "Koa + knex transaction, 1 insert", "Koa + select 1", null],
    ["one-query ceiling / bare Koa", "Koa + select 1", "bare Koa", null],
    ["Redis-admitted floor (one EVALSHA + one query) / one-query ceiling", "Koa + EVALSHA + select 1", "Koa + select 1", null],
    ["floor: read / one-query ceiling", "floor: read", "Koa + select 1", null],
    ["floor: MCP / floor: read", "floor: MCP tools/call", "floor: read", null],
    ["floor: token list / one-query ceiling", "floor: token list", "Koa + select 1", null],
    ["floor: write / 1-insert write ceiling", floorWrite, "Koa + knex transaction, 1 insert", null],
    [
      "floor: write in one statement / 1-insert write ceiling",
      `floor: idempotent write in one statement (${TEAMS} teams)`,
      "Koa + knex transaction, 1 insert",
      null,
    ],
    ["GET / floor: read", "GET /v1/teams/current", "floor: read", null],
    ["MCP tools/call / floor: MCP", "MCP tools/call get_current_team", "floor: MCP tools/call", null],
    ["token list / floor: token list", "GET /v1/tokens?per_page=25", "floor: token list", null],
    [`idempotent write (${TEAMS} teams) / its floor`, `POST /v1/tokens (idempotent write, ${TEAMS} teams)`, floorWrite, null],
  ];
  const ratios = Object.fromEntries(pairs.map(([name, pipeline, ceiling]) => [name, paired(pipeline, ceiling, rps)] as const));
  // The same goals in server CPU per request (ceiling's cost / pipeline's cost): on a shared host
  // this moves less between runs than throughput does.
  const cpuRatios = Object.fromEntries(pairs.map(([name, pipeline, ceiling]) => [name, paired(ceiling, pipeline, cpu)] as const));
  const medians = (all: Record<string, { median: number } | null>) =>
    Object.fromEntries(Object.entries(all).flatMap(([name, r]) => (r ? [[name, r.median]] : [])));
  // Each goal beside its figures: the ratio (throughput, and server CPU per request), its stock
  // floor's, the scenario's own requests/s and p99, and the ceiling's.
  const summary = pairs.flatMap(([name, pipeline, ceiling, goal, floor]) => {
    const a = results[pipeline];
    const b = results[ceiling];
    if (!a || !b) return [];
    return [
      {
        ratio: name,
        goal,
        throughput: ratios[name]?.median ?? null,
        server_cpu: cpuRatios[name]?.median ?? null,
        floor: floor ? (ratios[floor]?.median ?? null) : null,
        met: goal === null ? null : (ratios[name]?.median ?? 0) >= goal,
        requests_per_second: a.requests_per_second,
        p99_ms: a.p99_ms,
        ceiling_requests_per_second: b.requests_per_second,
        ceiling_p99_ms: b.p99_ms,
      },
    ];
  });
  console.table(summary);
  for (const [label, profile] of Object.entries(profiles)) {
    if (!profile) continue;
    const top = Object.entries(profile.percent_by_area)
      .slice(0, 7)
      .map(([area, share]) => `${area} ${share} %`);
    console.log(`profile of ${label} (${profile.samples} samples): ${top.join(", ")}, …`);
  }
  // A failed answer is counted as a request served: a scenario with any has figures that mean nothing.
  const failing = Object.entries(results).filter(([, r]) => r.non_2xx > 0 || r.errors > 0);
  if (failing.length) {
    throw new Error(
      `answers that were not 2xx, or failed requests: ${failing.map(([label, r]) => `${label} (${r.non_2xx}, ${r.errors})`).join("; ")}`,
    );
  }
  // A host whose speed moved more than BENCH_MAX_DRIFT-fold between rounds (the one-query ceiling's
  // throughput, read each round) gives ratios of nothing: one run on 2026-11-30 read 97 to 1,807
  // requests/s and put a floor above its ceiling.
  const ceilingRounds = results["Koa + select 1"]?.rounds ?? [];
  const drift = ceilingRounds.length > 1 ? Math.max(...ceilingRounds) / Math.min(...ceilingRounds) : 1;
  if (drift > MAX_DRIFT) {
    throw new Error(
      `the host's speed moved ${drift.toFixed(1)}-fold between rounds (the one-query ceiling read ${ceilingRounds.join(", ")} requests/s): no figures written`,
    );
  }
  if (ONLY) return console.log("BENCH_ONLY: a partial run; scripts/bench/results/pipeline-ceilings.json is left as it was");
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
        slice_seconds: SLICE,
        slices_per_scenario_and_round: 2,
        rounds: ROUNDS,
        statistic:
          "ratios: within each round (each scenario measured twice, in mirrored order), then the median over the rounds; results: each scenario's median over the rounds",
        connections: CONNECTIONS,
        summary,
        ratios: { throughput: medians(ratios), server_cpu_per_request: medians(cpuRatios) },
        ratios_per_round: { throughput: ratios, server_cpu_per_request: cpuRatios },
        profile:
          "each result's profile: the server main thread's busy samples in its measured slices (V8's sampling profiler), in percent by the area of the running frame; times cpu_us_per_request for µs (scripts/bench/profile-summary.ts)",
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
