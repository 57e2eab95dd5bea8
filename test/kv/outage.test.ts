// A Redis outage (docs/decisions.md, "Redis outage"): a command fails at once instead of waiting
// for the server, and each use goes on as decided: budgets of a verified token admit uncounted,
// anonymous budgets count in the process, credentials are read from the database and a deletion's
// tombstone reaches the store once it answers, and a write runs without its idempotency lock, once.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import { KvUnavailableError, type Kv } from "../../src/kv/kv.ts";
import { RedisKv } from "../../src/kv/redis.ts";
import { processRegistry } from "../../src/observability/metrics.ts";
import { withTimeout } from "../../src/observability/readiness.ts";
import { consumeBudget, REST_BUDGET, UNAUTHENTICATED_MCP_BUDGET } from "../../src/pipeline/rate-limit.ts";
import { usingRedis } from "../helpers/backends.ts";
import { createTestCreator, tokenFor } from "../helpers/fixtures.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { OutageKv, StoppableProxy } from "../helpers/outages.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";

/** What subbridge_kv_unavailable_total has counted for `use` so far. */
async function outagesCounted(use: string): Promise<number> {
  const metric = await processRegistry.getSingleMetric("subbridge_kv_unavailable_total")!.get();
  return metric.values.find((v) => v.labels.use === use)?.value ?? 0;
}

describe("a Redis outage", function () {
  this.timeout(60_000);

  // The in-process store of the embedded backends cannot be unreachable.
  if (usingRedis)
    it("fails a command within a second with KvUnavailableError while Redis is unreachable, and serves again once it answers", async () => {
      const url = new URL(process.env.TEST_REDIS_URL!);
      const proxy = new StoppableProxy(() => connect(Number(url.port || 6379), url.hostname));
      await proxy.start();
      const kv: Kv = await RedisKv.connect(`redis://127.0.0.1:${proxy.port}`, `sbtest:outage:${randomUUID()}:`);
      try {
        await kv.set("k", "v", { ttlMs: 60_000 });
        await proxy.stop();
        // The commands sent as the connection drops, and while the client reconnects: none waits for the server.
        for (let i = 0; i < 20; i++) {
          await assert.rejects(withTimeout(kv.get("k"), 1_000, "a command to an unreachable Redis"), KvUnavailableError);
          await new Promise((r) => setTimeout(r, 50));
        }
        await proxy.start();
        let value: string | null = null;
        for (let i = 0; i < 100 && value === null; i++) {
          value = await kv.get("k").catch(() => null);
          if (value === null) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(value, "v", "the same store once the client has reconnected");
      } finally {
        await kv.close();
        await proxy.stop();
      }
    });

  it("admits a verified token's requests uncounted, and counts an anonymous budget in this process alone", async () => {
    const kv = new OutageKv();
    kv.down = true;
    const now = Date.now();
    const open = await outagesCounted("rate_limit_open");
    for (let i = 0; i < 400; i++) assert.equal((await consumeBudget(kv, "rest:token:1", REST_BUDGET, now)).retryAfter, null, `request ${i + 1}`);
    assert.equal(await outagesCounted("rate_limit_open"), open + 400);
    const subject = `mcp-ip:${randomUUID()}`;
    for (let i = 0; i < 5; i++) assert.equal((await consumeBudget(kv, subject, UNAUTHENTICATED_MCP_BUDGET, now)).retryAfter, null);
    assert.notEqual((await consumeBudget(kv, subject, UNAUTHENTICATED_MCP_BUDGET, now)).retryAfter, null, "the sixth in a minute is refused");
    // Once the store answers, it counts again (the in-process count was only for the outage).
    kv.down = false;
    assert.equal((await consumeBudget(kv, subject, UNAUTHENTICATED_MCP_BUDGET, now)).remaining, 4);
  });

  describe("the REST API", () => {
    const kv = new OutageKv();
    let api: RunningApi;
    before(async () => {
      api = await startApi({ kv });
    });
    after(async () => {
      kv.down = false;
      await api.close();
    });

    it("serves a token's reads and writes while the store is down, each write once, replayed to its repeat", async () => {
      const creator = await createTestCreator({ label: "kv-outage" });
      const client = new ApiClient(api.url, creator.token);
      kv.down = true;
      const read = await client.get("/v1/teams/current");
      assert.equal(read.status, 200);
      assert.equal(read.headers.get("x-ratelimit-remaining"), "300", "not counted while the store is down");
      const key = randomUUID();
      const locks = await outagesCounted("idempotency_lock");
      const first = await client.post("/v1/tokens", { name: "minted in the outage", abilities: ["team:view"] }, { idempotencyKey: key });
      assert.equal(first.status, 201);
      const again = await client.post("/v1/tokens", { name: "minted in the outage", abilities: ["team:view"] }, { idempotencyKey: key });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get("idempotent-replay"), "true");
      assert.deepEqual(again.body, first.body);
      assert.equal(await outagesCounted("idempotency_lock"), locks + 2);
      const listed = (await client.get("/v1/tokens?limit=100")).body as { data: { name: string }[] };
      assert.equal(listed.data.filter((t) => t.name === "minted in the outage").length, 1, "the write ran once");
    });

    it("refuses a token deleted during the outage once the store answers, though its resolution was cached", async () => {
      const creator = await createTestCreator({ label: "kv-outage-delete" });
      const victim = await tokenFor(creator, ["team:view"]);
      const onVictim = new ApiClient(api.url, victim.token);
      assert.equal((await onVictim.get("/v1/teams/current")).status, 200, "cached while the store answers");
      kv.down = true;
      assert.equal((await new ApiClient(api.url, creator.token).delete(`/v1/tokens/${victim.id}`)).status, 204);
      expectError(await onVictim.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
      kv.down = false;
      // The tombstone is written within a retry's interval of the store answering again.
      await new Promise((r) => setTimeout(r, 600));
      expectError(await onVictim.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    });
  });
});
