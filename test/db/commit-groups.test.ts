// Group commit on the transaction lanes (src/db/commit-groups.ts), against a connection that
// answers as PostgreSQL does (a failed statement aborts the transaction block; COMMIT then answers
// ROLLBACK), so every outcome can be forced: the real lanes are covered by transaction.test.ts.
import assert from "node:assert/strict";
import { CommitGroups } from "../../src/db/commit-groups.ts";
import type { QueryObject } from "../../src/db/deferred-statements.ts";

interface Fake {
  groups: CommitGroups;
  /** Every statement text sent, in order. */
  sent: string[];
  /** Statements whose effect was committed. */
  committed: string[];
}

/**
 * A connection that keeps PostgreSQL's transaction rules and answers a moment later (so what is
 * submitted meanwhile queues). Statements starting "fail" break a constraint (SQLSTATE 23505);
 * with `commitLost`, a COMMIT's answer never comes (the connection drops: an error without one).
 */
function fakeDatabase(options: { commitLost?: boolean } = {}): Fake {
  const sent: string[] = [];
  const committed: string[] = [];
  let inBlock = false;
  let aborted = false;
  let pending: string[] = [];
  const answer = (statement: QueryObject, command: string) => Object.assign(statement, { response: { command } });
  const refusal = (code: string) => Object.assign(new Error(`refused (${code})`), { code });
  const send = (_lane: unknown, statement: QueryObject): Promise<QueryObject> => {
    sent.push(statement.sql);
    let outcome: () => QueryObject;
    if (statement.sql === "BEGIN;") {
      inBlock = true;
      aborted = false;
      outcome = () => answer(statement, "BEGIN");
    } else if (statement.sql === "COMMIT;") {
      const command = aborted ? "ROLLBACK" : "COMMIT";
      if (!aborted && !options.commitLost) committed.push(...pending);
      pending = [];
      inBlock = false;
      aborted = false;
      outcome = options.commitLost
        ? () => {
            throw new Error("Connection terminated unexpectedly");
          }
        : () => answer(statement, command);
    } else if (inBlock && aborted) {
      outcome = () => {
        throw refusal("25P02");
      };
    } else if (statement.sql.startsWith("fail")) {
      if (inBlock) aborted = true;
      outcome = () => {
        throw refusal("23505");
      };
    } else {
      if (inBlock) pending.push(statement.sql);
      else committed.push(statement.sql);
      outcome = () => answer(statement, "INSERT");
    }
    return new Promise((resolve) => setTimeout(resolve, 2)).then(outcome);
  };
  return { groups: new CommitGroups(() => Promise.resolve("lane"), send), sent, committed };
}

const statement = (sql: string): QueryObject => ({ sql, bindings: [] });
const count = (texts: string[], text: string) => texts.filter((t) => t === text).length;

describe("group commit on the transaction lanes", () => {
  it("sends a transaction at once and alone when nothing waits for a lane", async () => {
    const fake = fakeDatabase();
    await fake.groups.commit(statement("insert 1"));
    assert.deepEqual(fake.sent, ["insert 1"]);
    assert.deepEqual(fake.committed, ["insert 1"]);
  });

  it("commits the transactions that came while the lanes were busy together, in one transaction", async () => {
    const fake = fakeDatabase();
    const names = Array.from({ length: 10 }, (_, i) => `insert ${i}`);
    await Promise.all(names.map((name) => fake.groups.commit(statement(name))));
    // Two leave at once (one per lane); the eight that queued behind them share one COMMIT.
    assert.deepEqual(fake.sent, ["insert 0", "insert 1", "BEGIN;", ...names.slice(2), "COMMIT;"]);
    assert.deepEqual(fake.committed, names);
  });

  it("fails only the member whose statement failed, with its own error; the others commit", async () => {
    const fake = fakeDatabase();
    const names = Array.from({ length: 10 }, (_, i) => (i === 5 ? "fail 5" : `insert ${i}`));
    const outcomes = await Promise.allSettled(names.map((name) => fake.groups.commit(statement(name))));
    outcomes.forEach((outcome, i) => {
      if (i === 5) {
        assert.equal(outcome.status, "rejected");
        assert.equal((outcome as PromiseRejectedResult).reason.code, "23505", "its own failure, not the aborted block's");
      } else assert.equal(outcome.status, "fulfilled", `member ${i}`);
    });
    // The group rolled back whole, then each member ran again on its own.
    assert.equal(count(fake.sent, "COMMIT;"), 1);
    assert.deepEqual([...fake.committed].sort(), names.filter((name) => name !== "fail 5").sort());
    assert.equal(count(fake.committed, "insert 6"), 1, "nothing is committed twice");
  });

  it("fails every member of a group whose COMMIT went unanswered, and runs none of them again", async () => {
    const fake = fakeDatabase({ commitLost: true });
    const names = Array.from({ length: 6 }, (_, i) => `insert ${i}`);
    const outcomes = await Promise.allSettled(names.map((name) => fake.groups.commit(statement(name))));
    const grouped = outcomes.slice(2);
    for (const outcome of grouped) {
      assert.equal(outcome.status, "rejected");
      assert.match(String((outcome as PromiseRejectedResult).reason), /Connection terminated/);
    }
    // Each statement was sent once: the group may have committed, so it is not run again.
    for (const name of names) assert.equal(count(fake.sent, name), 1, name);
  });

  it("keeps a group's size bounded and sends what waits beyond it in the next group", async () => {
    const fake = fakeDatabase();
    const names = Array.from({ length: 150 }, (_, i) => `insert ${i}`);
    await Promise.all(names.map((name) => fake.groups.commit(statement(name))));
    assert.deepEqual(fake.committed, names);
    const sizes: number[] = [];
    let size = -1;
    for (const text of fake.sent) {
      if (text === "BEGIN;") size = 0;
      else if (text === "COMMIT;") sizes.push(size);
      else if (size >= 0) size++;
    }
    assert.ok(sizes.every((n) => n <= 64) && sizes.length >= 2, `group sizes ${sizes.join(", ")}`);
  });
});
