// Chaos on PostgreSQL: `npm start` outlives every session of its database being terminated,
// repeatedly, from the moment its port first answers (its start steps and job worker still setting
// up) and again while it serves; and a database that refuses connections makes it answer 503 within
// its bounds, then recover by itself, and a process started while it refuses them waits for it.
// The test acts on its own database only, never on the server.
// Runs in the PostgreSQL + Redis leg (TEST_DATABASE_URL and TEST_REDIS_URL).
import assert from "node:assert/strict";
import { usingPostgres, usingRedis } from "../helpers/backends.ts";
import { chaosDatabase, msUntil, startService, statusOf, timedRequest, type ChaosDatabase, type ChaosService } from "./service.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (usingPostgres && usingRedis)
  describe("npm start while its PostgreSQL database fails", function () {
    this.timeout(180_000);
    let database: ChaosDatabase;
    let service: ChaosService;
    before(async () => {
      database = await chaosDatabase("chaos_pg");
      service = await startService(database.url, process.env.TEST_REDIS_URL!);
    });
    after(async () => {
      await service?.process.stop();
      await database?.drop();
    });

    /** Terminates every session of the database every 100 ms for `ms`, asking /up each time: how many were ended, and how often /up was not 200. */
    async function terminateFor(ms: number) {
      const until = Date.now() + ms;
      let terminated = 0;
      let upFailed = 0;
      while (Date.now() < until) {
        terminated += await database.terminate();
        if ((await statusOf(`${service.api}/up`, 2_000)) !== 200) upFailed += 1;
        await sleep(100);
      }
      return { terminated, upFailed };
    }

    const failuresLogged = () =>
      service.process
        .output()
        .split("\n")
        .filter((line) => line.includes('"msg":"request failed"'))
        .join("\n");
    const alive = () => assert.ok(service.running(), `the process exited:\n${service.process.output().slice(-4_000)}`);
    const readyWithin = (ms: number) => msUntil("/ready answers 200", async () => (await statusOf(`${service.api}/ready`)) === 200, ms);

    it("stays up through every session terminated from the moment /up first answers, and again while serving; ready again within 15 s, and the next write succeeds", async () => {
      await msUntil("/up first answers", async () => (await statusOf(`${service.api}/up`, 500)) === 200, 90_000);
      const starting = await terminateFor(6_000);
      alive();
      assert.ok(starting.terminated > 0, "sessions were terminated while the process started");
      assert.equal(starting.upFailed, 0, "/up answered 200 throughout");
      await readyWithin(15_000);
      assert.match(service.process.output(), /Job worker\s+\d+ scheduled jobs? on pg-boss/, "the job worker started");
      assert.equal((await timedRequest(service, database.token, "POST", "/v1/projects", { name: "After the start's outage" })).status, 201);

      // Serving: reads in flight while sessions are terminated are answered, never with a 500.
      let reading = true;
      const answers: string[] = [];
      const reads = (async () => {
        while (reading) {
          const answer = await timedRequest(service, database.token, "GET", "/v1/teams/current");
          answers.push(answer.code ?? String(answer.status));
          // Well inside the token's 300 a minute.
          await sleep(50);
        }
      })();
      const serving = await terminateFor(4_000);
      reading = false;
      await reads;
      alive();
      assert.ok(serving.terminated > 0);
      assert.equal(serving.upFailed, 0, "/up answered 200 throughout");
      assert.deepEqual(
        [...new Set(answers)].filter((a) => a !== "200" && a !== "SERVICE_BUSY"),
        [],
        `each read answered 200 or 503 SERVICE_BUSY; the failures logged:\n${failuresLogged()}`,
      );
      await readyWithin(15_000);
      assert.equal((await timedRequest(service, database.token, "POST", "/v1/projects", { name: "After the outage while serving" })).status, 201);
    });

    it("answers 503 while the database refuses connections, SERVICE_BUSY within the bounds, and recovers within 20 s of allowing them again", async () => {
      await readyWithin(15_000);
      await database.allowConnections(false);
      try {
        await database.terminate();
        await msUntil("/ready answers 503", async () => (await statusOf(`${service.api}/ready`)) === 503, 15_000);
        for (const [method, path, body] of [
          ["GET", "/v1/teams/current"],
          ["POST", "/v1/projects", { name: "Refused" }],
          ["GET", "/v1/projects"],
        ] as const) {
          const answer = await timedRequest(service, database.token, method, path, body);
          assert.deepEqual([answer.status, answer.code], [503, "SERVICE_BUSY"], `${method} ${path}`);
          assert.equal(answer.headers.get("retry-after"), "1");
          // The longest bound a request can meet here: acquiring a connection (3 s in this start).
          assert.ok(answer.ms < 5_000, `${method} ${path} answered after ${answer.ms} ms`);
        }
        assert.equal(await statusOf(`${service.api}/up`), 200);
        alive();
      } finally {
        await database.allowConnections(true);
      }
      await msUntil(
        "/ready 200 and a write succeeds",
        async () =>
          (await statusOf(`${service.api}/ready`)) === 200 &&
          (await timedRequest(service, database.token, "POST", "/v1/projects", { name: "Once allowed again" })).status === 201,
        20_000,
      );
      alive();
    });

    it("starts while the database refuses connections: /up 200, /ready 503 and requests SERVICE_BUSY until it is allowed, then ready within 20 s", async () => {
      await database.allowConnections(false);
      let second: ChaosService | null = null;
      try {
        await database.terminate();
        second = await startService(database.url, process.env.TEST_REDIS_URL!);
        const started = second;
        await msUntil("the new process's /up answers", async () => (await statusOf(`${started.api}/up`, 500)) === 200, 90_000);
        assert.equal(await statusOf(`${started.api}/ready`), 503);
        const early = await timedRequest(started, database.token, "GET", "/v1/teams/current");
        assert.deepEqual([early.status, early.code], [503, "SERVICE_BUSY"]);
        // Its start steps wait out the refusal, however long, instead of ending the process.
        await sleep(4_000);
        assert.ok(started.running(), `the process exited:\n${started.process.output().slice(-4_000)}`);
        await database.allowConnections(true);
        await msUntil("/ready 200", async () => (await statusOf(`${started.api}/ready`)) === 200, 20_000);
        assert.equal((await timedRequest(started, database.token, "POST", "/v1/projects", { name: "From the late start" })).status, 201);
      } finally {
        await database.allowConnections(true);
        await second?.process.stop();
      }
    });
  });
