// Every database wait is bounded (src/db/timeouts.ts), and a request that reaches a bound answers
// 503 SERVICE_BUSY with nothing of it kept, while other teams' requests go on.
import assert from "node:assert/strict";
import type { Knex } from "knex";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";
import { createTestCreator } from "../helpers/fixtures.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { openDatabase } from "../../src/db/database.ts";
import { DEFAULT_DATABASE_TIMEOUTS, isDatabaseTimeout } from "../../src/db/timeouts.ts";
import { toApiError } from "../../src/errors.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("bounded database waits", () => {
  describe("what counts as a wait past its bound", () => {
    it("knows the server's timeouts, knex's acquire timeout and pg's client-side ones, and nothing else", () => {
      for (const code of ["57014", "55P03", "25P03"]) assert.equal(isDatabaseTimeout(Object.assign(new Error("x"), { code })), true, code);
      const acquire = Object.assign(new Error("Knex: Timeout acquiring a connection. The pool is probably full."), { name: "KnexTimeoutError" });
      assert.equal(isDatabaseTimeout(acquire), true);
      assert.equal(isDatabaseTimeout(new Error("Query read timeout")), true);
      assert.equal(isDatabaseTimeout(new Error("select pg_sleep(60) - Query read timeout")), true, "as knex words it, the statement first");
      assert.equal(isDatabaseTimeout(new Error("Connection terminated due to connection timeout")), true);
      for (const other of [Object.assign(new Error("duplicate key"), { code: "23505" }), new Error("boom"), null, "57014", 42]) {
        assert.equal(isDatabaseTimeout(other), false, String(other));
      }
    });

    it("answers SERVICE_BUSY (503, Retry-After) for a timeout and the opaque 500 for anything else", () => {
      const busy = toApiError(Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" }));
      assert.equal(busy.code, "SERVICE_BUSY");
      assert.equal(busy.status, 503);
      assert.equal(busy.headers["Retry-After"], "1");
      assert.doesNotMatch(busy.message, /lock|statement|cancel/i, "the cause stays in the log");
      assert.equal(toApiError(new Error("boom")).code, "INTERNAL_SERVER_ERROR");
    });
  });

  describe("configuration", () => {
    it("defaults suited to an API, each one settable, and refuses values out of range naming the variable", () => {
      assert.deepEqual(loadConfig({}).databaseTimeouts, DEFAULT_DATABASE_TIMEOUTS);
      const set = loadConfig({
        DATABASE_STATEMENT_TIMEOUT_MS: "60000",
        DATABASE_LOCK_TIMEOUT_MS: "2000",
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "20000",
        DATABASE_CONNECT_TIMEOUT_MS: "3000",
        DATABASE_ACQUIRE_TIMEOUT_MS: "4000",
      }).databaseTimeouts;
      assert.deepEqual(set, { statementMs: 60_000, lockMs: 2_000, idleInTransactionMs: 20_000, connectMs: 3_000, acquireMs: 4_000 });
      for (const [name, value] of [
        ["DATABASE_LOCK_TIMEOUT_MS", "0"],
        ["DATABASE_STATEMENT_TIMEOUT_MS", "soon"],
        ["DATABASE_ACQUIRE_TIMEOUT_MS", "1.5"],
      ] as const) {
        assert.throws(
          () => loadConfig({ [name]: value }),
          (err: unknown) => err instanceof ConfigError && err.message.includes(name),
        );
      }
    });
  });

  describe("on PostgreSQL", function () {
    before(function () {
      if (!usingPostgres) this.skip();
    });

    let bounded: Knex;
    let api: RunningApi;
    before(async function () {
      if (!usingPostgres) return;
      const { databaseUrl } = await testDatabase();
      bounded = openDatabase({ url: databaseUrl, timeouts: { ...DEFAULT_DATABASE_TIMEOUTS, lockMs: 1_000, statementMs: 2_000 } });
      api = await startApi({ db: bounded });
    });
    after(async () => {
      await api?.close();
      await bounded?.destroy();
    });

    it("cuts a statement off at statement_timeout", async () => {
      await assert.rejects(bounded.raw("select pg_sleep(10)"), (err: unknown) => isDatabaseTimeout(err));
    });

    it("refuses a write blocked by a row lock another connection holds with SERVICE_BUSY, keeps nothing of it, and serves another team meanwhile", async () => {
      const { db } = await testDatabase();
      const a = await createTestCreator({ label: "locked" });
      const b = await createTestCreator({ label: "unaffected" });
      const clientA = new ApiClient(api.url, a.token);
      const clientB = new ApiClient(api.url, b.token);
      const before = (await db("teams").where({ id: a.teamId }).first("name")) as { name: string };
      const entriesBefore = Number(((await db("activity_log").where({ team_id: a.teamId }).count({ n: "*" })) as { n: string }[])[0]!.n);

      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      // Another connection (the run's own pool, not the app's) holds team A's row until told.
      const holder = db.transaction(async (trx) => {
        await trx("teams").where({ id: a.teamId }).forUpdate().first("id");
        locked();
        await released;
      });
      try {
        await holding;
        const blocked = clientA.request("PATCH", `/v1/teams/${a.teamId}`, { body: { name: "Renamed while locked" } });
        let blockedDone = false;
        void blocked.then(() => (blockedDone = true));
        // Team B is served while A's write waits: its reads and a write of its own complete first.
        for (let i = 0; i < 5; i++) assert.equal((await clientB.get("/v1/teams/current")).status, 200);
        assert.equal((await clientB.request("PATCH", `/v1/teams/${b.teamId}`, { body: { name: "B goes on" } })).status, 200);
        assert.equal(blockedDone, false, "A's write is still waiting for the lock");
        const refused = await blocked;
        expectError(refused, 503, "SERVICE_BUSY");
        assert.equal(refused.headers.get("retry-after"), "1");
      } finally {
        release();
        await holder;
      }
      const after = (await db("teams").where({ id: a.teamId }).first("name")) as { name: string };
      assert.equal(after.name, before.name, "the refused rename was not kept");
      const entriesAfter = Number(((await db("activity_log").where({ team_id: a.teamId }).count({ n: "*" })) as { n: string }[])[0]!.n);
      assert.equal(entriesAfter, entriesBefore, "no activity entry of the refused write");
      // Once the lock is gone the same write goes through.
      assert.equal((await clientA.request("PATCH", `/v1/teams/${a.teamId}`, { body: { name: "Renamed after" } })).status, 200);
    });
  });
});
