// Webhook delivery throughput of one worker, and the lateness of scheduled retries.
//   BENCH_DATABASE_URL=postgres://… npm run bench:webhooks      PostgreSQL (the target: 1,000/s)
//   npm run bench:webhooks                                      embedded PGlite in memory
// One worker (startDeliveryWorker, as npm start runs it) drains BENCH_DELIVERIES queued deliveries
// to a local HTTPS receiver in another process (certificate of the test CA, which the npm script
// trusts through NODE_EXTRA_CA_CERTS); then BENCH_RETRIES retries are scheduled over the next
// 10 seconds and the receiver notes how late each arrives after it was due (p50, p99); last, one team
// fills its in-flight cap with slow deliveries (answered after BENCH_SLOW_MS) to the origin every
// team uses, and the receiver notes how long another team's single delivery there took (BENCH_ROUNDS
// rounds). Writes scripts/bench/results/webhook-deliveries-<backend>.json; numbers are recorded, never asserted.
import pino from "pino";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createDomainContext, systemActor, type DomainContext } from "../../src/db/tenant.ts";
import { createCreator } from "../../src/modules/account/creators.ts";
import { createEndpoint } from "../../src/modules/webhooks/endpoints.ts";
import { DEFAULT_WEBHOOK_LIMITS } from "../../src/modules/webhooks/limits.ts";
import { DEFAULT_IDLE_POLL_MS, startDeliveryWorker } from "../../src/workers/deliveries/worker.ts";
import { percentile, queueDeliveries, type DeliveryTarget, startReceiver } from "./queued-deliveries.ts";
import { machine, writeResults } from "./results-file.ts";

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const RETRIES = Number(process.env.BENCH_RETRIES ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const TEAMS = Number(process.env.BENCH_TEAMS ?? 4);
const ENDPOINTS_PER_TEAM = Number(process.env.BENCH_ENDPOINTS_PER_TEAM ?? 2);
const SINGLE_ENDPOINT_DELIVERIES = Number(process.env.BENCH_SINGLE_ENDPOINT_DELIVERIES ?? 5_000);
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const appKey = Buffer.alloc(32, 9);
const network = { allowedCidrs: ["127.0.0.0/8"], allowHttp: false, timeoutMs: 10_000 };

/** The receiver: answers 200 at once (under /slow/ after SLOW_MS); on "report" (stdin) prints when each event id arrived. */
const RECEIVER = `
const https = require("node:https"), fs = require("node:fs");
const arrived = new Map();
const server = https.createServer({ key: fs.readFileSync("test/fixtures/tls/receiver.key"), cert: fs.readFileSync("test/fixtures/tls/receiver.pem") }, (req, res) => {
  req.resume();
  req.on("end", () => {
    arrived.set(req.headers["sb-event-id"], Date.now());
    if (req.url.startsWith("/slow/")) setTimeout(() => res.writeHead(200).end("ok"), ${SLOW_MS});
    else res.writeHead(200).end("ok");
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.stdin.on("data", () => console.log(JSON.stringify({ arrived: Object.fromEntries(arrived) })));
`;

async function main() {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? null;
  const backend = serverUrl ? "postgres" : "embedded";
  // On PostgreSQL: a database of its own, dropped at the end (the one named is left untouched).
  const admin = serverUrl ? openDatabase({ url: serverUrl }) : null;
  const name = `subbridge_bench_webhooks_${process.pid}`;
  let url: string | null = null;
  if (admin && serverUrl) {
    await admin.raw(`create database ${name}`);
    url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).href;
  }
  const db = openDatabase({ url });
  await migrate(db);
  const receiver = startReceiver<Record<string, number>>(RECEIVER);
  const port = await receiver.port;
  // Several teams with several endpoints each, as a shared deployment has: fair claiming caps what
  // one endpoint (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT) and one team (…_PER_TEAM) hold in flight.
  const targets: DeliveryTarget[] = [];
  const endpointAt = async (ctx: DomainContext, name: string, path: string) =>
    (
      await createEndpoint(
        ctx,
        { appKey, network, abilities: new Set() },
        { name, url: `https://${process.env.BENCH_HOST ?? "localhost"}:${port}${path}`, events: ["bench.*"] as never[] },
      )
    ).data.id;
  const contexts: DomainContext[] = [];
  for (let t = 0; t < TEAMS; t++) {
    const { userId, teamId } = await createCreator(
      db,
      { email: `bench-${t}-${Date.now()}@example.com`, password: "correct horse battery", tier: "growth" },
      new Date(),
    );
    const ctx = createDomainContext(db, { ...systemActor(teamId), userId, kind: "api_token" }, new Date());
    contexts.push(ctx);
    for (let e = 0; e < ENDPOINTS_PER_TEAM; e++) targets.push({ teamId, endpointId: await endpointAt(ctx, `bench ${e}`, `/hook/${t}/${e}`) });
  }
  const logger = pino({ level: "warn" });
  const workerOptions = { db, appKey, network, release: "bench", logger, messageSignature: () => ({}), concurrency: CONCURRENCY };
  const delivered = async () => Number((await db("webhook_deliveries").where({ status: "delivered" }).count({ n: "*" }))[0]!.n);
  const drain = async (phase: number, to: DeliveryTarget[], n: number) => {
    const before = await delivered();
    await queueDeliveries(db, to, `evt_01BENCH${phase}`, n, () => new Date(Date.now() - 1000), 0);
    const started = performance.now();
    while ((await delivered()) < before + n) await new Promise((r) => setTimeout(r, 100));
    const seconds = (performance.now() - started) / 1000;
    return { deliveries: n, seconds: Math.round(seconds * 100) / 100, per_second: Math.round(n / seconds) };
  };

  // Throughput: a full queue spread over every team's endpoints, drained by one worker; then one endpoint alone.
  const worker = startDeliveryWorker(workerOptions);
  const spread = await drain(0, targets, DELIVERIES);
  console.log(
    `throughput: ${DELIVERIES} deliveries to ${targets.length} endpoints of ${TEAMS} teams = ${spread.per_second}/s (concurrency ${CONCURRENCY})`,
  );
  const single = await drain(2, [targets[0]!], SINGLE_ENDPOINT_DELIVERIES);
  console.log(
    `one endpoint: ${SINGLE_ENDPOINT_DELIVERIES} deliveries = ${single.per_second}/s (its in-flight cap ${DEFAULT_WEBHOOK_LIMITS.inFlightPerEndpoint})`,
  );

  // Lateness: retries due over the next 10 seconds, measured at the receiver.
  const base = Date.now() + 1000;
  const dueAt = (i: number) => base + Math.floor((i * 10_000) / RETRIES);
  const beforeRetries = await delivered();
  await queueDeliveries(db, targets, "evt_01BENCH1", RETRIES, (i) => new Date(dueAt(i)), 1);
  while ((await delivered()) < beforeRetries + RETRIES) await new Promise((r) => setTimeout(r, 200));

  // A shared origin: team 0 fills its in-flight cap with slow deliveries to the origin every team
  // uses; then team 1's single delivery there, timed from when it was queued to its arrival.
  const { inFlightPerEndpoint, inFlightPerTeam } = DEFAULT_WEBHOOK_LIMITS;
  const slow: DeliveryTarget[] = [];
  for (let e = 0; e < Math.ceil(inFlightPerTeam / inFlightPerEndpoint); e++)
    slow.push({ teamId: contexts[0]!.actor.teamId, endpointId: await endpointAt(contexts[0]!, `slow ${e}`, `/slow/0/${e}`) });
  const quiet = targets.find((t) => t.teamId !== slow[0]!.teamId)!;
  const queuedAt: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = await delivered();
    await queueDeliveries(db, slow, `evt_01BENCH${30 + r}`, inFlightPerTeam, () => new Date(Date.now() - 1000), 0);
    const leased = () =>
      db("webhook_deliveries")
        .whereIn(
          "endpoint_id",
          slow.map((t) => t.endpointId),
        )
        .whereNotNull("claim_id")
        .count({ n: "*" });
    while (Number((await leased())[0]!.n) < inFlightPerTeam) await new Promise((r) => setTimeout(r, 20));
    queuedAt.push(Date.now());
    await queueDeliveries(db, [quiet], `evt_01BENCH${40 + r}`, 1, () => new Date(Date.now() - 1000), 0);
    while ((await delivered()) < before + inFlightPerTeam + 1) await new Promise((r) => setTimeout(r, 100));
  }
  await worker.stop();
  const arrivals = await receiver.arrivals();
  const sharedOrigin = queuedAt.map((at, r) => arrivals[`01BENCH${40 + r}${"0".repeat(17)}`]! - at).sort((a, b) => a - b);
  console.log(`shared origin: team 1's delivery took ${sharedOrigin.join(", ")} ms while team 0's ${inFlightPerTeam} slow requests hung`);
  const lateness = Array.from({ length: RETRIES }, (_, i) => {
    const id = `01BENCH1${String(i).padStart(26 - 12 + 4, "0")}`;
    return arrivals[id]! - dueAt(i);
  }).sort((a, b) => a - b);
  const report = {
    $comment: "generated by scripts/bench/webhook-deliveries.ts; machine-dependent, recorded not asserted",
    date: new Date().toISOString(),
    backend,
    machine: machine(),
    throughput: {
      ...spread,
      teams: TEAMS,
      endpoints: targets.length,
      concurrency: CONCURRENCY,
      target_per_second: 1000,
    },
    one_endpoint: { ...single, in_flight_cap: DEFAULT_WEBHOOK_LIMITS.inFlightPerEndpoint },
    retry_lateness_ms: {
      retries: RETRIES,
      spread_seconds: 10,
      idle_poll_ms: DEFAULT_IDLE_POLL_MS,
      p50: percentile(lateness, 50),
      p99: percentile(lateness, 99),
      max: lateness.at(-1),
    },
    shared_origin_ms: {
      rounds: ROUNDS,
      slow_in_flight: inFlightPerTeam,
      slow_answer_ms: SLOW_MS,
      p50: percentile(sharedOrigin, 50),
      max: sharedOrigin.at(-1),
    },
  };
  console.log(JSON.stringify(report, null, 2));
  writeResults(`webhook-deliveries-${backend}`, report);
  receiver.child.kill();
  await db.destroy();
  if (admin) {
    await admin.raw(`drop database ${name}`);
    await admin.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
