// Capacity of a scaled-out deployment on this machine: BENCH_APIS `npm start` processes with ROLE=api
// and BENCH_WORKERS with ROLE=worker on one PostgreSQL and one Redis.
//   BENCH_DATABASE_URL=postgres://… BENCH_REDIS_URL=redis://… npm run bench:capacity
// Phase 1 (requests): autocannon sends GET /v1/teams/current (authenticated, rate-limited, tenant-
// scoped: the pipeline's full path) to every api process for BENCH_SECONDS, tokens rotated so no
// token's budget (300 a minute) is spent. Phase 2 (deliveries): BENCH_EVENTS events with one
// delivery each are queued over several teams' endpoints, the worker processes start, and the
// receiver (a process of its own) notes when each arrives. Writes scripts/bench/results/capacity.json
// and capacity.md; numbers are recorded, never asserted.
import { spawn, type ChildProcess } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import autocannon from "autocannon";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { createCreator } from "../../src/modules/account/creators.ts";
import { createEndpoint } from "../../src/modules/webhooks/endpoints.ts";
import { mintTokenForCreator } from "../../src/operator.ts";
import { percentile, queueDeliveries, startReceiver } from "./queued-deliveries.ts";

const APIS = Number(process.env.BENCH_APIS ?? 2);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 6_000);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 150);
const TEAMS = 4;
const ENDPOINTS_PER_TEAM = 2;
const ROOT = new URL("../../", import.meta.url).pathname;
const APP_KEY = Buffer.alloc(32, 7).toString("hex");

const RECEIVER = `
const http = require("node:http");
const arrived = [];
const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { arrived.push(Date.now()); res.writeHead(200).end("ok"); }); });
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.stdin.on("data", () => console.log(JSON.stringify({ arrived })));
`;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `npm start` in `role`, resolved once its banner is printed. */
function startRole(role: "api" | "worker", env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["start"], {
      cwd: ROOT,
      env: { ...process.env, ROLE: role, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    const onData = (d: Buffer) => {
      out += d;
      if (/Need a token\?/.test(out)) resolve(child);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("close", (code) => reject(new Error(`${role} exited with ${code}:\n${out}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("close", () => resolve());
    process.kill(-child.pid!, "SIGTERM");
  });

async function main() {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!serverUrl || !redisUrl) throw new Error("bench:capacity needs PostgreSQL and Redis: set BENCH_DATABASE_URL and BENCH_REDIS_URL");
  const admin = openDatabase({ url: serverUrl });
  const name = `subbridge_bench_capacity_${process.pid}`;
  await admin.raw(`create database ${name}`);
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).href;
  const db = openDatabase({ url });
  const children: ChildProcess[] = [];
  const receiver = startReceiver<number[]>(RECEIVER);
  try {
    await migrate(db);
    const now = new Date();
    const owner = await createCreator(db, { email: "capacity@example.test", password: "correct horse battery", tier: "growth" }, now);
    const tokens: string[] = [];
    for (let i = 0; i < TOKENS; i++) tokens.push((await mintTokenForCreator(db, { email: "capacity@example.test", abilities: "all" }, now)).token);
    const port = await receiver.port;
    const network = { allowedCidrs: ["127.0.0.0/8"], allowHttp: true, timeoutMs: 10_000 };
    const endpoints: { teamId: string; endpointId: string }[] = [];
    for (let t = 0; t < TEAMS; t++) {
      const team =
        t === 0 ? owner : await createCreator(db, { email: `capacity${t}@example.test`, password: "correct horse battery", tier: "growth" }, now);
      const ctx = createDomainContext(db, { ...systemActor(team.teamId), userId: team.userId, kind: "api_token" }, now);
      for (let e = 0; e < ENDPOINTS_PER_TEAM; e++) {
        const env = { appKey: Buffer.from(APP_KEY, "hex"), network, abilities: new Set<string>() };
        const created = await createEndpoint(ctx, env, {
          name: `e${e}`,
          url: `http://127.0.0.1:${port}/t${t}/e${e}`,
          events: ["bench.*"] as never[],
        });
        endpoints.push({ teamId: team.teamId, endpointId: created.data.id });
      }
    }
    const env = {
      DATABASE_URL: url,
      REDIS_URL: redisUrl,
      APP_KEY,
      WEBHOOK_ALLOW_HTTP: "on",
      WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
    };

    // Phase 1: requests through every api process.
    const apiPorts = await Promise.all(Array.from({ length: APIS }, () => freePort()));
    children.push(...(await Promise.all(apiPorts.map((p) => startRole("api", { ...env, SURFACES: "api", API_PORT: String(p) })))));
    let turn = 0;
    const runs = await Promise.all(
      apiPorts.map((p) =>
        autocannon({
          url: `http://127.0.0.1:${p}/v1/teams/current`,
          connections: CONNECTIONS,
          duration: SECONDS,
          requests: [
            {
              method: "GET",
              setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[turn++ % tokens.length]}` } }),
            },
          ],
        }),
      ),
    );
    const requests = {
      total_per_second: Math.round(runs.reduce((sum, r) => sum + r.requests.average, 0)),
      per_process_per_second: runs.map((r) => Math.round(r.requests.average)),
      latency_ms: { p50: Math.max(...runs.map((r) => r.latency.p50)), p99: Math.max(...runs.map((r) => r.latency.p99)) },
      non_2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: runs.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    };
    console.log("requests", requests);

    // Phase 2: deliveries by the worker processes, queued before they start.
    const queuedAt = new Date();
    await queueDeliveries(db, endpoints, "evt_01CAPACITY", EVENTS, () => queuedAt);
    children.push(...(await Promise.all(Array.from({ length: WORKERS }, () => startRole("worker", env)))));
    const deadline = Date.now() + 120_000;
    const delivered = async () => Number((await db("webhook_deliveries").where({ status: "delivered" }).count({ n: "*" }))[0]!.n);
    while ((await delivered()) < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const arrived = (await receiver.arrivals()).sort((a, b) => a - b);
    const spanMs = arrived.length > 1 ? arrived[arrived.length - 1]! - arrived[0]! : 0;
    // The steady rate: the middle 80% of the arrivals, without the workers' start and the last stragglers.
    const low = percentile(arrived, 10);
    const high = percentile(arrived, 90);
    const deliveries = {
      events: EVENTS,
      delivered: await delivered(),
      posts: arrived.length,
      span_ms: spanMs,
      per_second: spanMs ? Math.round(((arrived.length - 1) * 1000) / spanMs) : 0,
      steady_per_second: high > low ? Math.round((0.8 * arrived.length * 1000) / (high - low)) : 0,
    };
    console.log("deliveries", deliveries);

    const result = {
      measured_at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30) },
      processes: { api: APIS, worker: WORKERS },
      load: { seconds: SECONDS, connections_per_api: CONNECTIONS, tokens: TOKENS, route: "GET /v1/teams/current" },
      requests,
      deliveries,
      command: `BENCH_DATABASE_URL=… BENCH_REDIS_URL=… BENCH_APIS=${APIS} BENCH_WORKERS=${WORKERS} npm run bench:capacity`,
    };
    mkdirSync(new URL("results/", import.meta.url), { recursive: true });
    writeFileSync(new URL("results/capacity.json", import.meta.url), JSON.stringify(result, null, 2) + "\n");
    writeFileSync(
      new URL("results/capacity.md", import.meta.url),
      [
        `# Capacity (${result.measured_at})`,
        "",
        `${APIS} api + ${WORKERS} worker processes (npm start, ROLE), one PostgreSQL and one Redis, ${result.machine.cpus} CPUs (${result.machine.cpu}), shared with the load generator.`,
        "",
        `- Requests (${result.load.route}, ${SECONDS} s, ${CONNECTIONS} connections per api): ${requests.total_per_second}/s in total (${requests.per_process_per_second.join(" + ")}), p50 ${requests.latency_ms.p50} ms, p99 ${requests.latency_ms.p99} ms, ${requests.non_2xx} non-2xx, ${requests.errors} errors.`,
        `- Deliveries (${EVENTS} queued, ${TEAMS} teams x ${ENDPOINTS_PER_TEAM} endpoints): ${deliveries.delivered} delivered, ${deliveries.per_second}/s over the whole span, ${deliveries.steady_per_second}/s steady.`,
        "",
        `Command: \`${result.command}\``,
        "",
      ].join("\n"),
    );
  } finally {
    await Promise.all(children.map(stop));
    receiver.child.kill();
    await db.destroy();
    await admin.raw(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.destroy();
  }
}

await main();
