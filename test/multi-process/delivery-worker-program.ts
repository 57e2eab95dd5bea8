// A delivery worker process for the chaos test: the worker npm start runs (startDeliveryWorker), on
// DATABASE_URL, with its clock sped up CHAOS_SPEED times from CHAOS_EPOCH (the same in every worker,
// so they agree on what is due and when a lease runs out) so the retry ladder's seconds pass in
// milliseconds. Loopback is exempt, as WEBHOOK_ALLOWED_CIDRS=127.0.0.0/8 makes it for development.
// CHAOS_TIMEOUT_MS and CHAOS_LEASE_MS (real milliseconds) override the request time-out and the
// lease; the WEBHOOK_MAX_* variables set the caps as they do for npm start.
import pino from "pino";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/database.ts";
import { startDeliveryWorker } from "../../src/workers/deliveries/worker.ts";

const env = process.env;
const epoch = Number(env.CHAOS_EPOCH);
const speed = Number(env.CHAOS_SPEED);
const caps = loadConfig({
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
  WEBHOOK_MAX_IN_FLIGHT_PER_TEAM: env.WEBHOOK_MAX_IN_FLIGHT_PER_TEAM,
}).webhooks.limits;
const db = openDatabase({ url: env.DATABASE_URL! });
const worker = startDeliveryWorker({
  db,
  appKey: Buffer.from(env.APP_KEY!, "hex"),
  network: { allowedCidrs: ["127.0.0.0/8"], allowHttp: false, timeoutMs: Number(env.CHAOS_TIMEOUT_MS ?? 1_000), limits: caps },
  release: "chaos",
  logger: pino({ level: "warn" }),
  clock: () => new Date(epoch + (Date.now() - epoch) * speed),
  concurrency: 8,
  idlePollMs: 20,
  // Three real seconds by default: longer than any attempt (one-second time-out), short enough for the test.
  leaseMs: Number(env.CHAOS_LEASE_MS ?? 3_000) * speed,
});
console.log("delivery worker ready");
process.on("SIGTERM", () => {
  void worker
    .stop()
    .then(() => db.destroy())
    .then(() => process.exit(0));
});
