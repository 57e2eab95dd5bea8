// Group commit for the transactions sent whole on the transaction lanes (multiplexing.ts): while
// the lanes wait on commits (PostgreSQL answers a commit only once its disk flush is done), the
// transactions that come ready meanwhile queue, and when a lane is free those of one shape (the
// same statement texts) leave together as ONE statement: every part of every member a part of one
// WITH (combineInserts), which PostgreSQL commits as one, or nothing of it, with one flush.
// Measured on the development VM (a token mint: the token, its activity entry and its kept
// response; groups of three, two lanes): PostgreSQL's CPU per write was 167-182 µs with each
// member a statement between BEGIN and COMMIT, 112-125 µs as one statement, which also spares
// the driver a query per member and the BEGIN and COMMIT. When nothing else is waiting a
// transaction leaves alone at the end of its turn, where its write would leave anyway: grouping
// adds no delay, it only gathers what would otherwise wait behind the lanes' flushes.
//
// Groups are formed at the end of the event loop's turn (where the lanes' writes leave anyway,
// multiplexing.ts), so the transactions that came ready in one turn - the requests read in one
// poll of the sockets - commit together instead of the first of them alone; and what waits is
// shared by the free lanes, so both work side by side rather than one on everything while the
// other idles. Measured on the development VM (token mints, 16 connections, three interleaved
// pairs): 3,169-3,305 → 3,642-3,751 writes/s, commits per write 0.31 → 0.27, server CPU per write
// 245-257 → 224-236 µs. (Formed at the end of the turn without sharing, one group took nearly
// every request and PostgreSQL and the server took turns instead of working at once: commits per
// write 0.11, CPU far lower, throughput level. A third lane gained nothing.)
//
// Only transactions of independent inserts join a group (combineInserts made each one statement):
// such a statement updates no row and reads nothing a later member could change; two groups can
// wait on each other only over a duplicate key, and then PostgreSQL ends one with an error, which
// is handled as below. Each member still commits whole or not at all:
//   - the statement succeeded: every member committed;
//   - PostgreSQL refused it (a member's part broke a constraint, a deadlock was broken, ...):
//     nothing of the group was written, and each member runs again on its own, so only the failing
//     one fails, with its own error (a unique violation, say), as if it had never been grouped;
//   - its fate is unknown (the connection was lost): every member fails with that error, as a
//     transaction alone would; none is run again, since the group may have committed.
// Groups are of one shape so that their texts are few (a shape and a count: each is prepared once
// per connection, statement-cache.ts) and bounded in members and in values.
import type { Knex } from "knex";
import { combineInserts, type Compiled, type QueryObject } from "./deferred-statements.ts";
import { acquireTransactionLane, hasTransactionLanes, leaveNow, TRANSACTION_LANES } from "./multiplexing.ts";

/** The dialect's statement sender (knex's client _query). */
export type SendStatement = (connection: unknown, statement: QueryObject) => Promise<QueryObject>;

interface Member {
  /** The member's inserts (independent, each a part of the member's one statement). */
  parts: readonly Compiled[];
  /** Its statement alone; its text (the same object for the same shape) is the member's shape. */
  statement: QueryObject;
  bindings: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Groups on their way at once: one per transaction lane. */
const MAX_GROUPS_IN_FLIGHT = TRANSACTION_LANES;
/** Members per group at most: a shape comes in at most this many group texts. */
const MAX_MEMBERS = 16;
/** Values per group statement at most (the protocol allows 65,535); a larger member goes alone. */
const MAX_BINDINGS = 16_384;

// Fresh objects per use: the driver writes each statement's response onto its object.
const fresh = (statement: QueryObject): QueryObject => ({ sql: statement.sql, bindings: statement.bindings });

/** A failure PostgreSQL answered (it has a SQLSTATE): the transaction it ended is known to be rolled back. */
const answeredByDatabase = (err: unknown) =>
  typeof (err as { code?: unknown })?.code === "string" && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);

/** The group committer of one database; exported for its tests (the code uses commitGrouped). */
export class CommitGroups {
  private readonly waiting: Member[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    /** A transaction lane to send a group on. */
    private readonly lane: () => Promise<unknown>,
    private readonly send: SendStatement,
  ) {}

  commit(parts: readonly Compiled[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const statement = parts.length === 1 ? parts[0]! : combineInserts(parts);
      const bindings = parts.reduce((sum, part) => sum + part.bindings.length, 0);
      this.waiting.push({ parts, statement, bindings, resolve, reject });
      this.schedule();
    });
  }

  /** Groups are formed at the end of this turn of the event loop, with every member that came in it. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < MAX_GROUPS_IN_FLIGHT && this.waiting.length) {
      // What waits is shared by the free lanes, so they work on it side by side.
      const limit = Math.ceil(this.waiting.length / (MAX_GROUPS_IN_FLIGHT - this.inFlight));
      this.inFlight++;
      void this.run(this.take(limit)).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  /** The first waiting member and those of its shape after it, at most `limit`, within the bounds. */
  private take(limit: number): Member[] {
    const [first] = this.waiting.splice(0, 1) as [Member];
    const group = [first];
    let bindings = first.bindings;
    for (let i = 0; i < this.waiting.length && group.length < Math.min(limit, MAX_MEMBERS);) {
      const member = this.waiting[i]!;
      if (member.statement.sql === first.statement.sql && bindings + member.bindings <= MAX_BINDINGS) {
        group.push(member);
        bindings += member.bindings;
        this.waiting.splice(i, 1);
      } else i++;
    }
    return group;
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
    try {
      await this.send(await this.lane(), combineInserts(members.flatMap((member) => member.parts)));
    } catch (err) {
      if (answeredByDatabase(err)) await Promise.all(members.map((member) => this.alone(member)));
      else for (const member of members) member.reject(err);
      return;
    }
    for (const member of members) member.resolve();
  }
}

const groupsOf = new WeakMap<Knex, CommitGroups>();

/**
 * Commits `parts` (a transaction of independent inserts) as one statement, with whatever else of
 * its shape is waiting for a transaction lane of `db`; resolves once it is committed, rejects with
 * its own failure. Null when `db` has no transaction lanes (it does not multiplex): the caller
 * sends it itself.
 */
export function commitGrouped(db: Knex, send: SendStatement, parts: readonly Compiled[]): Promise<void> | null {
  let groups = groupsOf.get(db);
  if (!groups) {
    if (!hasTransactionLanes(db)) return null;
    // A group is sent from the end of a turn: it leaves at once, not corked until the next one.
    groups = new CommitGroups(
      () => acquireTransactionLane(db)!,
      (connection, statement) => {
        const sent = send(connection, statement);
        leaveNow(connection);
        return sent;
      },
    );
    groupsOf.set(db, groups);
  }
  return groups.commit(parts);
}
