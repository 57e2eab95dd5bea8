// One noisy team cannot stall the others' webhooks: claims are fair across teams and endpoints and
// bounded by the in-flight caps per endpoint and per team (counted from the leases, as every worker
// sees them), a worker serves a quiet team's event while a noisy team's slow endpoints hold its
// places, and a team registers a bounded number of endpoints. Assertions are on which deliveries
// are claimed and in what order, never on how long anything took.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { claimDueDeliveries, recordOutcomes, type ClaimedDelivery } from "../../../src/modules/webhooks/delivery-queue.ts";
import type { WebhookLimits } from "../../../src/modules/webhooks/limits.ts";
import { startDeliveryWorker } from "../../../src/workers/deliveries/worker.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { startApi, TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createEndpoint, endpointBody } from "./support.ts";

const limits: WebhookLimits = { inFlightPerEndpoint: 2, inFlightPerTeam: 6, endpointsPerTeam: 20 };
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/**
 * A receiver that answers each request only when the test releases it (slow but successful), and
 * notes the order requests arrive in, by path, and how many each path has open at once.
 */
async function heldReceiver() {
  const arrived: string[] = [];
  const held: ServerResponse[] = [];
  const open = new Map<string, number>();
  const mostOpen = new Map<string, number>();
  let holding = true;
  let onArrival = () => {};
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url!;
      arrived.push(path);
      open.set(path, (open.get(path) ?? 0) + 1);
      mostOpen.set(path, Math.max(mostOpen.get(path) ?? 0, open.get(path)!));
      res.on("finish", () => open.set(path, open.get(path)! - 1));
      if (holding && path.startsWith("/noisy/")) held.push(res);
      else res.writeHead(200).end("ok");
      onArrival();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    arrived,
    held,
    mostOpen,
    /** Resolves once `done()` holds, checked at every arrival (no clock involved). */
    until(done: () => boolean) {
      return new Promise<void>((resolve) => {
        const check = () => done() && resolve();
        onArrival = check;
        check();
      });
    },
    release() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(200).end("ok");
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("webhook delivery fairness", function () {
  this.timeout(120_000);
  // Team D is the noisy one; team E (quiet) has one endpoint and one event at a time.
  const suite = useApiWithCreator({ creator: { label: "fairness-noisy" } });
  let quiet: TestCreator;
  let quietClient: ApiClient;
  before(async () => {
    quiet = await createTestCreator({ label: "fairness-quiet" });
    quietClient = new ApiClient(suite.api.url, quiet.token);
  });
  afterEach(async () => {
    const { db } = await testDatabase();
    await db("webhook_endpoints").whereIn("team_id", [suite.creator.teamId, quiet.teamId]).delete();
  });

  const teams = () => [suite.creator.teamId, quiet.teamId];
  /** Renames the client's first project `n` times: `n` project.updated events of its team. */
  const fire = async (client: ApiClient, creator: TestCreator, n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await client.request("PATCH", `/v1/projects/${creator.projectIds[0]}`, { body: { name: `P ${randomUUID().slice(0, 6)}` } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
  };
  const claim = async (now: Date, limit: number) => claimDueDeliveries((await testDatabase()).db, now, limit, 600_000, { teams: teams(), limits });
  const delivered = (batch: readonly ClaimedDelivery[], now: Date) =>
    batch.map((delivery) => ({
      delivery,
      status: "delivered" as const,
      failed: false,
      refused: false,
      attemptedAt: now,
      nextAttemptAt: null,
      responseStatus: 200,
      excerpt: "ok",
      durationMs: 1,
    }));

  it("claims the quiet team's delivery first and spreads the noisy team's over its endpoints, within the caps", async () => {
    // D: 12 endpoints and 5 events each (60 deliveries, all older than E's); E: one endpoint, one event.
    for (let i = 0; i < 12; i++) await createEndpoint(suite.client, { events: ["project.updated"] });
    await fire(suite.client, suite.creator, 5);
    await createEndpoint(quietClient, { events: ["project.updated"] });
    await fire(quietClient, quiet, 1);
    const now = later(60);

    // A worker with 8 free slots: E's delivery is among them although D's 60 are all older.
    const first = await claim(now, 8);
    const [fromE, fromD] = [first.filter((d) => d.team_id === quiet.teamId), first.filter((d) => d.team_id === suite.creator.teamId)];
    assert.equal(fromE.length, 1, "the quiet team's delivery is in the first claim");
    assert.equal(fromD.length, limits.inFlightPerTeam, "the noisy team gets its cap, not every slot");
    assert.equal(new Set(fromD.map((d) => d.endpoint_id)).size, fromD.length, "round-robin: one per endpoint before a second to any");

    // While those are in flight (leased: what every worker counts), D gets nothing more and E's next
    // event is claimed at once, with slots to spare.
    await fire(quietClient, quiet, 1);
    const second = await claim(later(61), 8);
    assert.deepEqual(
      second.map((d) => d.team_id),
      [quiet.teamId],
    );

    // Recorded outcomes free D's places: the next claim takes up to the team cap again.
    await recordOutcomes((await testDatabase()).db, delivered([...first, ...second], now), now);
    const third = await claim(later(62), 100);
    assert.equal(third.length, limits.inFlightPerTeam);
    assert.ok(third.every((d) => d.team_id === suite.creator.teamId));
  });

  it("holds each endpoint to its in-flight cap, and puts the least loaded team first", async () => {
    for (let i = 0; i < 3; i++) await createEndpoint(suite.client, { events: ["project.updated"] });
    await fire(suite.client, suite.creator, 4);
    const now = later(60);
    const { db } = await testDatabase();
    const wide = { teams: teams(), limits: { ...limits, inFlightPerTeam: 100 } };

    const first = await claimDueDeliveries(db, now, 100, 600_000, wide);
    assert.deepEqual([...countBy(first, (d) => d.endpoint_id).values()], [2, 2, 2], "two per endpoint, of four due each");
    assert.equal((await claimDueDeliveries(db, now, 100, 600_000, wide)).length, 0, "every endpoint is at its cap");

    // D has 6 in flight, E none: a single free slot goes to E, though D's deliveries are older.
    await createEndpoint(quietClient, { events: ["project.updated"] });
    await fire(quietClient, quiet, 1);
    await recordOutcomes(db, delivered(first.slice(0, 2), now), now);
    const [next] = await claimDueDeliveries(db, later(61), 1, 600_000, wide);
    assert.equal(next?.team_id, quiet.teamId);
  });

  it("claims made at once (several workers) together stay within the caps", async () => {
    for (let i = 0; i < 4; i++) await createEndpoint(suite.client, { events: ["project.updated"] });
    await fire(suite.client, suite.creator, 5);
    const now = later(60);
    const claims = await Promise.all(Array.from({ length: 4 }, () => claim(now, 8)));
    const all = claims.flat();
    assert.equal(all.length, limits.inFlightPerTeam, JSON.stringify(claims.map((c) => c.length)));
    assert.ok([...countBy(all, (d) => d.endpoint_id).values()].every((n) => n <= limits.inFlightPerEndpoint));
  });

  it("a worker delivers the quiet team's event while the noisy team's slow endpoints hold their places, then drains the backlog", async () => {
    const receiver = await heldReceiver();
    const { db } = await testDatabase();
    // Answers wait for release, not a clock: the time-out is far beyond the test's length.
    const network = { ...TEST_WEBHOOK_NETWORK, timeoutMs: 60_000, limits };
    const worker = startDeliveryWorker({
      db,
      appKey: TEST_APP_KEY,
      network,
      release: "test",
      logger: testLogger,
      concurrency: 16,
      idlePollMs: 20,
      teams: teams(),
    });
    try {
      const noisy: string[] = [];
      for (let i = 0; i < 10; i++)
        noisy.push((await createEndpoint(suite.client, { url: `${receiver.base}/noisy/${i}`, events: ["project.updated"] })).data.id);
      await fire(suite.client, suite.creator, 4);
      // D's slow endpoints fill D's places (the team cap), not the worker's 16 slots.
      await receiver.until(() => receiver.held.length === limits.inFlightPerTeam);

      await createEndpoint(quietClient, { url: `${receiver.base}/quiet`, events: ["project.updated"] });
      await fire(quietClient, quiet, 1);
      await receiver.until(() => receiver.arrived.includes("/quiet"));
      assert.equal(receiver.held.length, limits.inFlightPerTeam, "D still holds only its cap");
      const queuedOfD = await db("webhook_deliveries").whereIn("endpoint_id", noisy).where({ status: "queued" }).count({ n: "*" });
      assert.equal(Number(queuedOfD[0]!.n), 40, "E was served before any of D's 40 deliveries was done");
      assert.deepEqual(
        receiver.arrived.filter((p) => p.startsWith("/noisy/")).length,
        limits.inFlightPerTeam,
        "nothing more of D was posted meanwhile",
      );

      receiver.release();
      const deliveredOfD = async () =>
        Number((await db("webhook_deliveries").whereIn("endpoint_id", noisy).where({ status: "delivered" }).count({ n: "*" }))[0]!.n);
      while ((await deliveredOfD()) < 40) await new Promise((r) => setTimeout(r, 50));
      assert.ok(
        [...receiver.mostOpen].every(([path, n]) => n <= limits.inFlightPerEndpoint || path === "/quiet"),
        JSON.stringify([...receiver.mostOpen]),
      );
    } finally {
      receiver.release();
      await worker.stop();
      await receiver.close();
    }
  });

  it("a team's delivery to an origin another team's slow requests occupy goes out while those still hang", async () => {
    // One receiving origin for both teams (a receiver service both use), and the default caps (16 per
    // endpoint, 32 per team): D's 18 slow deliveries are all claimed, more than a shared origin's
    // connections used to hold (8), so E's one delivery waited behind them in the client.
    const receiver = await heldReceiver();
    const { db } = await testDatabase();
    const network = { ...TEST_WEBHOOK_NETWORK, timeoutMs: 60_000 };
    const worker = startDeliveryWorker({ db, appKey: TEST_APP_KEY, network, release: "test", logger: testLogger, idlePollMs: 20, teams: teams() });
    try {
      for (let i = 0; i < 3; i++) await createEndpoint(suite.client, { url: `${receiver.base}/noisy/${i}`, events: ["project.updated"] });
      await fire(suite.client, suite.creator, 6);
      await receiver.until(() => receiver.held.length >= 8);

      await createEndpoint(quietClient, { url: `${receiver.base}/quiet`, events: ["project.updated"] });
      await fire(quietClient, quiet, 1);
      // Bounded far beyond the few milliseconds it takes: D's requests are held until release, so a
      // delivery queued behind them would never arrive.
      const posted = await Promise.race([
        receiver.until(() => receiver.arrived.includes("/quiet")).then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 15_000).unref()),
      ]);
      assert.ok(posted, `E's delivery was not posted while D's ${receiver.held.length} requests to the same origin hung`);
      assert.ok(receiver.held.length >= 8, "D's requests were still hanging");
      // Nor do D's own claimed attempts wait in the client: all 18 reach the receiver.
      await receiver.until(() => receiver.held.length === 18);
    } finally {
      receiver.release();
      await worker.stop();
      await receiver.close();
    }
  });

  it("caps a team's endpoints: one more is refused with 422 VALIDATION_FAILED, reason endpoint_limit; deleting one frees a place", async () => {
    const api = await startApi({ webhooks: { ...TEST_WEBHOOK_NETWORK, limits: { endpointsPerTeam: 2 } } });
    try {
      const client = new ApiClient(api.url, suite.creator.token);
      const kept = await createEndpoint(client);
      await createEndpoint(client);
      const error = expectError(await client.post("/v1/webhook-endpoints", endpointBody()), 422, "VALIDATION_FAILED");
      assert.deepEqual(error.context, { reason: "endpoint_limit", limit: 2, count: 2 });
      assert.equal(error.message, "A team registers at most 2 webhook endpoints; this team has 2.");
      assert.equal(error.fields, undefined);
      assert.equal((await client.delete(`/v1/webhook-endpoints/${kept.data.id}`)).status, 204);

      // Two registrations at once for the last place: one gets it.
      const raced = await Promise.all([client.post("/v1/webhook-endpoints", endpointBody()), client.post("/v1/webhook-endpoints", endpointBody())]);
      assert.deepEqual(raced.map((r) => r.status).sort(), [201, 422]);
    } finally {
      await api.close();
    }
  });
});
