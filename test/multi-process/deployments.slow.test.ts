// Several processes on one PostgreSQL and one Redis, as an operator scales out: any number start
// together on an empty database, and two deployments (each its own database) sharing one Redis
// share nothing - not a rate-limit counter, not an idempotency record. Needs real servers, so it
// runs in the PostgreSQL + Redis leg (TEST_DATABASE_URL and TEST_REDIS_URL).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { emptyPostgresDatabase, usingPostgres, usingRedis } from "../helpers/backends.ts";
import { freePort, startNpm, type StartedProcess } from "../helpers/processes.ts";
import { migrate, openDatabase } from "../../src/db/database.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";

const BANNER = /Need a token\?.*\n|No creator yet.*\n[\s\S]*token:mint.*\n/;

/** `npm start` serving only the REST API on a free port. */
async function startApiProcess(env: Record<string, string>): Promise<{ process: StartedProcess; url: string }> {
  const port = await freePort();
  const started = await startNpm({ SURFACES: "api", API_PORT: String(port), LOG_LEVEL: "warn", ...env }, BANNER);
  return { process: started, url: `http://127.0.0.1:${port}` };
}

// Registered only where it can run (the PostgreSQL + Redis leg of CI); embedded mode has one process.
if (usingPostgres && usingRedis)
  describe("several processes on one PostgreSQL and one Redis", function () {
    this.timeout(180_000);
    const redisUrl = process.env.TEST_REDIS_URL!;

    it("migrates an empty database once however many knex instances start at once (5 trials of 6)", async () => {
      for (let trial = 0; trial < 5; trial++) {
        const database = await emptyPostgresDatabase(`migrate${trial}`);
        const instances = Array.from({ length: 6 }, () => openDatabase({ url: database.url }));
        try {
          const applied = await Promise.all(instances.map((db) => migrate(db)));
          assert.equal(applied.flat().length, applied.find((a) => a.length > 0)!.length, "each migration ran exactly once");
        } finally {
          await Promise.all(instances.map((db) => db.destroy()));
          await database.drop();
        }
      }
    });

    it("brings up every one of three `npm start` processes started together on an empty database", async () => {
      const database = await emptyPostgresDatabase("starts");
      const started: StartedProcess[] = [];
      try {
        const results = await Promise.allSettled(
          [1, 2, 3].map(() => startApiProcess({ DATABASE_URL: database.url, REDIS_URL: redisUrl }).then((s) => (started.push(s.process), s))),
        );
        const failures = results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason).slice(0, 500));
        assert.deepEqual(failures, [], "no process exited");
        for (const r of results) {
          const { url } = (r as PromiseFulfilledResult<{ url: string }>).value;
          assert.equal((await fetch(`${url}/up`)).status, 200);
        }
      } finally {
        await Promise.all(started.map((p) => p.stop()));
        await database.drop();
      }
    });

    describe("two deployments, each with its own database, sharing one Redis", () => {
      const deployments: { url: string; token: string; process: StartedProcess; drop(): Promise<void> }[] = [];

      /** An empty database with one creator and its first token (id 1 in both). */
      async function deployment(label: string, appKey: string) {
        const database = await emptyPostgresDatabase(label);
        const db = openDatabase({ url: database.url });
        let token: string;
        try {
          await migrate(db);
          const email = `owner-${label}@example.test`;
          await createCreatorAccount(db, { email, password: "correct horse battery", tier: "growth" }, new Date());
          const minted = await mintTokenForCreator(db, { email, abilities: "all" }, new Date());
          assert.equal(minted.id, "1", "both deployments number their tokens from 1");
          token = minted.token;
        } finally {
          await db.destroy();
        }
        const { process, url } = await startApiProcess({ DATABASE_URL: database.url, REDIS_URL: redisUrl, APP_KEY: appKey });
        deployments.push({ url, token, process, drop: database.drop });
        return { url, token };
      }

      afterEach(async () => {
        for (const d of deployments.splice(0)) {
          await d.process.stop();
          await d.drop();
        }
      });

      const get = (d: { url: string; token: string }, path: string) => fetch(`${d.url}${path}`, { headers: { authorization: `Bearer ${d.token}` } });
      const mint = (d: { url: string; token: string }, key: string) =>
        fetch(`${d.url}/v1/tokens`, {
          method: "POST",
          headers: { authorization: `Bearer ${d.token}`, "idempotency-key": key, "content-type": "application/json" },
          body: JSON.stringify({ name: "same body", abilities: ["team:view"] }),
        });

      for (const sameAppKey of [true, false]) {
        it(`keep their rate limits and idempotency records apart (${sameAppKey ? "same" : "different"} APP_KEY)`, async () => {
          const keyA = randomBytes(32).toString("base64");
          const a = await deployment(`iso${sameAppKey ? "s" : "d"}a`, keyA);
          const b = await deployment(`iso${sameAppKey ? "s" : "d"}b`, sameAppKey ? keyA : randomBytes(32).toString("base64"));

          for (let i = 0; i < 5; i++) assert.equal((await get(a, "/v1/teams/current")).status, 200);
          const first = await get(b, "/v1/teams/current");
          assert.equal(first.headers.get("x-ratelimit-remaining"), "299", "b's token 1 has its own budget");

          const key = crypto.randomUUID();
          const fromA = await mint(a, key);
          assert.equal(fromA.status, 201);
          const secretA = ((await fromA.json()) as { token: string }).token;
          const fromB = await mint(b, key);
          assert.equal(fromB.status, 201, "b runs its own request");
          assert.equal(fromB.headers.get("idempotent-replay"), null, "nothing is replayed across deployments");
          const secretB = ((await fromB.json()) as { token: string }).token;
          assert.notEqual(secretB, secretA);
          const replayB = await mint(b, key);
          assert.equal(replayB.headers.get("idempotent-replay"), "true", "b replays its own record");
          assert.equal(((await replayB.json()) as { token: string }).token, secretB);
          assert.equal((await get({ url: b.url, token: secretA }, "/v1/teams/current")).status, 401, "a's secret opens nothing on b");
        });
      }
    });
  });
