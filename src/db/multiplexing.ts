// Statements outside a transaction share a few pipelined connections instead of borrowing one from
// the pool each (multiplexing, as Npgsql's Multiplexing mode does it). Borrowing costs a pool
// acquire and release per statement and a socket write per statement; on a shared connection the
// statements issued in one turn of the event loop leave in one write (the socket is corked until
// the loop's check phase) and PostgreSQL answers them in order, each with its own Sync, so a
// failure fails only its own statement. Measured with 16 concurrent single-row reads through knex:
// 43 µs of CPU per statement through the pool, 18 µs shared (scripts/bench/pipeline-ceilings.ts
// measures whole requests).
//
// Whatever needs a connection to itself still borrows one from the pool: transactions (knex's
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
}

const multiplexed = new WeakMap<object, Multiplexed>();

/** How many connections the statements outside transactions share (each is one PostgreSQL backend). */
const SHARED_CONNECTIONS = 2;

/** A connection whose oldest statement in flight has run this long is held up. */
const SLOW_MS = 20;

type ClientInternals = Knex.Client & {
  acquireRawConnection(): Promise<PgConnection>;
  _query(connection: unknown, obj: unknown): Promise<unknown>;
  destroy(callback?: unknown): Promise<unknown>;
};

/**
 * Makes `db` (a pg client whose connections pipeline) run statements outside transactions on
 * shared connections; transactions keep borrowing from the pool.
 */
export function multiplex(db: Knex): Knex {
  const client = db.client as ClientInternals;
  const acquireExclusive = client.acquireConnection.bind(client);
  const releaseExclusive = client.releaseConnection.bind(client);
  const shared: (PgConnection | null)[] = Array.from({ length: SHARED_CONNECTIONS }, () => null);
  const opening: (Promise<PgConnection> | null)[] = Array.from({ length: SHARED_CONNECTIONS }, () => null);
  /** When each statement in flight on a shared connection was sent, oldest first (they are answered in order). */
  const sentAt = new WeakMap<object, number[]>();
  const sharedSet = new WeakSet<object>();
  let closed = false;

  const open = (slot: number): Promise<PgConnection> => {
    opening[slot] ??= client.acquireRawConnection().then(
      (connection) => {
        opening[slot] = null;
        if (closed) {
          void connection.end().catch(() => undefined);
          throw new Error("the database was closed");
        }
        const drop = () => {
          if (shared[slot] === connection) shared[slot] = null;
        };
        connection.once("error", drop);
        connection.once("end", drop);
        sharedSet.add(connection);
        sentAt.set(connection, []);
        shared[slot] = connection;
        return connection;
      },
      (err: unknown) => {
        opening[slot] = null;
        throw err;
      },
    );
    return opening[slot];
  };

  client.acquireConnection = async () => {
    const now = performance.now();
    let best: PgConnection | null = null;
    let bestScore = Infinity;
    for (let slot = 0; slot < SHARED_CONNECTIONS; slot++) {
      const connection = shared[slot];
      if (!connection || connection.__knex__disposed) return open(slot);
      const pending = sentAt.get(connection)!;
      // Held up connections rank after every flowing one; then the fewest in flight.
      const score = pending.length + (pending.length && now - pending[0]! > SLOW_MS ? 1e6 : 0);
      if (score < bestScore) {
        best = connection;
        bestScore = score;
      }
    }
    return best;
  };
  client.releaseConnection = (connection: unknown) => (sharedSet.has(connection as object) ? Promise.resolve() : releaseExclusive(connection));

  // Statements issued in one turn of the event loop leave in one write.
  const corked = new WeakSet<object>();
  const send = client._query.bind(client);
  client._query = (connection: unknown, obj: unknown) => {
    const pending = sentAt.get(connection as object);
    if (!pending) return send(connection, obj);
    const stream = (connection as PgConnection).connection?.stream;
    if (stream && !corked.has(stream)) {
      corked.add(stream);
      stream.cork();
      setImmediate(() => {
        corked.delete(stream);
        stream.uncork();
      });
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
    await Promise.all(
      shared.map((connection, slot) => {
        shared[slot] = null;
        return connection?.end().catch(() => undefined);
      }),
    );
    return destroy(callback);
  };

  multiplexed.set(client, { acquireExclusive, releaseExclusive });
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
