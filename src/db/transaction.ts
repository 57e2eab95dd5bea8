// Write transactions in the fewest round trips the protocol allows: the pipeline's writes, and any
// domain code that runs its own (runTransaction). Knex's transaction() builds a client, a knex
// instance and a promise chain per call and waits for BEGIN and COMMIT on round trips of their own
// (measured on PostgreSQL: BEGIN + INSERT + COMMIT cost 195 µs of CPU that way, 95 µs here). Here:
//   - the knex instance bound to a pooled connection is made once per connection and reused;
//   - BEGIN leaves with the transaction's first statement, in the same write (a transaction that
//     runs no statement sends nothing);
//   - statements whose result nobody reads back in the transaction (activity entries, outbox
//     events: `deferStatement`) leave with COMMIT, in one write.
// On PostgreSQL (and the embedded server, which speaks its protocol) the connection pipelines:
// statements are sent without waiting for the previous answer, each with its own Sync, so a
// failing statement fails alone, the transaction is then aborted and COMMIT rolls it back; the
// first failure is what the caller sees. Where the connection cannot pipeline (PGlite in memory)
// the same statements are sent one after another.
import { EventEmitter } from "node:events";
import knex, { type Knex } from "knex";
import { acquireExclusive, releaseExclusive } from "./multiplexing.ts";

/** A statement a transaction appends at its end (knex raw: `?` bindings). */
interface Deferred {
  sql: string;
  bindings: readonly unknown[];
}

interface Unit {
  /** BEGIN, once sent (with the first statement). */
  begun: Promise<unknown> | null;
  deferred: Deferred[];
}

interface QueryObject {
  sql: string;
  bindings?: readonly unknown[];
  response?: { command?: string };
}

type QueryFn = (connection: unknown, obj: QueryObject) => Promise<QueryObject>;

interface Binding {
  trx: Knex.Transaction;
  connection: Connection;
  /** The dialect's own statement sender. */
  send: QueryFn;
  unit: Unit | null;
}

/** A pooled connection: pg's Client (pipelining when it was opened so), or a PGlite instance. */
interface Connection {
  pipeline?: boolean;
  connection?: { stream?: { cork(): void; uncork(): void } };
}

const bindingsByConnection = new WeakMap<object, Binding>();
const bindingsByHandle = new WeakMap<object, Binding>();

/** Connection settings that let pg pipeline (the pool opens every connection with them). */
export function pipelinedConnection(url: string): Knex.PgConnectionConfig {
  return { connectionString: url, pipeline: true } as Knex.PgConnectionConfig;
}

function pipelines(connection: Connection): boolean {
  return connection.pipeline === true;
}

/** Runs `write` with the connection's socket corked, so what it sends leaves in one write. */
function corked<T>(connection: Connection, write: () => T): T {
  const stream = connection.connection?.stream;
  stream?.cork();
  try {
    return write();
  } finally {
    stream?.uncork();
  }
}

function sendBegin(binding: Binding, unit: Unit): Promise<unknown> {
  const begun = binding.send(binding.connection, { sql: "BEGIN;", bindings: [] });
  // Seen by commit or rollback; a failed BEGIN (a broken connection) also fails what follows it.
  begun.catch(() => undefined);
  unit.begun = begun;
  return begun;
}

/**
 * The knex instance bound to `connection`, made on first use. Its client is the pool's client with
 * the connection fixed, `transacting` set (a nested transaction() is a savepoint) and BEGIN sent
 * lazily; its events are the pool client's (listeners on the main instance see every statement).
 */
function bindingOf(db: Knex, connection: Connection): Binding {
  const existing = bindingsByConnection.get(connection);
  if (existing) return existing;
  const parent = db.client as Knex.Client & { _query: QueryFn };
  const send: QueryFn = (conn, obj) => parent._query.call(parent, conn, obj);
  const client = Object.create(parent) as Record<string, unknown>;
  // Listeners registered on the bound client must not land on the pool client's own list.
  EventEmitter.call(client as unknown as EventEmitter);
  client.emit = (name: string, ...args: unknown[]) => parent.emit(name, ...args);
  client.transacting = true;
  const binding: Binding = { trx: null as unknown as Knex.Transaction, connection, send, unit: null };
  client.acquireConnection = async () => {
    // Without pipelining a statement must wait for BEGIN (a savepoint's first of all).
    const begun = binding.unit?.begun;
    if (begun && !pipelines(connection)) await begun;
    return connection;
  };
  client.releaseConnection = () => Promise.resolve();
  client._query = (conn: Connection, obj: QueryObject) => {
    const unit = binding.unit;
    if (!unit || unit.begun) return send(conn, obj);
    if (!pipelines(conn)) return sendBegin(binding, unit).then(() => send(conn, obj));
    return corked(conn, () => {
      sendBegin(binding, unit);
      return send(conn, obj);
    });
  };
  client.transaction = (...args: unknown[]) => {
    // A savepoint needs the transaction it nests in.
    const unit = binding.unit;
    if (unit && !unit.begun) sendBegin(binding, unit);
    return (knex.Client.prototype as unknown as { transaction: (...a: unknown[]) => unknown }).transaction.apply(client, args);
  };
  const bound = knex({
    client: function BoundClient() {
      return client;
    } as unknown as typeof knex.Client,
  });
  binding.trx = Object.assign(bound, { isTransaction: true }) as unknown as Knex.Transaction;
  bindingsByConnection.set(connection, binding);
  bindingsByHandle.set(binding.trx, binding);
  return binding;
}

/** The deferred statements in the order they were asked for, compiled for the driver. */
function compileDeferred(trx: Knex.Transaction, deferred: readonly Deferred[]): QueryObject[] {
  return deferred.map((item) => {
    const native = trx
      .raw(item.sql, item.bindings as Knex.RawBinding[])
      .toSQL()
      .toNative();
    return { sql: native.sql, bindings: native.bindings };
  });
}

/** Sends `statements` (after BEGIN when it was not sent) and COMMIT; throws the first failure. */
async function commit(binding: Binding, unit: Unit): Promise<void> {
  const statements = compileDeferred(binding.trx, unit.deferred);
  if (!unit.begun && statements.length === 0) return;
  const { connection, send } = binding;
  const trail = [...statements, { sql: "COMMIT;", bindings: [] }];
  let sent: Promise<QueryObject>[];
  if (pipelines(connection)) {
    sent = corked(connection, () => {
      if (!unit.begun) sendBegin(binding, unit);
      return trail.map((statement) => send(connection, statement));
    });
  } else {
    if (!unit.begun) sendBegin(binding, unit);
    sent = [];
    for (const statement of trail) {
      const outcome = send(connection, statement);
      sent.push(outcome);
      // Sequential without pipelining; a failure stops the chain (the rest would be refused).
      if (
        !(await outcome.then(
          () => true,
          () => false,
        ))
      )
        break;
    }
  }
  const outcomes = await Promise.allSettled([unit.begun!, ...sent]);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed) throw failed.reason;
  const committed = outcomes[outcomes.length - 1] as PromiseFulfilledResult<QueryObject>;
  // COMMIT of a transaction PostgreSQL had already aborted answers ROLLBACK, not an error.
  if (committed.value.response?.command === "ROLLBACK") throw new Error("the transaction was rolled back at COMMIT");
}

async function rollback(binding: Binding, unit: Unit): Promise<void> {
  if (!unit.begun) return;
  await binding.send(binding.connection, { sql: "ROLLBACK;", bindings: [] });
}

/**
 * A savepoint in the transaction `trx`. What it defers joins its transaction's end in the order it
 * was asked for (an activity entry recorded inside it keeps its place among the others), and is
 * dropped with the savepoint when `work` throws.
 */
function runSavepoint<T>(trx: Knex.Transaction, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const binding = bindingsByHandle.get(trx);
  const unit = binding?.unit;
  if (!binding || !unit) return trx.transaction(work);
  const mark = unit.deferred.length;
  return trx.transaction(async (savepoint) => {
    bindingsByHandle.set(savepoint, binding);
    try {
      return await work(savepoint);
    } catch (err) {
      unit.deferred.length = mark;
      throw err;
    }
  });
}

/**
 * Runs `work` in one transaction: committed when it resolves (with what it deferred), rolled back
 * when it throws. Inside another transaction it is a savepoint, as knex's transaction() is.
 */
export async function runTransaction<T>(db: Knex | Knex.Transaction, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if ((db as Knex.Transaction).isTransaction) return runSavepoint(db as Knex.Transaction, work);
  const connection = (await acquireExclusive(db)) as Connection;
  let healthy = true;
  try {
    const binding = bindingOf(db, connection);
    const unit: Unit = { begun: null, deferred: [] };
    binding.unit = unit;
    try {
      const result = await work(binding.trx);
      await commit(binding, unit);
      return result;
    } catch (err) {
      try {
        await rollback(binding, unit);
      } catch {
        // The connection cannot end its transaction: it is not handed to anyone else.
        healthy = false;
      }
      throw err;
    } finally {
      binding.unit = null;
    }
  } finally {
    // The pool validates a connection before lending it and drops one marked disposed.
    if (!healthy) (connection as { __knex__disposed?: string }).__knex__disposed = "its transaction could not be rolled back";
    await releaseExclusive(db, connection);
  }
}

/**
 * Appends a statement (knex raw: `?` bindings) to the end of the transaction `handle` runs (sent
 * with its COMMIT). False when `handle` is not such a transaction: the caller runs it itself.
 */
export function deferStatement(handle: object, sql: string, bindings: readonly unknown[]): boolean {
  const unit = bindingsByHandle.get(handle)?.unit;
  if (!unit) return false;
  unit.deferred.push({ sql, bindings });
  return true;
}
