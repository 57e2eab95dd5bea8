// Prepared statements for repeated statement texts (src/db/statement-cache.ts): which texts are
// named, that PostgreSQL really holds them prepared, the bound on how many, and the recovery when
// a migration changes a prepared statement's result columns. The server part runs on PostgreSQL
// only (the embedded database never prepares: its clients share one PGlite session).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { openDatabase } from "../../src/db/database.ts";
import { acquireExclusive, releaseExclusive } from "../../src/db/multiplexing.ts";
import pg from "pg";
import { prepareStatementsOn, StatementCache, type PgQueryable } from "../../src/db/statement-cache.ts";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";

describe("statement cache (prepared statements)", () => {
  it("names a text from its second run on, always by the same name, and never more texts than its capacity", () => {
    const cache = new StatementCache(2);
    assert.equal(cache.nameFor("select $1"), undefined, "a text run once stays unnamed");
    const name = cache.nameFor("select $1");
    assert.match(name ?? "", /^sb_[0-9a-f]{20}$/);
    assert.equal(cache.nameFor("select $1"), name);
    cache.nameFor("select $1, $2");
    const second = cache.nameFor("select $1, $2");
    assert.ok(second && second !== name);
    cache.nameFor("select $1, $2, $3");
    assert.equal(cache.nameFor("select $1, $2, $3"), undefined, "beyond capacity a text runs unnamed");
    assert.equal(cache.size, 2);
    assert.equal(cache.nameFor("select $1"), name, "the prepared ones keep their names");
  });

  if (!usingPostgres) return;

  describe("on PostgreSQL", function () {
    this.timeout(60_000);
    const table = `prep_test_${randomBytes(3).toString("hex")}`;
    let db: Knex;
    let url: string;

    before(async () => {
      url = (await testDatabase()).databaseUrl!;
      db = openDatabase({ url, preparedStatements: 8 });
      await db.schema.createTable(table, (t) => {
        t.integer("a");
      });
      await db(table).insert([{ a: 1 }, { a: 2 }]);
    });
    after(async () => {
      await db.schema.dropTableIfExists(table);
      await db.destroy();
    });

    /** The statements prepared in the session of `connection`. */
    async function preparedOn(connection: unknown): Promise<string[]> {
      const { rows } = (await db.raw("select statement from pg_prepared_statements").connection(connection)) as { rows: { statement: string }[] };
      return rows.map((r) => r.statement);
    }

    it("prepares a repeated text on the connection that runs it, and leaves a one-off text unprepared", async () => {
      const connection = await acquireExclusive(db);
      try {
        for (let i = 0; i < 3; i++) await db.raw(`select a from ${table} where a = ?`, [1]).connection(connection);
        await db.raw(`select a from ${table} where a > ?`, [0]).connection(connection);
        const prepared = await preparedOn(connection);
        assert.ok(prepared.includes(`select a from ${table} where a = $1`), prepared.join("\n"));
        assert.ok(!prepared.includes(`select a from ${table} where a > $1`), "run once: not prepared");
      } finally {
        await releaseExclusive(db, connection);
      }
    });

    it("never relies on a Parse the server has not confirmed: one refused in an aborted transaction leaves the next statement unharmed", async () => {
      const client = new pg.Client({ connectionString: url, pipeline: true } as pg.ClientConfig);
      await client.connect();
      try {
        prepareStatementsOn(client as unknown as PgQueryable, new StatementCache(8));
        const text = "select $1::int as n";
        await client.query({ text, values: [1] }); // run once: unnamed
        // Pipelined without waiting: the second run of the text is its first named one, and its
        // Parse arrives in a transaction the division already aborted, so the server refuses it.
        const batch = [
          client.query({ text: "BEGIN" }),
          client.query({ text: "select 1 / $1::int", values: [0] }),
          client.query({ text, values: [2] }),
          client.query({ text: "COMMIT" }),
          client.query({ text, values: [3] }),
        ];
        const outcomes = await Promise.allSettled(batch);
        assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /division by zero/);
        assert.equal(outcomes[2]!.status, "rejected", "refused: its transaction was aborted");
        const after = outcomes[4] as PromiseFulfilledResult<{ rows: { n: number }[] }>;
        assert.equal(after.status, "fulfilled", String((outcomes[4] as PromiseRejectedResult).reason));
        assert.equal(after.value.rows[0]!.n, 3);
        assert.equal((await client.query({ text, values: [4] })).rows[0].n, 4, "and the text is prepared again afterwards");
      } finally {
        await client.end();
      }
    });

    it("answers with fresh rows through a prepared statement", async () => {
      const count = async () =>
        Number(((await db.raw(`select count(*)::int as n from ${table} where a >= ?`, [0])) as { rows: { n: number }[] }).rows[0]!.n);
      const before = await count();
      await count();
      await db(table).insert({ a: 3 });
      assert.equal(await count(), before + 1);
      await db(table).where({ a: 3 }).del();
    });

    it("replaces a connection whose prepared statement's result columns changed under it, failing that statement once", async () => {
      const select = () => db.raw(`select * from ${table} where a = ?`, [1]);
      for (let i = 0; i < 6; i++) await select(); // prepared on the shared connections
      const other = openDatabase({ url, preparedStatements: 0 });
      try {
        await other.raw(`alter table ${table} add column b text`);
      } finally {
        await other.destroy();
      }
      const failures: string[] = [];
      let answered: Record<string, unknown>[] | null = null;
      for (let attempt = 0; attempt < 6 && !answered; attempt++) {
        try {
          answered = ((await select()) as { rows: Record<string, unknown>[] }).rows;
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
      assert.ok(answered, `never answered: ${failures.join("; ")}`);
      assert.deepEqual(Object.keys(answered[0]!).sort(), ["a", "b"], "the new column is seen once the statement is prepared again");
      assert.ok(failures.length <= 2, `at most once per shared connection: ${failures.join("; ")}`);
      for (const message of failures) assert.match(message, /cached plan must not change result type/);
    });
  });
});
