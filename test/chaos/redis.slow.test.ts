// Chaos on Redis: `npm start` on a Redis server of the test's own outlives its clients being killed
// again and again and the server going down and coming back empty: /ready says 503 while Redis is
// down and 200 within 15 s of it answering, and the rate limits behave as docs/decisions.md ("Redis
// outage") decides: a token's REST budget admits uncounted, anonymous MCP callers are held to their
// budget in the process; and a process started while Redis is down waits for it. Runs in the
// PostgreSQL + Redis leg; the shared Redis is never touched.
import assert from "node:assert/strict";
import { usingPostgres, usingRedis } from "../helpers/backends.ts";
import {
  chaosDatabase,
  msUntil,
  privateRedis,
  startService,
  statusOf,
  timedRequest,
  type ChaosDatabase,
  type ChaosService,
  type PrivateRedis,
} from "./service.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (usingPostgres && usingRedis)
  describe("npm start while its Redis drops its clients or restarts", function () {
    this.timeout(180_000);
    let redis: PrivateRedis;
    let database: ChaosDatabase;
    let service: ChaosService;
    before(async () => {
      redis = await privateRedis();
      database = await chaosDatabase("chaos_redis");
      service = await startService(database.url, redis.url);
    });
    after(async () => {
      await service?.process.stop();
      await redis?.stop();
      await database?.drop();
    });

    const alive = () => assert.ok(service.running(), `the process exited:\n${service.process.output().slice(-4_000)}`);
    const readyWithin = (ms: number) => msUntil("/ready answers 200", async () => (await statusOf(`${service.api}/ready`)) === 200, ms);
    const read = () => timedRequest(service, database.token, "GET", "/v1/teams/current");

    /** An MCP request with no credential: 401 with the challenge, or 429 once the per-IP budget is spent. */
    const anonymousMcp = async () => {
      const res = await fetch(`${service.mcp}/`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.status;
    };

    it("serves through its clients killed again and again, and is ready within 15 s of the last", async () => {
      await readyWithin(90_000);
      for (let round = 0; round < 10; round++) {
        assert.match(await redis.cli("CLIENT", "KILL", "TYPE", "normal"), /^\d+$/);
        const answer = await read();
        assert.ok(answer.status === 200 || answer.code === "SERVICE_BUSY", `round ${round}: ${answer.status} ${answer.code}`);
        await sleep(200);
      }
      alive();
      await readyWithin(15_000);
      assert.equal((await read()).status, 200);
    });

    it("answers /ready 503 while Redis is down and keeps serving as decided; ready within 15 s of Redis coming back", async () => {
      await readyWithin(15_000);
      await redis.stop();
      await msUntil("/ready answers 503", async () => (await statusOf(`${service.api}/ready`)) === 503, 15_000);
      const during = await read();
      assert.equal(during.status, 200, "a verified token's request is served");
      assert.equal(during.headers.get("x-ratelimit-remaining"), "300", "and not counted");
      assert.ok(during.ms < 5_000, `answered after ${during.ms} ms`);
      assert.equal((await timedRequest(service, database.token, "POST", "/v1/projects", { name: "Made while Redis was down" })).status, 201);
      // Five anonymous calls a minute per address, counted in the process while Redis is down.
      const statuses: number[] = [];
      for (let i = 0; i < 10 && !statuses.includes(429); i++) statuses.push(await anonymousMcp());
      assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
      assert.ok(statuses.includes(429), `anonymous calls: ${statuses.join(", ")}`);
      alive();

      await redis.start();
      await readyWithin(15_000);
      const after = await read();
      assert.equal(after.status, 200);
      assert.ok(Number(after.headers.get("x-ratelimit-remaining")) < 300, "counted in Redis again");
      alive();
    });

    it("starts while Redis is down: /ready 503 until it answers, then ready within 15 s", async () => {
      await redis.stop();
      const second = await startService(database.url, redis.url);
      try {
        await msUntil("the new process's /up answers", async () => (await statusOf(`${second.api}/up`, 500)) === 200, 90_000);
        assert.equal(await statusOf(`${second.api}/ready`), 503);
        await sleep(3_000);
        assert.ok(second.running(), `the process exited:\n${second.process.output().slice(-4_000)}`);
        await redis.start();
        await msUntil("/ready 200", async () => (await statusOf(`${second.api}/ready`)) === 200, 15_000);
        assert.equal((await timedRequest(second, database.token, "GET", "/v1/teams/current")).status, 200);
      } finally {
        await second.process.stop();
      }
    });
  });
