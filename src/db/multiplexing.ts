// Statements outside a transaction share a few pipelined connections instead of borrowing one from
// the pool each (multiplexing, as Npgsql's Multiplexing mode does it). Borrowing costs a pool
// acquire and release per statement and a socket write per statement; on a shared connection the
// statements issued in one turn of the event loop leave in one write (the socket is corked until
// the loop's check phase) and PostgreSQL answers them in order, each with its own Sync, so a
// failure fails only its own statement. Measured with 16 concurrent single-row reads through knex:
// 43 µs of CPU per statement through the pool, 18 µs shared (scripts/bench/pipeline-ceilings.ts
// measures whole requests).
//
// A transaction sent whole (runTransaction's transactions of deferred statements: BEGIN, the
// statements and COMMIT leave together) needs no connection to itself either: it goes to lanes of
// its own, shared the same way but kept apart from the statements', so that no read waits behind
// a COMMIT and the disk flush PostgreSQL makes it wait for. Whatever else needs a connection to
// itself still borrows one from the pool: transactions that send statements before COMMIT (knex's
// transaction() and runTransaction) and session state (advisory locks, the job queue's SQL), through
// acquireExclusive. A statement goes to a shared connection whose oldest statement in flight is
// younger than SLOW_MS (the fewest in flight among those), so once a statement has run that long
// the statements after it go to the other connection; only when every connection is held up do
// they queue behind the least busy one. A shared connection that fails, or is retired (marked
// disposed: statement-cache.ts), is dropped and replaced on next use; the statements in flight on
// it fail as they would on a pooled one.
import type { Knex } from "knex";
import knex from "knex";

/** pg's Client, as far as this module uses it. */
interface PgConnection {
  pipeline?: boolean;
  /** Set on a connection that must serve nothing more (statement-cache.ts retires one so). */
  __knex__disposed?: string;
  connection?: { stream?: { cork(): void; uncork(): void } };
  once(event: "error" | "end", listener: () => void): void;
  end(): Promise<void>;
}

interface Multiplexed {
  acquireExclusive(): Promise<unknown>;
  releaseExclusive(connection: unknown): Promise<unknown>;
  acquireTransactionLane(): Promise<unknown>;
  transactionLanes(): Promise<unknown[]>;
}

const multiplexed = new WeakMap<object, Multiplexed>();
/** Corked streams, and the end-of-turn callback that will uncork each. */
const corked = new WeakMap<object, NodeJS.Immediate>();

/** How many connections the statements outside transactions share (each is one PostgreSQL backend). */
const SHARED_CONNECTIONS = 2;
/**
 * How many connections the transactions sent whole share (kept apart from the statements' lanes, so
 * a read never waits behind another request's COMMIT and the disk flush it waits for).
 */
export const TRANSACTION_LANES = 2;

/** A connection whose oldest statement in flight has run this long is held up. */
const SLOW_MS = 20;

type ClientInternals = Knex.Client & {
  acquireRawConnection(): Promise<PgConnection>;
  _query(connection: unknown, obj: unknown): Promise<unknown>;
  destroy(callback?: unknown): Promise<unknown>;
};

/** Connections statements share; each statement goes to the least busy one (see the header). */
class Lanes {
  private readonly lanes: (PgConnection | null)[];
  private readonly opening: (Promise<PgConnection> | null)[];

  constructor(
    count: number,
    private readonly openRaw: () => Promise<PgConnection>,
    /** When each statement in flight on a lane was sent, oldest first (they are answered in order). */
    private readonly sentAt: WeakMap<object, number[]>,
    private readonly isClosed: () => boolean,
  ) {
    this.lanes = Array.from({ length: count }, () => null);
    this.opening = Array.from({ length: count }, () => null);
  }

  private open(slot: number): Promise<PgConnection> {
    this.opening[slot] ??= this.openRaw().then(
      (connection) => {
        this.opening[slot] = null;
        if (this.isClosed()) {
          void connection.end().catch(() => undefined);
          throw new Error("the database was closed");
        }
        const drop = () => {
          if (this.lanes[slot] === connection) this.lanes[slot] = null;
        };
        connection.once("error", drop);
        connection.once("end", drop);
        this.sentAt.set(connection, []);
        this.lanes[slot] = connection;
        return connection;
      },
      (err: unknown) => {
        this.opening[slot] = null;
        throw err;
      },
    );
    return this.opening[slot];
  }

  /** The lane for the next statement. */
  async acquire(): Promise<PgConnection> {
    const now = performance.now();
    let best: PgConnection | null = null;
    let bestScore = Infinity;
    for (let slot = 0; slot < this.lanes.length; slot++) {
      const connection = this.lanes[slot];
      if (!connection || connection.__knex__disposed) return this.open(slot);
      const pending = this.sentAt.get(connection)!;
      // Held up connections rank after every flowing one; then the fewest in flight.
      const score = pending.length + (pending.length && now - pending[0]! > SLOW_MS ? 1e6 : 0);
      if (score < bestScore) {
        best = connection;
        bestScore = score;
      }
    }
    return best!;
  }

  /** Every lane, opened where it was not (tests watch what is sent on them). */
  all(): Promise<PgConnection[]> {
    return Promise.all(this.lanes.map((connection, slot) => (connection && !connection.__knex__disposed ? connection : this.open(slot))));
  }

  close(): Promise<unknown> {
    return Promise.all(
      this.lanes.map((connection, slot) => {
        this.lanes[slot] = null;
        return connection?.end().catch(() => undefined);
      }),
    );
  }
}

/**
 * Makes `db` (a pg client whose connections pipeline) run statements outside transactions on
 * shared connections, and transactions sent whole on lanes of their own (acquireTransactionLane);
 * other transactions keep borrowing from the pool.
 */
export function multiplex(db: Knex): Knex {
  const client = db.client as ClientInternals;
  const acquireExclusive = client.acquireConnection.bind(client);
  const releaseExclusive = client.releaseConnection.bind(client);
  const sentAt = new WeakMap<object, number[]>();
  let closed = false;
  const openRaw = () => client.acquireRawConnection();
  const statements = new Lanes(SHARED_CONNECTIONS, openRaw, sentAt, () => closed);
  const transactions = new Lanes(TRANSACTION_LANES, openRaw, sentAt, () => closed);

  client.acquireConnection = () => statements.acquire();
  client.releaseConnection = (connection: unknown) => (sentAt.has(connection as object) ? Promise.resolve() : releaseExclusive(connection));

  // Statements issued in one turn of the event loop leave in one write.
  const send = client._query.bind(client);
  client._query = (connection: unknown, obj: unknown) => {
    const pending = sentAt.get(connection as object);
    if (!pending) return send(connection, obj);
    const stream = (connection as PgConnection).connection?.stream;
    if (stream && !corked.has(stream)) {
      stream.cork();
      corked.set(
        stream,
        setImmediate(() => {
          corked.delete(stream);
          stream.uncork();
        }),
      );
    }
    pending.push(performance.now());
    const answered = () => void pending.shift();
    const result = send(connection, obj);
    result.then(answered, answered);
    return result;
  };

  // A transaction borrows a connection of its own.
  const exclusiveClient = Object.create(client) as Record<string, unknown>;
  exclusiveClient.acquireConnection = acquireExclusive;
  exclusiveClient.releaseConnection = releaseExclusive;
  (client as unknown as Record<string, unknown>).transaction = (...args: unknown[]) =>
    (knex.Client.prototype as unknown as { transaction: (...a: unknown[]) => unknown }).transaction.apply(exclusiveClient, args);

  const destroy = client.destroy.bind(client);
  client.destroy = async (callback?: unknown) => {
    closed = true;
    await Promise.all([statements.close(), transactions.close()]);
    return destroy(callback);
  };

  multiplexed.set(client, {
    acquireExclusive,
    releaseExclusive,
    acquireTransactionLane: () => transactions.acquire(),
    transactionLanes: () => transactions.all(),
  });
  return db;
}

/** A connection of the pool for the caller alone (a transaction, session state such as a lock). */
export function acquireExclusive(db: Knex): Promise<unknown> {
  const m = multiplexed.get(db.client);
  return m ? m.acquireExclusive() : db.client.acquireConnection();
}

export function releaseExclusive(db: Knex, connection: unknown): Promise<unknown> {
  const m = multiplexed.get(db.client);
  return m ? m.releaseExclusive(connection) : db.client.releaseConnection(connection);
}

/**
 * A shared connection for a transaction sent whole - BEGIN, its statements and COMMIT issued
 * together in one turn of the event loop, so they stay together on the connection and leave in one
 * write with other requests' - or null when `db` does not multiplex (it borrows from the pool).
 */
export function acquireTransactionLane(db: Knex): Promise<unknown> | null {
  return multiplexed.get(db.client)?.acquireTransactionLane() ?? null;
}

/** Every transaction lane of `db` (none when it does not multiplex): what tests watch. */
export function transactionLanes(db: Knex): Promise<unknown[]> {
  return multiplexed.get(db.client)?.transactionLanes() ?? Promise.resolve([]);
}

/** Whether `db` has transaction lanes (acquireTransactionLane answers a lane, not null). */
export function hasTransactionLanes(db: Knex): boolean {
  return multiplexed.has(db.client);
}

/**
 * Writes what waits corked on `connection` now rather than at the end of the loop's turn: for a
 * statement sent from that end of turn itself (a commit group formed there), whose cork would
 * otherwise hold it until the next turn's.
 */
export function leaveNow(connection: unknown): void {
  const stream = (connection as PgConnection).connection?.stream;
  const pending = stream && corked.get(stream);
  if (!pending) return;
  clearImmediate(pending);
  corked.delete(stream);
  stream.uncork();
}
