// runTransaction on the test backend (PostgreSQL, pipelined; PGlite in memory, one statement at a
// time): the change and what it deferred to COMMIT commit together or not at all, nesting is a
// savepoint, and concurrent transactions keep apart.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";
import { deferQuery, deferStatement, runTransaction } from "../../src/db/transaction.ts";
import { nextSequenceValue } from "../../src/db/sequences.ts";
import { transactionLanes } from "../../src/db/multiplexing.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import { recordActivity } from "../../src/modules/activity/activity-log.ts";

describe("write transactions (runTransaction)", () => {
  const table = `tx_test_${randomBytes(3).toString("hex")}`;
  const insertName = `insert into ${table} (name) values (?)`;
  let db: Knex;

  before(async () => {
    db = (await testDatabase()).db;
    await db.schema.createTable(table, (t) => {
      t.increments("id");
      t.text("name").notNullable().unique();
    });
  });
  after(async () => {
    await db.schema.dropTableIfExists(table);
  });
  beforeEach(async () => {
    await db(table).del();
  });

  const names = async () => ((await db(table).orderBy("id").select("name")) as { name: string }[]).map((r) => r.name);

  it("commits the statements and what was deferred to COMMIT together; the deferred statement runs only then", async () => {
    const seen = await runTransaction(db, async (trx) => {
      await trx(table).insert({ name: "change" });
      assert.equal(deferStatement(trx, insertName, ["its entry"]), true);
      return trx(table).orderBy("id").pluck("name");
    });
    assert.deepEqual(seen, ["change"]);
    assert.deepEqual(await names(), ["change", "its entry"]);
  });

  it("rolls the change back when a deferred statement fails at COMMIT: never a partial write", async () => {
    await assert.rejects(
      runTransaction(db, async (trx) => {
        await trx(table).insert({ name: "change" });
        deferStatement(trx, insertName, ["change"]); // violates the unique name
      }),
      /duplicate key|unique/i,
    );
    assert.deepEqual(await names(), []);
  });

  it("rolls everything back when the work throws after its statements ran", async () => {
    await assert.rejects(
      runTransaction(db, async (trx) => {
        await trx(table).insert({ name: "first" });
        deferStatement(trx, insertName, ["deferred"]);
        await trx(table).insert({ name: "second" });
        throw new Error("refused after writing");
      }),
      /refused after writing/,
    );
    assert.deepEqual(await names(), []);
  });

  it("rolls back after a failed statement, and the connection serves the next transactions", async () => {
    await db(table).insert({ name: "taken" });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        runTransaction(db, async (trx) => {
          await trx(table).insert({ name: `kept out ${i}` });
          await trx(table).insert({ name: "taken" });
        }),
        /duplicate key|unique/i,
      );
    }
    await runTransaction(db, (trx) => trx(table).insert({ name: "after" }));
    assert.deepEqual(await names(), ["taken", "after"]);
  });

  it("nests as a savepoint: a failed inner transaction leaves the outer one's statements", async () => {
    await runTransaction(db, async (trx) => {
      await trx(table).insert({ name: "outer" });
      await assert.rejects(
        runTransaction(trx, async (inner) => {
          await inner(table).insert({ name: "inner, rolled back" });
          throw new Error("inner fails");
        }),
        /inner fails/,
      );
      await runTransaction(trx, (inner) => inner(table).insert({ name: "inner, kept" }));
    });
    assert.deepEqual(await names(), ["outer", "inner, kept"]);
  });

  it("keeps what a savepoint defers in its place, and drops it with a failed savepoint", async () => {
    await runTransaction(db, async (trx) => {
      deferStatement(trx, insertName, ["first"]);
      await runTransaction(trx, async (inner) => {
        assert.equal(deferStatement(inner, insertName, ["second, in a kept savepoint"]), true);
      });
      await assert.rejects(
        runTransaction(trx, async (inner) => {
          deferStatement(inner, insertName, ["dropped with its savepoint"]);
          throw new Error("inner fails");
        }),
        /inner fails/,
      );
      deferStatement(trx, insertName, ["third"]);
    });
    assert.deepEqual(await names(), ["first", "second, in a kept savepoint", "third"]);
  });

  it("nests before any statement ran (the savepoint needs its transaction begun)", async () => {
    await runTransaction(db, async (trx) => {
      await runTransaction(trx, (inner) => inner(table).insert({ name: "in the savepoint" }));
      deferStatement(trx, insertName, ["deferred"]);
    });
    assert.deepEqual(await names(), ["in the savepoint", "deferred"]);
  });

  it("runs a transaction of deferred statements only, and one of no statement at all", async () => {
    assert.equal(await runTransaction(db, async () => 42), 42);
    await runTransaction(db, async (trx) => {
      deferStatement(trx, insertName, ["one"]);
      deferStatement(trx, insertName, ["two"]);
    });
    assert.deepEqual(await names(), ["one", "two"]);
  });

  it("says a handle outside such a transaction cannot defer (the caller runs the statement itself)", () => {
    assert.equal(deferStatement(db, insertName, ["never"]), false);
  });

  it("keeps concurrent transactions apart: each commits or rolls back whole", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        runTransaction(db, async (trx) => {
          await trx(table).insert({ name: `change ${i}` });
          deferStatement(trx, insertName, [`entry ${i}`]);
          if (i % 5 === 0) throw new Error(`refused ${i}`);
        }),
      ),
    );
    const committed = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [i] : []));
    assert.deepEqual(
      committed,
      Array.from({ length: 24 }, (_, i) => i).filter((i) => i % 5 !== 0),
    );
    assert.deepEqual((await names()).sort(), committed.flatMap((i) => [`change ${i}`, `entry ${i}`]).sort());
  });

  /** Connections the transaction borrowed from the pool (shared statements borrow none). */
  const borrowed = () => (db.client as { pool: { numUsed(): number } }).pool.numUsed();

  it("borrows its connection only for its first statement sent; one that only deferred goes whole at COMMIT, on a shared lane where the database multiplexes", async () => {
    const idle = borrowed();
    let requests = 0;
    const pool = (db.client as { pool: { on(event: string, f: () => void): void; removeListener(event: string, f: () => void): void } }).pool;
    const count = () => void requests++;
    pool.on("acquireRequest", count);
    try {
      await runTransaction(db, async (trx) => {
        deferQuery(trx, trx(table).insert({ name: "blind" }));
        deferStatement(trx, insertName, ["entry"]);
        assert.equal(borrowed(), idle, "nothing borrowed before COMMIT");
      });
    } finally {
      pool.removeListener("acquireRequest", count);
    }
    assert.equal(
      requests,
      usingPostgres ? 0 : 1,
      usingPostgres ? "a transaction lane, not the pool" : "PGlite in memory: its one connection, at COMMIT",
    );
    assert.deepEqual(await names(), ["blind", "entry"]);
    await runTransaction(db, async (trx) => {
      await trx(table).insert({ name: "live" });
      assert.equal(borrowed(), idle + 1, "a statement sent now borrows the connection");
    });
    assert.equal(borrowed(), idle, "given back");
  });

  it("fails the whole change at COMMIT when a row inserted blind breaks a constraint", async () => {
    await db(table).insert({ name: "taken" });
    await assert.rejects(
      runTransaction(db, async (trx) => {
        deferStatement(trx, insertName, ["kept out"]);
        assert.equal(deferQuery(trx, trx(table).insert({ name: "taken" })), true);
      }),
      /duplicate key|unique/i,
    );
    assert.deepEqual(await names(), ["taken"]);
  });

  it("sends a row inserted blind before any later statement of its transaction, which may refer to it (a foreign key), savepoints included", async () => {
    const child = `${table}_child`;
    await db.schema.createTable(child, (t) => {
      t.integer("parent_id").notNullable().references("id").inTable(table);
    });
    try {
      await runTransaction(db, async (trx) => {
        const id = Number(await nextSequenceValue(trx, `${table}_id_seq`));
        deferQuery(trx, trx(table).insert({ id, name: "parent" }));
        await trx(child).insert({ parent_id: id });
        const second = Number(await nextSequenceValue(trx, `${table}_id_seq`));
        deferQuery(trx, trx(table).insert({ id: second, name: "parent of a savepoint's row" }));
        await runTransaction(trx, (inner) => inner(child).insert({ parent_id: second }));
        deferStatement(trx, insertName, ["entry, at COMMIT"]);
      });
      assert.deepEqual((await names()).sort(), ["entry, at COMMIT", "parent", "parent of a savepoint's row"]);
      assert.equal((await db(child).pluck("parent_id")).length, 2);

      await db(table).insert({ name: "taken" });
      await assert.rejects(
        runTransaction(db, async (trx) => {
          deferQuery(trx, trx(table).insert({ name: "taken" }));
          await trx(child).select("parent_id"); // the blind row goes first, and its failure is what this sees
        }),
        /duplicate key|unique/i,
      );
    } finally {
      await db.schema.dropTableIfExists(child);
    }
  });

  it("refuses a statement its transaction left running after it ended, rather than running it in another", async () => {
    let late: Promise<unknown> | null = null;
    // The late statement is sent once runTransaction has returned (not after a timer, which a
    // loaded machine could outrun with the COMMIT still on its way).
    let ended!: () => void;
    const transactionEnded = new Promise<void>((resolve) => (ended = resolve));
    await runTransaction(db, async (trx) => {
      await trx(table).insert({ name: "awaited" });
      late = transactionEnded.then(() => trx(table).insert({ name: "left running" }));
    });
    ended();
    await assert.rejects(late!, /after its transaction ended/);
    await runTransaction(db, (trx) => trx(table).insert({ name: "next" }));
    assert.deepEqual(await names(), ["awaited", "next"]);
  });

  it("takes sequence values outside a transaction that sent nothing yet, and on its own connection once it has one", async () => {
    const sequence = `${table}_id_seq`;
    const taken = new Set<string>();
    const idle = borrowed();
    await runTransaction(db, async (trx) => {
      taken.add(await nextSequenceValue(trx, sequence));
      assert.equal(borrowed(), idle, "the transaction borrowed nothing for it");
      await trx(table).insert({ name: "holds the connection" });
      // A pool of one (PGlite in memory) would wait on itself if this went outside the transaction.
      for (let i = 0; i < 40; i++) taken.add(await nextSequenceValue(trx, sequence));
    });
    const concurrent = await Promise.all(Array.from({ length: 40 }, () => nextSequenceValue(db, sequence)));
    for (const id of concurrent) taken.add(id);
    assert.equal(taken.size, 81, "every value is handed out once");
    for (const id of taken) assert.match(id, /^[1-9][0-9]*$/);
  });

  it("keeps transactions sent whole apart on their shared lanes: a failing one rolls back alone", async () => {
    await db(table).insert({ name: "taken" });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        runTransaction(db, async (trx) => {
          deferStatement(trx, insertName, [`change ${i}`]);
          deferQuery(trx, trx(table).insert({ name: i % 4 === 0 ? "taken" : `entry ${i}` }));
        }),
      ),
    );
    const committed = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [i] : []));
    assert.deepEqual(
      committed,
      Array.from({ length: 24 }, (_, i) => i).filter((i) => i % 4 !== 0),
    );
    for (const o of outcomes) if (o.status === "rejected") assert.match(String(o.reason), /duplicate key|unique/i);
    assert.deepEqual((await names()).sort(), ["taken", ...committed.flatMap((i) => [`change ${i}`, `entry ${i}`])].sort());
    assert.equal(((await db.raw("select 1 as one")) as { rows: { one: number }[] }).rows[0]!.one, 1, "the shared connections still answer");
  });

  if (usingPostgres) {
    /** What the transaction lanes are sent while `work` runs: statement texts, in order. */
    async function sentOnLanes(work: () => Promise<unknown>): Promise<string[]> {
      const lanes = (await transactionLanes(db)) as { query: (...a: unknown[]) => unknown }[];
      assert.equal(lanes.length, 2);
      const sent: string[] = [];
      const originals = lanes.map((lane) => lane.query);
      lanes.forEach((lane, i) => {
        lane.query = (config: unknown, ...rest: unknown[]) => {
          sent.push(typeof config === "string" ? config : (config as { text: string }).text);
          return originals[i]!.call(lane, config, ...rest);
        };
      });
      try {
        await work();
      } finally {
        lanes.forEach((lane, i) => (lane.query = originals[i]!));
      }
      return sent;
    }

    it("sends a transaction of independent inserts as one statement, which commits whole or not at all", async () => {
      const other = `${table}_other`;
      await db.schema.createTable(other, (t) => {
        t.text("name").notNullable().unique();
      });
      try {
        const sent = await sentOnLanes(() =>
          runTransaction(db, async (trx) => {
            deferQuery(trx, trx(table).insert({ name: "one statement" }));
            deferQuery(trx, trx(other).insert({ name: "same statement" }));
          }),
        );
        assert.equal(sent.length, 1, sent.join("\n"));
        assert.match(sent[0]!, /^with s0 as \(insert into .+\), s1 as \(insert into .+\) select$/);
        assert.deepEqual(await names(), ["one statement"]);
        assert.deepEqual(await db(other).pluck("name"), ["same statement"]);

        await assert.rejects(
          runTransaction(db, async (trx) => {
            deferQuery(trx, trx(table).insert({ name: "kept out" }));
            deferQuery(trx, trx(other).insert({ name: "same statement" })); // taken
          }),
          /duplicate key|unique/i,
        );
        assert.deepEqual(await names(), ["one statement"], "the first part rolled back with the second");
      } finally {
        await db.schema.dropTableIfExists(other);
      }
    });

    it("commits transactions of independent inserts that wait for a lane together, as one statement", async () => {
      const sent = await sentOnLanes(() =>
        Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            runTransaction(db, async (trx) => {
              deferQuery(trx, trx(table).insert({ name: `change ${i}` }));
              deferQuery(trx, trx(table).insert({ name: `entry ${i}` }));
            }),
          ),
        ),
      );
      assert.ok(
        sent.every((text) => text.startsWith("with s0 as")),
        `every transaction, and every group of them, is one statement:\n${sent.join("\n")}`,
      );
      const parts = sent.map((text) => text.match(/s\d+ as \(/g)!.length);
      assert.equal(
        parts.reduce((a, b) => a + b, 0),
        24,
        "each transaction's two inserts sent once",
      );
      assert.ok(sent.length < 12 && parts.some((n) => n > 2), `the transactions that waited went together: ${parts.join(", ")} parts`);
      assert.equal((await names()).length, 24);
    });

    it("merges deferred activity rows into one insert, in the order they were recorded", async () => {
      const teamId = crypto.randomUUID();
      const sent = await sentOnLanes(() =>
        runTransaction(db, async (trx) => {
          const ctx = createDomainContext(trx, systemActor(teamId), new Date());
          for (const n of [1, 2, 3]) await recordActivity(ctx, { event: "e", description: `entry ${n}`, subjectType: "team", subjectId: teamId });
        }),
      );
      assert.equal(sent.length, 1, "three entries, one statement");
      const rows = (await db("activity_log").where({ team_id: teamId }).orderBy("seq").pluck("description")) as string[];
      assert.deepEqual(rows, ["entry 1", "entry 2", "entry 3"]);
    });
  }
});
