// Chaos: two delivery worker processes share one PostgreSQL queue while the receiver fails at random
// and one worker is killed with SIGKILL mid-run. Every event is delivered at least once, none is
// lost, and nothing is posted to an endpoint whose host resolves outside its allowed_ips. And one
// noisy team (slow endpoints, a flood of events) cannot starve a quiet team: the in-flight caps hold
// across both processes. Runs in the PostgreSQL leg (TEST_DATABASE_URL): several processes cannot
// share the embedded database's queue.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:https";
import type { ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { createCreator } from "../../src/modules/account/creators.ts";
import { emitEvent } from "../../src/modules/events/outbox.ts";
import { createEndpoint } from "../../src/modules/webhooks/endpoints.ts";
import { emptyPostgresDatabase, usingPostgres } from "../helpers/backends.ts";
import { startProgram } from "../helpers/processes.ts";
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

/**
 * A receiver holding the answers to /noisy/* until release() (slow but successful) and answering
 * the rest at once; it notes the arrival order and the most requests open at once, per path and for
 * every /noisy/* path together.
 */
async function holdingReceiver() {
  const arrived: string[] = [];
  const held: ServerResponse[] = [];
  const open = new Map<string, number>();
  const mostOpen = new Map<string, number>();
  const count = (key: string, by: number) => {
    open.set(key, (open.get(key) ?? 0) + by);
    mostOpen.set(key, Math.max(mostOpen.get(key) ?? 0, open.get(key)!));
  };
  let holding = true;
  const server = createServer({ key: tls("receiver.key"), cert: tls("receiver.pem") }, (req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url!;
      const keys = path.startsWith("/noisy/") ? [path, "noisy"] : [path];
      arrived.push(path);
      for (const k of keys) count(k, 1);
      res.on("finish", () => keys.forEach((k) => count(k, -1)));
      if (holding && path.startsWith("/noisy/")) held.push(res);
      else res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    arrived,
    held,
    mostOpen,
    base: `https://localhost:${(server.address() as AddressInfo).port}`,
    release() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(200).end("ok");
    },
  };
}

const until = async (done: () => boolean | Promise<boolean>, what: string, deadline = Date.now() + 60_000) => {
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const startWorker = (env: Record<string, string>) => startProgram("test/multi-process/delivery-worker-program.ts", env, "delivery worker ready");

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

    it("serves a quiet team's event while a noisy team's slow endpoints are busy; the caps hold across both workers", async () => {
      const database = await emptyPostgresDatabase("delivery_noisy_team");
      const db = openDatabase({ url: database.url });
      const receiver = await holdingReceiver();
      const workers: ChildProcess[] = [];
      const caps = { perEndpoint: 2, perTeam: 6 };
      try {
        await migrate(db);
        const now = new Date();
        const network = { allowedCidrs: ["127.0.0.0/8"], allowHttp: false, timeoutMs: 1_000 };
        const team = async (email: string) => {
          const { userId, teamId } = await createCreator(db, { email, password: "correct horse battery", tier: "growth" }, now);
          return createDomainContext(db, { ...systemActor(teamId), userId, kind: "api_token" }, now);
        };
        const fire = (ctx: Awaited<ReturnType<typeof team>>, n: number) =>
          db.transaction(async (trx) => {
            const inTrx = createDomainContext(trx, ctx.actor, new Date());
            for (let j = 0; j < n; j++) await emitEvent(inTrx, { type: "chaos.happened", data: { n: j } });
          });
        const env = { appKey: TEST_APP_KEY, network, abilities: new Set<string>() };
        const noisy = await team("noisy@example.com");
        const quiet = await team("quiet@example.com");
        for (let i = 0; i < 10; i++)
          await createEndpoint(noisy, env, { name: `slow ${i}`, url: `${receiver.base}/noisy/${i}`, events: ["chaos.*"] as never[] });
        await createEndpoint(quiet, env, { name: "cheap", url: `${receiver.base}/quiet`, events: ["chaos.*"] as never[] });
        await fire(noisy, 30);

        // Two workers, 16 slots between them; held answers outlast neither the time-out nor the lease.
        const workerEnv = {
          DATABASE_URL: database.url,
          APP_KEY: TEST_APP_KEY.toString("hex"),
          CHAOS_EPOCH: String(Date.now()),
          CHAOS_SPEED: "1",
          CHAOS_TIMEOUT_MS: "120000",
          CHAOS_LEASE_MS: "180000",
          WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(caps.perEndpoint),
          WEBHOOK_MAX_IN_FLIGHT_PER_TEAM: String(caps.perTeam),
        };
        workers.push(await startWorker(workerEnv), await startWorker(workerEnv));
        await until(() => receiver.held.length >= caps.perTeam, "the noisy team's first attempts");

        await fire(quiet, 1);
        await until(() => receiver.arrived.includes("/quiet"), "the quiet team's delivery");
        const noisyPosts = receiver.arrived.filter((p) => p.startsWith("/noisy/")).length;
        assert.equal(noisyPosts, caps.perTeam, "the noisy team had no more than its cap posted, over both workers, before the quiet team's");
        const delivered = async (teamId: string) =>
          Number((await db("webhook_deliveries").where({ team_id: teamId, status: "delivered" }).count({ n: "*" }))[0]!.n);
        await until(async () => (await delivered(quiet.actor.teamId)) === 1, "the quiet delivery recorded");
        assert.equal(await delivered(noisy.actor.teamId), 0, "delivered while none of the noisy team's 300 was");

        receiver.release();
        await until(async () => (await delivered(noisy.actor.teamId)) === 300, "the noisy backlog drained", Date.now() + 120_000);
        assert.ok(receiver.mostOpen.get("noisy")! <= caps.perTeam, `noisy team open at once: ${receiver.mostOpen.get("noisy")}`);
        for (const [path, n] of receiver.mostOpen) if (path.startsWith("/noisy/")) assert.ok(n <= caps.perEndpoint, `${path}: ${n} open at once`);
      } finally {
        receiver.release();
        for (const w of workers) if (w.exitCode === null) w.kill("SIGTERM");
        await Promise.all(workers.map((w) => (w.exitCode === null && w.signalCode === null ? new Promise((r) => w.once("exit", r)) : null)));
        receiver.server.close();
        await db.destroy();
        await database.drop();
      }
    });
  });
