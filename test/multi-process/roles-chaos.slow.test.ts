// Process roles under load and chaos: two ROLE=api and two ROLE=worker processes on one PostgreSQL
// and one Redis. The api processes alone run no background work; then, with writes spread over
// both apis and webhook deliveries under way, one api and one worker are killed with SIGKILL. Every
// write (retried with its Idempotency-Key) is applied once, every event gets one delivery, delivered,
// the survivors carry the rest, and each scheduled-job tick runs once across the workers (pg-boss's
// singleton schedule). Needs real servers: the PostgreSQL + Redis leg (TEST_DATABASE_URL, TEST_REDIS_URL).
import assert from "node:assert/strict";
import knex from "knex";
import { IDEMPOTENCY_LOCK_MS } from "../../src/pipeline/idempotency.ts";
import { chaosDatabase } from "../chaos/service.ts";
import { usingPostgres, usingRedis } from "../helpers/backends.ts";
import { call, eventReceiver, startRole, until, writeOnce, type RoleProcess } from "./role-processes.ts";

/** Writes of the load phase, and how many run at once. */
const WRITES = 240;
const CONCURRENCY = 6;
/** Writes done before the api is killed; deliveries received before the worker is. */
const KILL_API_AFTER = 60;
const KILL_WORKER_AFTER = 50;
/** How long a write is retried: a killed api's idempotency lock holds its key until IDEMPOTENCY_LOCK_MS (30 s) passes unrenewed. */
const RETRY_MS = IDEMPOTENCY_LOCK_MS + 60_000;

if (usingPostgres && usingRedis)
  describe("process roles: 2 api + 2 worker processes under load, one of each killed", function () {
    this.timeout(600_000);

    it("loses nothing, does nothing twice, and the survivors carry the load", async () => {
      const database = await chaosDatabase("roles");
      const db = knex({ client: "pg", connection: database.url, pool: { min: 0, max: 2 } });
      const receiver = await eventReceiver(20);
      const processes: RoleProcess[] = [];
      try {
        const env = { DATABASE_URL: database.url };
        const apis = await Promise.all([startRole("api", env), startRole("api", env)]);
        processes.push(...apis);
        const token = database.token;
        const endpoint = await call(
          apis[0]!.api!,
          token,
          "POST",
          "/v1/webhook-endpoints",
          { name: "roles", url: receiver.url, events: ["project.*"] },
          crypto.randomUUID(),
        );
        assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
        const endpointId = (endpoint.body!.data as { id: string }).id;
        const created = await call(apis[1]!.api!, token, "POST", "/v1/projects", { name: "Roles" }, crypto.randomUUID());
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const path = `/v1/projects/${(created.body!.data as { id: string }).id}`;
        for (let i = 0; i < 4; i++) await writeOnce(() => [apis[i % 2]!.api!], token, "PATCH", path, { description: `before the workers ${i}` });

        // The api processes alone: the events wait, unsent, and no job queue exists.
        await new Promise((r) => setTimeout(r, 3_000));
        assert.deepEqual(receiver.posts, [], "no api process delivers webhooks");
        const waiting = await db("webhook_deliveries").where({ endpoint_id: endpointId }).select("status", "attempts");
        assert.equal(waiting.length, 5);
        assert.ok(
          waiting.every((d) => d.status === "queued" && d.attempts === 0),
          JSON.stringify(waiting),
        );
        assert.equal((await db.raw("select to_regclass('pgboss.job') as t")).rows[0].t, null, "no api process started pg-boss");

        const workers = await Promise.all([startRole("worker", env), startRole("worker", env)]);
        processes.push(...workers);

        // The load: writes spread over the living apis, each retried under its key until answered.
        let done = 0;
        let next = 0;
        let apiKilledAt: number | null = null;
        let workerKilledAt: number | null = null;
        let postsAtWorkerKill = 0;
        const servedAfterKill = new Map<string, number>();
        const alive = () => apis.filter((a) => a.running()).map((a) => a.api!);
        const killer = (async () => {
          await until("deliveries under way", () => receiver.received.size >= KILL_WORKER_AFTER, 240_000);
          workers[0]!.kill();
          workerKilledAt = Date.now();
          postsAtWorkerKill = receiver.posts.length;
        })();
        const client = async () => {
          while (next < WRITES) {
            const n = next++;
            const rotate = n % 2;
            const answer = await writeOnce(
              () => [...alive().slice(rotate), ...alive().slice(0, rotate)],
              token,
              "PATCH",
              path,
              {
                description: `load ${n}`,
              },
              RETRY_MS,
            );
            done++;
            // Counted by when the answered attempt was sent: one sent before the kill may be answered by the killed api.
            if (apiKilledAt !== null && answer.sentAt > apiKilledAt)
              servedAfterKill.set(answer.servedBy, (servedAfterKill.get(answer.servedBy) ?? 0) + 1);
            if (done === KILL_API_AFTER && apiKilledAt === null) {
              apis[0]!.kill();
              apiKilledAt = Date.now();
            }
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, client));
        await killer;
        assert.ok(apiKilledAt !== null && workerKilledAt !== null, "one api and one worker were killed mid-way");

        // Nothing lost: every event reaches the receiver, and every delivery is recorded delivered. A
        // delivery the killed worker sent but did not record is sent again once its lease ends (at
        // least once; receivers deduplicate by event id), so the records settle after the receipts.
        const events = async () => (await db("events").where("type", "like", "project.%").pluck("id")) as string[];
        await until("every event delivered", async () => (await events()).every((id) => receiver.received.has(id.slice(4))), 240_000);
        await until(
          "every delivery recorded delivered",
          async () => (await db("webhook_deliveries").where({ endpoint_id: endpointId }).whereNot({ status: "delivered" }).first()) === undefined,
          240_000,
        );

        // Nothing done twice: one event per write, one delivery per event.
        const eventIds = await events();
        assert.equal(eventIds.length, 1 + 4 + WRITES, "project.created, then one project.updated per write");
        const deliveries = await db("webhook_deliveries").where({ endpoint_id: endpointId }).select("event_id", "status");
        assert.equal(deliveries.length, eventIds.length, "one delivery per event");
        assert.equal(new Set(deliveries.map((d) => d.event_id)).size, eventIds.length);
        assert.deepEqual(
          deliveries.filter((d) => d.status !== "delivered"),
          [],
          "every delivery ends delivered",
        );

        // The survivors carried the load.
        assert.equal(apis[0]!.running() || workers[0]!.running(), false, "the killed processes are gone");
        assert.ok(apis[1]!.running() && workers[1]!.running(), "the survivors still run");
        assert.deepEqual([...servedAfterKill.keys()], [apis[1]!.api], "every write sent after the kill was answered by the surviving api");
        assert.ok(receiver.posts.length > postsAtWorkerKill, "the surviving worker delivered after the kill");

        // Scheduled jobs: each tick is inserted once across the workers, and the survivor runs them.
        const repeats = await db.raw(
          `select singleton_key, singleton_on, count(*)::int as n from pgboss.job where name = '__pgboss__send-it' group by 1, 2 having count(*) > 1`,
        );
        assert.deepEqual(repeats.rows, [], "no tick sent twice");
        const perTick = await db.raw(
          `select j.name, count(*)::int as jobs, (select count(*)::int from pgboss.job t where t.name = '__pgboss__send-it' and t.singleton_key = j.name) as ticks
             from pgboss.job j where j.name not like '__pgboss__%' group by j.name`,
        );
        for (const row of perTick.rows as { name: string; jobs: number; ticks: number }[])
          assert.ok(row.jobs <= row.ticks, `${row.name}: ${row.jobs} runs for ${row.ticks} ticks`);
        await until(
          "a scheduled job completed by the surviving worker after the kill",
          async () =>
            (
              await db.raw(
                `select count(*)::int as n from pgboss.job where name not like '__pgboss__%' and state = 'completed' and completed_on > to_timestamp(?)`,
                [workerKilledAt! / 1000],
              )
            ).rows[0].n > 0,
          150_000,
        );
        console.log(
          `      roles: ${WRITES} writes, ${receiver.posts.length} posts for ${eventIds.length} events (${receiver.posts.length - new Set(receiver.posts).size} repeats: the killed worker's claims)`,
        );
      } catch (err) {
        // Said at once: the stops below may take the rest of the test's time.
        console.error("roles chaos failed:", err);
        throw err;
      } finally {
        await Promise.all(processes.map((p) => p.process.stop()));
        await receiver.close();
        await db.destroy();
        await database.drop();
      }
    });
  });
