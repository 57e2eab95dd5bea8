// Write transactions are knex's own on both test backends (PostgreSQL through pg, PGlite in
// memory): statements run in program order, a failure surfaces at the statement that caused it,
// the change and its activity entry commit together or not at all, nesting is a savepoint, and a
// handle used after its transaction ended throws instead of running anywhere else.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { testDatabase } from "../helpers/backends.ts";
import { createDomainContext, inTransaction, systemActor, unscoped } from "../../src/db/tenant.ts";
import { recordActivity } from "../../src/modules/activity/activity-log.ts";
import { uniquely } from "../../src/db/unique.ts";
import { ApiError } from "../../src/errors.ts";

describe("write transactions (knex's own)", () => {
  const table = `tx_test_${randomBytes(3).toString("hex")}`;
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
  const entries = async (teamId: string) =>
    ((await db("activity_log").where({ team_id: teamId }).select("description")) as { description: string }[]).map((r) => r.description);

  it("runs statements in program order: a read after the activity entry sees it, in the same transaction", async () => {
    const teamId = randomUUID();
    const seen = await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(teamId), new Date());
      await trx(table).insert({ name: "change" });
      await recordActivity(ctx, { event: "created", description: "its entry", subjectType: "team", subjectId: teamId });
      return trx("activity_log").where({ team_id: teamId }).count<{ count: string | number }[]>({ count: "*" });
    });
    assert.equal(Number(seen[0]!.count), 1, "the entry is visible to the transaction that wrote it");
    assert.deepEqual(await names(), ["change"]);
    assert.deepEqual(await entries(teamId), ["its entry"]);
  });

  it("fails at the statement that broke a constraint, where uniquely() turns it into the refusal; nothing is kept", async () => {
    const teamId = randomUUID();
    await db(table).insert({ name: "taken" });
    let after = false;
    await assert.rejects(
      db.transaction(async (trx) => {
        const ctx = createDomainContext(trx, systemActor(teamId), new Date());
        await recordActivity(ctx, { event: "created", description: "entry of a refused change", subjectType: "team", subjectId: teamId });
        await uniquely(trx(table).insert({ name: "taken" }), () => new ApiError("VALIDATION_FAILED", "The name is taken."));
        after = true;
      }),
      (err: unknown) => err instanceof ApiError && err.code === "VALIDATION_FAILED",
    );
    assert.equal(after, false, "the handler stopped at the failing statement");
    assert.deepEqual(await names(), ["taken"]);
    assert.deepEqual(await entries(teamId), [], "the entry rolled back with the change");
  });

  it("rolls everything back when the work throws after its statements ran", async () => {
    await assert.rejects(
      db.transaction(async (trx) => {
        await trx(table).insert({ name: "first" });
        await trx(table).insert({ name: "second" });
        throw new Error("refused after writing");
      }),
      /refused after writing/,
    );
    assert.deepEqual(await names(), []);
  });

  it("rolls back after a failed statement, and the pool serves the next transactions", async () => {
    await db(table).insert({ name: "taken" });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        db.transaction(async (trx) => {
          await trx(table).insert({ name: `kept out ${i}` });
          await trx(table).insert({ name: "taken" });
        }),
        /duplicate key|unique/i,
      );
    }
    await db.transaction((trx) => trx(table).insert({ name: "after" }));
    assert.deepEqual(await names(), ["taken", "after"]);
  });

  it("nests as a savepoint (inTransaction): a failed inner change leaves the outer one's statements and entries", async () => {
    const teamId = randomUUID();
    await db.transaction(async (trx) => {
      const ctx = createDomainContext(trx, systemActor(teamId), new Date());
      await unscoped(ctx, "test table")(table).insert({ name: "outer" });
      await recordActivity(ctx, { event: "e", description: "outer entry", subjectType: "team", subjectId: teamId });
      await assert.rejects(
        inTransaction(ctx, async (inner) => {
          await unscoped(inner, "test table")(table).insert({ name: "inner, rolled back" });
          await recordActivity(inner, { event: "e", description: "inner entry, rolled back", subjectType: "team", subjectId: teamId });
          throw new Error("inner fails");
        }),
        /inner fails/,
      );
      await inTransaction(ctx, (inner) => unscoped(inner, "test table")(table).insert({ name: "inner, kept" }));
    });
    assert.deepEqual(await names(), ["outer", "inner, kept"]);
    assert.deepEqual(await entries(teamId), ["outer entry"]);
  });

  it("refuses a handle used after its transaction ended, rather than running it anywhere", async () => {
    let kept: Knex.Transaction | null = null;
    await db.transaction(async (trx) => {
      await trx(table).insert({ name: "awaited" });
      kept = trx;
    });
    await assert.rejects(
      Promise.resolve().then(() => kept!(table).insert({ name: "left running" })),
      /Transaction query already complete/,
    );
    await db.transaction((trx) => trx(table).insert({ name: "next" }));
    assert.deepEqual(await names(), ["awaited", "next"]);
  });

  it("keeps concurrent transactions apart: each commits or rolls back whole", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        db.transaction(async (trx) => {
          await trx(table).insert({ name: `t${i} a` });
          if (i % 2) throw new Error(`t${i} refused`);
          await trx(table).insert({ name: `t${i} b` });
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled", "rejected", "fulfilled", "rejected", "fulfilled", "rejected"],
    );
    assert.deepEqual((await names()).sort(), ["t0 a", "t0 b", "t2 a", "t2 b", "t4 a", "t4 b", "t6 a", "t6 b"]);
  });
});
