// The service behind PgBouncer in transaction pooling mode: an api and a worker process (ROLE) start
// together on an empty database through a real PgBouncer (Debian's package, run by the test), the
// migrations and pg-boss reaching the server directly (DATABASE_DIRECT_URL); the REST API answers,
// idempotent replays and webhook deliveries work through the pooler, and a later start migrates
// again (no session lock left behind). Runs in the PostgreSQL leg (TEST_DATABASE_URL).
import assert from "node:assert/strict";
import knex, { type Knex } from "knex";
import pg from "pg";
import { openDatabase } from "../../src/db/database.ts";
import { createCreatorAccount, mintTokenForCreator } from "../../src/operator.ts";
import { emptyPostgresDatabase, usingPostgres } from "../helpers/backends.ts";
import { startPgBouncer, type PgBouncer } from "../helpers/pgbouncer.ts";
import { call, eventReceiver, startRole, until, writeOnce, type RoleProcess } from "./role-processes.ts";

const UPDATES = 30;

if (usingPostgres)
  describe("behind PgBouncer in transaction pooling mode", function () {
    this.timeout(300_000);
    let bouncer: PgBouncer;
    let admin: Knex;

    before(async () => {
      bouncer = await startPgBouncer();
      admin = knex({ client: "pg", connection: process.env.TEST_DATABASE_URL!, pool: { min: 0, max: 2 } });
    });
    after(async () => {
      await admin?.destroy();
      await bouncer?.stop();
    });

    it("shows why the direct address exists: a session advisory lock taken through PgBouncer outlives its client", async () => {
      const key = String(Math.floor(Math.random() * 2e9) + 1);
      const pooled = new pg.Client({ connectionString: bouncer.url("postgres") });
      await pooled.connect();
      await pooled.query("select pg_advisory_lock($1::bigint)", [key]);
      await pooled.end();
      const { rows } = (await admin.raw(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = 0 and objid::bigint = ?::bigint",
        [key],
      )) as {
        rows: { n: number }[];
      };
      // The server session PgBouncer lent keeps the lock after the client left: the next client of
      // that session would hold it unknowingly, and a process waiting for it would wait forever.
      assert.equal(rows[0]!.n, 1, "the lock stays with PgBouncer's server session");
    });

    it("starts an api and a worker together on an empty database, serves REST, replays and delivers webhooks", async () => {
      const database = await emptyPostgresDatabase("pgbouncer");
      const name = new URL(database.url).pathname.slice(1);
      // The service's bounds cannot pass PgBouncer as startup parameters: the database carries them.
      await admin.raw(`ALTER DATABASE ${name} SET statement_timeout = '15s'`);
      await admin.raw(`ALTER DATABASE ${name} SET lock_timeout = '5s'`);
      await admin.raw(`ALTER DATABASE ${name} SET idle_in_transaction_session_timeout = '30s'`);
      const env = { DATABASE_URL: bouncer.url(name), DATABASE_DIRECT_URL: database.url };
      const receiver = await eventReceiver();
      const processes: RoleProcess[] = [];
      const db = openDatabase({ url: bouncer.url(name) });
      try {
        const started = await Promise.allSettled([startRole("api", env), startRole("worker", env)]);
        for (const s of started) if (s.status === "fulfilled") processes.push(s.value);
        const failures = started.filter((s) => s.status === "rejected").map((s) => String((s as PromiseRejectedResult).reason).slice(0, 2000));
        assert.deepEqual(failures, [], "both processes started");
        const api = processes.find((p) => p.role === "api")!.api!;

        // The operator's commands work through the pooler too (transactions only).
        const now = new Date();
        await createCreatorAccount(db, { email: "pooled@example.test", password: "correct horse battery", tier: "growth" }, now);
        const { token } = await mintTokenForCreator(db, { email: "pooled@example.test", abilities: "all" }, now);
        const [{ statement_timeout }] = (await db.raw("show statement_timeout")).rows as { statement_timeout: string }[];
        assert.equal(statement_timeout, "15s", "the database's bounds hold on every pooled session");

        assert.equal((await call(api, token, "GET", "/ready")).status, 200);
        const endpoint = await call(
          api,
          token,
          "POST",
          "/v1/webhook-endpoints",
          { name: "pooled", url: receiver.url, events: ["project.*"] },
          crypto.randomUUID(),
        );
        assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
        const key = crypto.randomUUID();
        const created = await call(api, token, "POST", "/v1/projects", { name: "Through the pooler" }, key);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const replay = await call(api, token, "POST", "/v1/projects", { name: "Through the pooler" }, key);
        assert.equal(replay.headers.get("idempotent-replay"), "true");
        const project = (created.body!.data as { id: string }).id;
        for (let i = 0; i < UPDATES; i++) await writeOnce(() => [api], token, "PATCH", `/v1/projects/${project}`, { description: `update ${i}` });

        const events = async () => (await db("events").where("type", "like", "project.%").pluck("id")) as string[];
        await until(
          "every event delivered through the pooler",
          async () => (await events()).every((id) => receiver.received.has(id.slice(4))),
          120_000,
        ).catch(async (err: Error) => {
          const rows = await db("webhook_deliveries").select("status", "attempts", "response_excerpt").limit(3);
          const worker = processes.find((p) => p.role === "worker")!.process.output();
          throw new Error(`${err.message}; deliveries ${JSON.stringify(rows)}; worker:\n${worker.slice(-3000)}`);
        });
        assert.equal((await events()).length, UPDATES + 1, "project.created and one project.updated per change");
        const scheduled = await db.raw("select count(*)::int as n from pgboss.schedule");
        assert.ok((scheduled.rows[0] as { n: number }).n > 0, "the worker set pg-boss up on the direct address and scheduled its jobs");

        // A later start takes the migration lock again: none was left behind on a pooled session.
        for (const p of processes.splice(0)) assert.equal(await p.process.stop(), 0, `${p.role} stopped cleanly`);
        processes.push(await startRole("api", env));
        assert.equal((await call(processes[0]!.api!, token, "GET", "/v1/teams/current")).status, 200);
      } finally {
        await Promise.all(processes.map((p) => p.process.stop()));
        await receiver.close();
        await db.destroy();
        await database.drop();
      }
    });
  });
