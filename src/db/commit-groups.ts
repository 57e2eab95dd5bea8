// Group commit for the transactions sent whole on the transaction lanes (multiplexing.ts): while
// the lanes wait on COMMITs (PostgreSQL answers a COMMIT only once its disk flush is done), the
// transactions that come ready meanwhile queue, and when a lane is free they leave as one
// transaction - BEGIN, each one's statement, COMMIT - so they share one commit and one flush.
// Measured with pgbench on the development VM: a one-row insert transaction costs PostgreSQL about
// 190 µs of CPU, a sixteen-row one 390 µs; the commit is most of a small write's database cost.
// When nothing is waiting a transaction leaves at once and alone: grouping adds no delay, it only
// gathers what would otherwise wait behind the lanes' flushes.
//
// Only transactions of independent inserts join a group (combineInserts made each one statement):
// such a statement updates no row and reads nothing a later member could change; two groups can
// wait on each other only over a duplicate key, and then PostgreSQL ends one with an error, which
// is handled as below. Each member still commits whole or not at all:
//   - COMMIT answers COMMIT: every member committed;
//   - PostgreSQL refused something (a member's statement failed, and the transaction with it; the
//     COMMIT answered ROLLBACK): nothing of the group was written, and each member runs again on
//     its own, so only the failing one fails, with its own error (a unique violation, say), as if
//     it had never been grouped;
//   - the COMMIT's fate is unknown (the connection was lost): every member fails with that error,
//     as a transaction alone would; none is run again, since the group may have committed.
import type { Knex } from "knex";
import type { QueryObject } from "./deferred-statements.ts";
import { acquireTransactionLane, hasTransactionLanes, TRANSACTION_LANES } from "./multiplexing.ts";

/** The dialect's statement sender (knex's client _query). */
export type SendStatement = (connection: unknown, statement: QueryObject) => Promise<QueryObject>;

interface Member {
  statement: QueryObject;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Groups on their way at once: one per transaction lane. */
const MAX_GROUPS_IN_FLIGHT = TRANSACTION_LANES;
/** Members per group at most (one statement each; a bounded transaction). */
const MAX_MEMBERS = 64;

// Fresh objects per use: the driver writes each statement's response onto its object.
const fresh = (statement: QueryObject): QueryObject => ({ sql: statement.sql, bindings: statement.bindings });

/** A failure PostgreSQL answered (it has a SQLSTATE): the transaction it ended is known to be rolled back. */
const answeredByDatabase = (err: unknown) =>
  typeof (err as { code?: unknown })?.code === "string" && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);

/** The group committer of one database; exported for its tests (the code uses commitGrouped). */
export class CommitGroups {
  private readonly waiting: Member[] = [];
  private inFlight = 0;

  constructor(
    /** A transaction lane to send a group on. */
    private readonly lane: () => Promise<unknown>,
    private readonly send: SendStatement,
  ) {}

  commit(statement: QueryObject): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ statement, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < MAX_GROUPS_IN_FLIGHT && this.waiting.length) {
      this.inFlight++;
      void this.run(this.waiting.splice(0, MAX_MEMBERS)).finally(() => {
        this.inFlight--;
        this.next();
      });
    }
  }

  private async alone(member: Member): Promise<void> {
    try {
      await this.send(await this.lane(), fresh(member.statement));
      member.resolve();
    } catch (err) {
      member.reject(err);
    }
  }

  private async run(members: Member[]): Promise<void> {
    if (members.length === 1) return this.alone(members[0]!);
    let lane: unknown;
    try {
      lane = await this.lane();
    } catch (err) {
      for (const member of members) member.reject(err);
      return;
    }
    // Issued in one turn of the event loop: they stay together on the lane and leave in one write.
    const begun = this.send(lane, { sql: "BEGIN;", bindings: [] });
    const statements = members.map((member) => this.send(lane, fresh(member.statement)));
    const committed = this.send(lane, { sql: "COMMIT;", bindings: [] });
    const [begin, commit, ...outcomes] = await Promise.allSettled([begun, committed, ...statements]);
    if (commit!.status === "fulfilled" && commit!.value.response?.command === "COMMIT" && begin!.status === "fulfilled") {
      for (const member of members) member.resolve();
      return;
    }
    if (begin!.status === "rejected") {
      // No transaction was opened: each statement ran (or failed) alone, as it would have ungrouped.
      members.forEach((member, i) => {
        const outcome = outcomes[i]!;
        if (outcome.status === "fulfilled") member.resolve();
        else member.reject(outcome.reason);
      });
      return;
    }
    if (commit!.status === "fulfilled" || answeredByDatabase(commit!.reason)) {
      await Promise.all(members.map((member) => this.alone(member)));
      return;
    }
    for (const member of members) member.reject(commit!.reason);
  }
}

const groupsOf = new WeakMap<Knex, CommitGroups>();

/**
 * Commits `statement` (a transaction of independent inserts made one statement) with whatever else
 * is waiting for a transaction lane of `db`; resolves once it is committed, rejects with its own
 * failure. Null when `db` has no transaction lanes (it does not multiplex): the caller sends it itself.
 */
export function commitGrouped(db: Knex, send: SendStatement, statement: QueryObject): Promise<void> | null {
  let groups = groupsOf.get(db);
  if (!groups) {
    if (!hasTransactionLanes(db)) return null;
    groups = new CommitGroups(() => acquireTransactionLane(db)!, send);
    groupsOf.set(db, groups);
  }
  return groups.commit(statement);
}
