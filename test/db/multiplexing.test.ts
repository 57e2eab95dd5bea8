// Statements outside transactions share two pipelined connections (src/db/multiplexing.ts): on
// PostgreSQL (the run's database) and on the embedded database served on its socket. A failing
// statement fails alone, a transaction keeps a connection of its own, and the database closes
// with everything it opened.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { openDatabase } from "../../src/db/database.ts";
import { openEmbeddedDatabase } from "../../src/db/embedded.ts";
import { deferStatement, runTransaction } from "../../src/db/transaction.ts";
import { acquireTransactionLane, leaveNow } from "../../src/db/multiplexing.ts";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";

describe("multiplexed statements outside transactions", function () {
  this.timeout(60_000);
  const table = `mux_test_${randomBytes(3).toString("hex")}`;
  let db: Knex;
  let close: () => Promise<void>;

  before(async () => {
    if (usingPostgres) {
      db = openDatabase({ url: (await testDatabase()).databaseUrl });
      close = () => db.destroy();
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), "sb-mux-"));
      const embedded = await openEmbeddedDatabase({ dataDir, mode: "own" });
      db = embedded.db;
      close = async () => {
        await embedded.close();
        rmSync(dataDir, { recursive: true, force: true });
      };
    }
    await db.schema.createTable(table, (t) => {
      t.increments("id");
      t.text("name").notNullable();
    });
  });
  after(async () => {
    await db.schema.dropTableIfExists(table);
    await close();
  });

  it("runs many concurrent statements on at most two server sessions", async () => {
    const pids = await Promise.all(Array.from({ length: 64 }, () => db.raw("select pg_backend_pid() as pid")));
    const distinct = new Set(pids.map((r) => (r as { rows: { pid: number }[] }).rows[0]!.pid));
    assert.ok(distinct.size >= 1 && distinct.size <= 2, `sessions used: ${distinct.size}`);
  });

  it("fails a failing statement alone: those sent with it in the same write succeed", async () => {
    const outcomes = await Promise.allSettled([
      db.raw("select 1 as one"),
      db.raw("select 1 / 0 as broken"),
      db(table).insert({ name: "sent after the failure" }),
      db.raw("select 2 as two"),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled", "fulfilled"],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /division by zero/);
    assert.ok(await db(table).where({ name: "sent after the failure" }).first());
  });

  it("gives a transaction a connection of its own: its uncommitted row is not seen by shared statements", async () => {
    let inserted!: () => void;
    const rowWritten = new Promise<void>((resolve) => (inserted = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const transaction = runTransaction(db, async (trx) => {
      await trx(table).insert({ name: "uncommitted" });
      inserted();
      await gate;
    });
    await rowWritten;
    if (usingPostgres) {
      // Another session: the row is invisible until COMMIT, and the read is not held up by it.
      assert.equal(await db(table).where({ name: "uncommitted" }).first(), undefined);
      release();
      await transaction;
    } else {
      // The embedded database is one PostgreSQL session: the read waits for the transaction to end.
      const read = db(table).where({ name: "uncommitted" }).first();
      release();
      await transaction;
      assert.ok(await read);
    }
    assert.ok(await db(table).where({ name: "uncommitted" }).first());
  });

  it("sends transactions of deferred statements whole on lanes of their own, kept apart from each other and from the shared statements", async () => {
    await db(table).insert({ name: "unique taken" });
    await db.raw(`create unique index if not exists ${table}_unique_taken on ${table} (name) where name like 'unique %'`);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        runTransaction(db, async (trx) => {
          deferStatement(trx, `insert into ${table} (name) values (? || ' ' || pg_backend_pid())`, [`lane ${i}`]);
          deferStatement(trx, `insert into ${table} (name) values (?)`, [i % 5 === 0 ? "unique taken" : `unique ${i}`]);
        }),
      ),
    );
    // Reads issued at the same time are answered on the statements' own connections.
    const reads = await Promise.all(Array.from({ length: 20 }, () => db.raw("select pg_backend_pid() as pid")));
    const readSessions = new Set(reads.map((r) => (r as { rows: { pid: number }[] }).rows[0]!.pid));
    assert.ok(readSessions.size <= 2);
    const committed = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [i] : []));
    assert.deepEqual(
      committed,
      Array.from({ length: 20 }, (_, i) => i).filter((i) => i % 5 !== 0),
    );
    const lanes = (await db(table).where("name", "like", "lane %").pluck("name")) as string[];
    const laneOf = (name: string) => name.split(" ").slice(0, 2).join(" ");
    assert.deepEqual(lanes.map(laneOf).sort(), committed.map((i) => `lane ${i}`).sort(), "a failed transaction's first insert rolled back with it");
    if (usingPostgres) {
      const laneSessions = new Set(lanes.map((name) => Number(name.split(" ")[2])));
      assert.ok(laneSessions.size <= 2, `20 transactions at once ran on ${laneSessions.size} sessions, not borrowed connections`);
      for (const pid of laneSessions) assert.ok(!readSessions.has(pid), "the lanes are not the statements' connections");
    }
  });

  it("holds what a turn of the event loop sends for one write at its end, unless told to let it leave now", async () => {
    const lane = (await acquireTransactionLane(db)) as { connection: { stream: { writableCorked: number } } };
    const stream = lane.connection.stream;
    const send = (sql: string) => (db.client as unknown as { _query(c: unknown, o: unknown): Promise<unknown> })._query(lane, { sql, bindings: [] });
    const held = send("select 1 as held");
    assert.equal(stream.writableCorked, 1, "corked until the end of the turn");
    await held;
    assert.equal(stream.writableCorked, 0);
    // From the end of a turn (where commit groups are formed), a statement corked there would wait
    // for the next turn's end; leaveNow writes it at once.
    const left = await new Promise<Promise<unknown>>((resolve, reject) =>
      setImmediate(() => {
        const sent = send("select 2 as left");
        leaveNow(lane);
        // Asserted outside this callback: a throw here would leave the test waiting, not failing.
        if (stream.writableCorked === 0) resolve(sent);
        else reject(new Error(`still corked (${stream.writableCorked}) after leaveNow`));
      }),
    );
    assert.deepEqual(((await left) as { response: { rows: unknown[] } }).response.rows, [{ left: 2 }]);
  });

  if (usingPostgres) {
    // PostgreSQL only: the embedded database has one session, which these would end or hold.
    it("replaces a shared connection whose server session ended", async () => {
      const before = (await db.raw("select pg_backend_pid() as pid")).rows[0].pid as number;
      const admin = openDatabase({ url: (await testDatabase()).databaseUrl });
      try {
        await admin.raw("select pg_terminate_backend(?)", [before]);
      } finally {
        await admin.destroy();
      }
      // Statements on the ended session fail as on any lost connection, until the client notices
      // it ended; then every statement is answered, and never by the ended session.
      let recovered = false;
      for (let attempt = 0; attempt < 50 && !recovered; attempt++) {
        const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => db.raw("select pg_backend_pid() as pid")));
        recovered = outcomes.every((o) => o.status === "fulfilled" && o.value.rows[0].pid !== before);
        if (!recovered) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(recovered, "the shared connection was not replaced");
    });

    it("sends statements to the other connection while one is held up by a slow statement", async () => {
      const slow = db.raw("select pg_sleep(2)");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      await Promise.all(Array.from({ length: 10 }, () => db.raw("select 1 as one")));
      const waited = Date.now() - started;
      await slow;
      assert.ok(waited < 1500, `quick statements waited ${waited} ms behind the slow one`);
    });
  }
});
