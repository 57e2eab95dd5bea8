// Group commit on the transaction lanes (src/db/commit-groups.ts), against a connection that
// answers as PostgreSQL does for these statements (one statement commits whole or not at all), so
// every outcome can be forced: the real lanes are covered by transaction.test.ts.
import assert from "node:assert/strict";
import { CommitGroups } from "../../src/db/commit-groups.ts";
import type { Compiled, QueryObject } from "../../src/db/deferred-statements.ts";

interface Fake {
  groups: CommitGroups;
  /** Every statement sent, in order: its text and the values it bound. */
  sent: { sql: string; values: unknown[] }[];
  /** Values whose row was committed, in commit order. */
  committed: string[];
}

/**
 * A connection that answers a moment later (so what is submitted meanwhile queues). A statement is
 * one insert or a WITH of several; it inserts its values. A value starting "fail" breaks a
 * constraint (SQLSTATE 23505) and nothing of its statement is written; with `lost`, a statement of
 * several parts gets no answer (the connection drops: an error without a SQLSTATE).
 */
function fakeDatabase(options: { lost?: boolean } = {}): Fake {
  const sent: Fake["sent"] = [];
  const committed: string[] = [];
  const send = (_lane: unknown, statement: QueryObject): Promise<QueryObject> => {
    const values = [...(statement.bindings ?? [])].map(String);
    sent.push({ sql: statement.sql, values });
    const outcome = () => {
      if (values.some((value) => value.startsWith("fail"))) throw Object.assign(new Error("refused (23505)"), { code: "23505" });
      if (options.lost && statement.sql.startsWith("with ")) throw new Error("Connection terminated unexpectedly");
      committed.push(...values);
      return Object.assign(statement, { response: { command: "INSERT" } });
    };
    return new Promise((resolve) => setTimeout(resolve, 2)).then(outcome);
  };
  return { groups: new CommitGroups(() => Promise.resolve("lane"), send), sent, committed };
}

const INSERT_T = "insert into t (name) values ($1)";
const INSERT_U = "insert into u (name) values ($1)";
/** A member: one insert of `name` (shape t unless told). */
const member = (name: string, sql = INSERT_T): Compiled[] => [{ sql, bindings: [name], insert: true }];
const partsOf = (sql: string) => (sql.startsWith("with ") ? sql.match(/s\d+ as \(/g)!.length : 1);

describe("group commit on the transaction lanes", () => {
  it("sends a transaction at once and alone when nothing waits for a lane", async () => {
    const fake = fakeDatabase();
    await fake.groups.commit(member("one"));
    assert.deepEqual(fake.sent, [{ sql: INSERT_T, values: ["one"] }]);
    assert.deepEqual(fake.committed, ["one"]);
  });

  it("commits the transactions that came in one turn of the event loop together, shared by the free lanes", async () => {
    const fake = fakeDatabase();
    const names = Array.from({ length: 10 }, (_, i) => `row ${i}`);
    await Promise.all(names.map((name) => fake.groups.commit(member(name))));
    // Both lanes were free at the end of the turn: five members each, one statement each.
    assert.deepEqual(
      fake.sent.map((s) => partsOf(s.sql)),
      [5, 5],
    );
    assert.match(
      fake.sent[0]!.sql,
      /^with s0 as \(insert into t \(name\) values \(\$1\)\), s1 as \(insert into t \(name\) values \(\$2\)\), .*, s4 as \(insert into t \(name\) values \(\$5\)\) select$/,
    );
    assert.deepEqual(fake.sent[0]!.values, names.slice(0, 5));
    assert.deepEqual(fake.sent[1]!.values, names.slice(5));
    assert.deepEqual([...fake.committed].sort(), names);
  });

  it("commits the transactions that came while the lanes were busy together once a lane is free", async () => {
    const fake = fakeDatabase();
    const first = ["a", "b"].map((name) => fake.groups.commit(member(name)));
    await new Promise((resolve) => setImmediate(resolve));
    // a and b left, one per lane; the eight that come now wait for the lanes.
    assert.deepEqual(fake.sent, [
      { sql: INSERT_T, values: ["a"] },
      { sql: INSERT_T, values: ["b"] },
    ]);
    const names = Array.from({ length: 8 }, (_, i) => `row ${i}`);
    await Promise.all([...first, ...names.map((name) => fake.groups.commit(member(name)))]);
    assert.deepEqual(
      fake.sent.map((s) => partsOf(s.sql)),
      [1, 1, 4, 4],
    );
    assert.deepEqual(
      fake.sent.slice(2).flatMap((s) => s.values),
      names,
    );
  });

  it("keeps every part of a member of several parts, numbered after the members before it", async () => {
    const fake = fakeDatabase();
    const pair = (i: number): Compiled[] => [
      { sql: INSERT_T, bindings: [`change ${i}`], insert: true },
      { sql: INSERT_U, bindings: [`entry ${i}`], insert: true },
    ];
    await Promise.all([0, 1, 2, 3].map((i) => fake.groups.commit(pair(i))));
    const group = fake.sent.at(-1)!;
    assert.equal(partsOf(group.sql), 4, "two members (the second lane's half), two parts each");
    assert.deepEqual(group.values, ["change 2", "entry 2", "change 3", "entry 3"]);
    assert.deepEqual([...fake.committed].sort(), [0, 1, 2, 3].flatMap((i) => [`change ${i}`, `entry ${i}`]).sort());
  });

  it("fails only the member whose part failed, with its own error; the others commit once", async () => {
    const fake = fakeDatabase();
    const names = Array.from({ length: 10 }, (_, i) => (i === 5 ? "fail 5" : `row ${i}`));
    const outcomes = await Promise.allSettled(names.map((name) => fake.groups.commit(member(name))));
    outcomes.forEach((outcome, i) => {
      if (i === 5) {
        assert.equal(outcome.status, "rejected");
        assert.equal((outcome as PromiseRejectedResult).reason.code, "23505", "its own failure");
      } else assert.equal(outcome.status, "fulfilled", `member ${i}`);
    });
    // The statement of its group wrote nothing; then each member of that group ran again on its own.
    assert.deepEqual(
      fake.sent.filter((s) => partsOf(s.sql) > 1).map((s) => s.values),
      [names.slice(0, 5), names.slice(5)],
    );
    assert.deepEqual(
      fake.sent.filter((s) => partsOf(s.sql) === 1).map((s) => s.values[0]),
      names.slice(5),
    );
    assert.deepEqual([...fake.committed].sort(), names.filter((name) => name !== "fail 5").sort());
    for (const name of names) assert.ok(fake.committed.filter((c) => c === name).length <= 1, `${name} committed once at most`);
  });

  it("fails every member of a group whose statement went unanswered, and runs none of them again", async () => {
    const fake = fakeDatabase({ lost: true });
    const names = Array.from({ length: 6 }, (_, i) => `row ${i}`);
    // row 0 leaves alone (and is answered); the five after it come while it is on its way.
    const alone = fake.groups.commit(member(names[0]!));
    await new Promise((resolve) => setImmediate(resolve));
    const outcomes = await Promise.allSettled([alone, ...names.slice(1).map((name) => fake.groups.commit(member(name)))]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "rejected", "rejected", "rejected", "rejected"],
    );
    for (const outcome of outcomes.slice(1)) assert.match(String((outcome as PromiseRejectedResult).reason), /Connection terminated/);
    // Each value was sent once: the group may have committed, so it is not run again.
    for (const name of names) assert.equal(fake.sent.filter((s) => s.values.includes(name)).length, 1, name);
  });

  it("groups only members of one shape, the first waiting first", async () => {
    const fake = fakeDatabase();
    const members = Array.from({ length: 12 }, (_, i) => member(`row ${i}`, i % 3 === 0 ? INSERT_U : INSERT_T));
    await Promise.all(members.map((parts) => fake.groups.commit(parts)));
    for (const { sql } of fake.sent) {
      const tables = new Set(sql.match(/insert into (\w)/g));
      assert.equal(tables.size, 1, `one shape per statement: ${sql}`);
    }
    assert.equal(fake.committed.length, 12);
    // row 0 (u) leads a group of every u (at most half of what waits: the other lane is free), then
    // row 1 (t) one of every t.
    assert.deepEqual(fake.sent[0]!.values, ["row 0", "row 3", "row 6", "row 9"]);
    assert.deepEqual(fake.sent[1]!.values, ["row 1", "row 2", "row 4", "row 5", "row 7", "row 8", "row 10", "row 11"]);
  });

  it("bounds a group's members and values, and sends what waits beyond them in the next group", async () => {
    const fake = fakeDatabase();
    const names = Array.from({ length: 150 }, (_, i) => `row ${i}`);
    await Promise.all(names.map((name) => fake.groups.commit(member(name))));
    assert.deepEqual([...fake.committed].sort(), [...names].sort());
    const sizes = fake.sent.map((s) => partsOf(s.sql));
    assert.ok(Math.max(...sizes) <= 16 && sizes.length >= 10, `group sizes ${sizes.join(", ")}`);

    const wide = fakeDatabase();
    const big = (name: string): Compiled[] => [{ sql: INSERT_T, bindings: Array.from({ length: 10_000 }, () => name), insert: true }];
    await Promise.all(["a", "b", "c", "d", "e"].map((name) => wide.groups.commit(big(name))));
    for (const { values } of wide.sent) assert.ok(values.length <= 16_384, `${values.length} values in one statement`);
  });
});
