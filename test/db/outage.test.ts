// A database outage (src/db/outage.ts) is told apart from anything a request asked for, and answers
// SERVICE_BUSY; a session of the process's own that the server ends (the start's lock session, a
// pooled connection of knex or pg-boss) does not end the process.
import assert from "node:assert/strict";
import pino from "pino";
import { exclusively, openDatabase } from "../../src/db/database.ts";
import { isDatabaseUnreachable } from "../../src/db/outage.ts";
import { toApiError } from "../../src/errors.ts";
import { KvUnavailableError } from "../../src/kv/kv.ts";
import { startJobWorker } from "../../src/workers/jobs/worker.ts";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";
import { createTestCreator } from "../helpers/fixtures.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { startApi } from "../helpers/server.ts";

const pgError = (code: string, severity: string, message = "x") => Object.assign(new Error(message), { code, severity });

describe("a database outage", () => {
  it("knows a terminated, refused, restarting or unreachable database, and nothing a request could cause", () => {
    const outages = [
      pgError("57P01", "FATAL", "terminating connection due to administrator command"),
      pgError("55000", "FATAL", 'database "x" is not currently accepting connections'),
      pgError("57P03", "FATAL", "the database system is starting up"),
      pgError("53300", "FATAL", "sorry, too many clients already"),
      pgError("08006", "ERROR"),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      new Error("Connection terminated unexpectedly"),
      // knex puts the statement first.
      new Error('select * from "teams" where "teams"."id" = $1 limit $2 - Connection terminated unexpectedly'),
      new Error("Client has encountered a connection error and is not queryable"),
    ];
    for (const err of outages) assert.equal(isDatabaseUnreachable(err), true, err.message);
    const requestFaults = [
      pgError("23505", "ERROR", "duplicate key"),
      pgError("55000", "ERROR", "not in prerequisite state"),
      pgError("22P02", "ERROR"),
      new Error("boom"),
      null,
      "57P01",
    ];
    for (const err of requestFaults) assert.equal(isDatabaseUnreachable(err), false, String(err));
  });

  it("answers SERVICE_BUSY (503, Retry-After) for an outage of the database or the KV store, the cause kept out of the message", () => {
    for (const err of [
      pgError("57P01", "FATAL", "terminating connection due to administrator command"),
      new KvUnavailableError("Redis: The client is offline"),
    ]) {
      const busy = toApiError(err);
      assert.equal(busy.code, "SERVICE_BUSY");
      assert.equal(busy.status, 503);
      assert.equal(busy.headers["Retry-After"], "1");
      assert.doesNotMatch(busy.message, /terminating|offline|administrator/);
    }
  });

  it("answers a request whose database connection was reset (ECONNRESET) with SERVICE_BUSY, not as a client that hung up", async () => {
    const creator = await createTestCreator({ label: "reset" });
    const api = await startApi({
      handlers: {
        async get_current_team() {
          throw Object.assign(new Error('select * from "teams" - read ECONNRESET'), { code: "ECONNRESET" });
        },
      },
    });
    try {
      const res = await new ApiClient(api.url, creator.token).get("/v1/teams/current");
      expectError(res, 503, "SERVICE_BUSY");
    } finally {
      await api.close();
    }
  });

  describe("on PostgreSQL", function () {
    before(function () {
      if (!usingPostgres) this.skip();
    });

    it("outlives the session that holds a start's advisory lock being terminated while the work runs", async () => {
      const { db } = await testDatabase();
      const result = await exclusively(db, "5313092467716399", async () => {
        const holder = (await db.raw(
          "select pid from pg_locks where locktype = 'advisory' and objid = (5313092467716399::bigint & x'ffffffff'::bigint)",
        )) as {
          rows: { pid: number }[];
        };
        assert.equal(holder.rows.length, 1, "the lock's session");
        await db.raw("select pg_terminate_backend(?)", [holder.rows[0]!.pid]);
        // The server's notice reaches the idle session: unheard, its 'error' event would end the process.
        await new Promise((r) => setTimeout(r, 300));
        return "done";
      });
      assert.equal(result, "done");
    });

    it("outlives the idle connections of a knex pool and of pg-boss's being terminated", async () => {
      const url = new URL((await testDatabase()).databaseUrl!);
      url.searchParams.set("application_name", "outage-test");
      const db = openDatabase({ url: url.toString() });
      const worker = await startJobWorker({ db, logger: pino({ level: "silent" }), jobs: [] });
      try {
        await db.raw("select 1");
        const { db: admin } = await testDatabase();
        const ended = (await admin.raw(
          "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = 'outage-test'",
        )) as {
          rows: { n: number }[];
        };
        assert.ok(ended.rows[0]!.n >= 2, `${ended.rows[0]!.n} sessions: the pool's and pg-boss's`);
        // The notices reach the idle connections; unheard, the first would end the process.
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual((await db.raw("select 1 as one")).rows, [{ one: 1 }], "the pool opens a new connection");
      } finally {
        await worker.stop();
        await db.destroy();
      }
    });
  });
});
