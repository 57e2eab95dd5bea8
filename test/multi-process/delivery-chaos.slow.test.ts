// Chaos: two delivery worker processes share one PostgreSQL queue while the receiver fails at random
// and one worker is killed with SIGKILL mid-run. Every event is delivered at least once, none is
// lost, and nothing is posted to an endpoint whose host resolves outside its allowed_ips. Runs in the
// PostgreSQL leg (TEST_DATABASE_URL): several processes cannot share the embedded database's queue.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:https";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { createCreator } from "../../src/modules/account/creators.ts";
import { emitEvent } from "../../src/modules/events/outbox.ts";
import { createEndpoint } from "../../src/modules/webhooks/endpoints.ts";
import { emptyPostgresDatabase, usingPostgres } from "../helpers/backends.ts";
import { ROOT } from "../helpers/processes.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";

const EVENTS = 240;
const tls = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));

/** A receiver dropping the connection of one request in 25 and answering 500 to one in six of the others. */
async function flakyReceiver() {
  const answered = new Map<string, number>();
  const posts: string[] = [];
  const server = createServer({ key: tls("receiver.key"), cert: tls("receiver.pem") }, (req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["sb-event-id"]);
      posts.push(id);
      const roll = Math.random();
      if (roll < 0.04) return req.socket.destroy();
      setTimeout(() => {
        if (roll < 0.2) return res.writeHead(500).end("flaky");
        answered.set(id, (answered.get(id) ?? 0) + 1);
        res.writeHead(200).end("ok");
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, answered, posts, url: `https://localhost:${(server.address() as AddressInfo).port}/hook` };
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=subbridge-source", "test/multi-process/delivery-worker-program.ts"], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("delivery worker ready") && resolve(child));
    child.on("exit", (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
  });
}

if (usingPostgres)
  describe("delivery workers under chaos (two processes, PostgreSQL)", function () {
    this.timeout(180_000);

    it("delivers every event at least once through random failures and a worker killed mid-run, never to a refused address", async () => {
      const database = await emptyPostgresDatabase("delivery_chaos");
      const db = openDatabase({ url: database.url });
      const good = await flakyReceiver();
      const refused = await flakyReceiver();
      const workers: ChildProcess[] = [];
      try {
        await migrate(db);
        const now = new Date();
        const { userId, teamId } = await createCreator(db, { email: "chaos@example.com", password: "correct horse battery", tier: "growth" }, now);
        const ctx = createDomainContext(db, { ...systemActor(teamId), userId, kind: "api_token" }, now);
        const env = {
          appKey: TEST_APP_KEY,
          network: { allowedCidrs: ["127.0.0.0/8"], allowHttp: false, timeoutMs: 1_000 },
          abilities: new Set<string>(),
        };
        const target = (await createEndpoint(ctx, env, { name: "flaky", url: good.url, events: ["chaos.*"] as never[] })).data;
        const fenced = (
          await createEndpoint(ctx, env, { name: "fenced", url: refused.url, events: ["chaos.*"] as never[], allowed_ips: ["203.0.113.0/24"] })
        ).data;
        for (let i = 0; i < EVENTS; i += 40) {
          await db.transaction(async (trx) => {
            const inTrx = createDomainContext(trx, ctx.actor, new Date());
            for (let j = i; j < i + 40; j++) await emitEvent(inTrx, { type: "chaos.happened", data: { n: j } });
          });
        }
        const workerEnv = { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY.toString("hex"), CHAOS_EPOCH: String(Date.now()), CHAOS_SPEED: "1000" };
        workers.push(await startWorker(workerEnv), await startWorker(workerEnv));

        // Kill one worker with deliveries in flight.
        while (good.posts.length < EVENTS / 4) await new Promise((r) => setTimeout(r, 10));
        workers[0]!.kill("SIGKILL");

        const deliveredCount = async () =>
          Number((await db("webhook_deliveries").where({ endpoint_id: target.id, status: "delivered" }).count({ n: "*" }))[0]!.n);
        const deadline = Date.now() + 150_000;
        while ((await deliveredCount()) < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

        const rows = await db("webhook_deliveries").where({ endpoint_id: target.id }).select("event_id", "status", "attempts");
        assert.equal(rows.length, EVENTS, "one delivery per event");
        const notDelivered = rows.filter((r) => r.status !== "delivered");
        assert.deepEqual(notDelivered, [], "every delivery ends delivered");
        const eventIds = (await db("events").where({ team_id: teamId }).pluck("id")) as string[];
        const lost = eventIds.filter((id) => !good.answered.has(id.slice(4)));
        assert.deepEqual(lost, [], "every event was acknowledged by the receiver at least once");
        assert.equal(refused.posts.length, 0, "nothing was posted to the endpoint outside its allowed_ips");
        const fencedRows = await db("webhook_deliveries").where({ endpoint_id: fenced.id }).select("status", "response_excerpt");
        assert.equal(fencedRows.length, EVENTS);
        // Refusals are failures: the 20th in a row disabled the endpoint, and the rest wait, unposted.
        const dead = fencedRows.filter((r) => r.status === "dead");
        assert.ok(dead.length >= 20, `${dead.length} refused`);
        for (const r of dead)
          assert.match(r.response_excerpt, /^refused, not posted: the host localhost resolves to 127\.0\.0\.1, outside the endpoint's allowed_ips$/);
        assert.ok(fencedRows.every((r) => r.status === "dead" || (r.status === "queued" && r.response_excerpt === null)));
        assert.equal((await db("webhook_endpoints").where({ id: fenced.id }).first()).is_active, false);
        const duplicates = good.posts.length - new Set(good.posts).size;
        console.log(
          `      chaos: ${good.posts.length} posts for ${EVENTS} events (${duplicates} repeats: retries after failures and the killed worker's claims)`,
        );
      } finally {
        for (const w of workers) if (w.exitCode === null) w.kill("SIGTERM");
        await Promise.all(workers.map((w) => (w.exitCode === null && w.signalCode === null ? new Promise((r) => w.once("exit", r)) : null)));
        good.server.close();
        refused.server.close();
        await db.destroy();
        await database.drop();
      }
    });
  });
