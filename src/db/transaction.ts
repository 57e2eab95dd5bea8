// Write transactions in the fewest round trips the protocol allows: the pipeline's writes, and any
// domain code that runs its own (runTransaction). Knex's transaction() builds a client, a knex
// instance and a promise chain per call and waits for BEGIN and COMMIT on round trips of their own
// (measured on PostgreSQL: BEGIN + INSERT + COMMIT cost 195 µs of CPU that way, 95 µs here). Here:
//   - a transaction borrows its connection only when it first sends a statement: one whose
//     statements are all deferred (below) borrows it at COMMIT, and one that sends nothing borrows
//     nothing;
//   - the knex instance a transaction is given is made once and reused by later transactions;
//   - BEGIN leaves with the transaction's first statement, in the same write;
//   - statements whose result nobody reads back in the transaction (activity entries, outbox
//     events, rows inserted blind: `deferStatement`, `deferQuery`) leave with COMMIT, in one write.
//     A transaction made of such statements only is one write and one round trip: BEGIN, the
//     statements and COMMIT together, on a connection shared with other such transactions
//     (multiplexing.ts, transaction lanes) where the database multiplexes, so one write to the
//     socket carries the transactions of several requests and the pool lends nothing. One made of
//     independent inserts only is one statement, and those that wait for a lane meanwhile commit
//     together (commit-groups.ts: one COMMIT and disk flush for the group, each still whole).
// On PostgreSQL (and the embedded server, which speaks its protocol) the connection pipelines:
// statements are sent without waiting for the previous answer, each with its own Sync, so a
// failing statement fails alone, the transaction is then aborted and COMMIT rolls it back; the
// first failure is what the caller sees. Where the connection cannot pipeline (PGlite in memory)
// the same statements are sent one after another.
import { EventEmitter } from "node:events";
import knex, { type Knex } from "knex";
import { acquireExclusive, acquireTransactionLane, releaseExclusive } from "./multiplexing.ts";
import { blindInsert, compileDeferred, type Compiled, type Deferred, type QueryObject } from "./deferred-statements.ts";
import { commitGrouped } from "./commit-groups.ts";

interface Unit {
  /** BEGIN, once sent (with the first statement). */
  begun: Promise<unknown> | null;
  deferred: Deferred[];
}

type QueryFn = (connection: unknown, obj: QueryObject) => Promise<QueryObject>;

/** What a transaction runs on: its knex instance (reused) and, once borrowed, its connection. */
interface Binding {
  db: Knex;
  trx: Knex.Transaction;
  /** The borrowed connection, once a statement needed it. */
  connection: Connection | null;
  /** The borrowing under way (statements sent together share it). */
  acquiring: Promise<Connection> | null;
  /** The dialect's own statement sender. */
  send: QueryFn;
  /** The transaction running on this binding; null between transactions. */
  unit: Unit | null;
}

/** A pooled connection: pg's Client (pipelining when it was opened so), or a PGlite instance. */
interface Connection {
  pipeline?: boolean;
  connection?: { stream?: { cork(): void; uncork(): void } };
  __knex__disposed?: string;
}

/** Bindings no transaction is using, per database. */
const idleBindings = new WeakMap<Knex, Binding[]>();
/** At most this many idle bindings are kept per database (one per transaction running at once). */
const MAX_IDLE_BINDINGS = 64;
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

/** The transaction's connection, borrowed from the pool on first use. */
function connectionOf(binding: Binding): Promise<Connection> {
  if (binding.connection) return Promise.resolve(binding.connection);
  binding.acquiring ??= (acquireExclusive(binding.db) as Promise<Connection>).then((connection) => {
    binding.connection = connection;
    return connection;
  });
  return binding.acquiring;
}

function ended(): Error {
  return new Error("a statement was sent after its transaction ended (a query that was not awaited?)");
}

function sendBegin(binding: Binding, unit: Unit, connection: Connection): Promise<unknown> {
  const begun = binding.send(connection, { sql: "BEGIN;", bindings: [] });
  // Seen by commit or rollback; a failed BEGIN (a broken connection) also fails what follows it.
  begun.catch(() => undefined);
  unit.begun = begun;
  return begun;
}

/**
 * A knex instance for transactions on `db`. Its client is the pool's client with `transacting` set
 * (a nested transaction() is a savepoint), the connection borrowed on first use and BEGIN sent
 * lazily; its events are the pool client's (listeners on the main instance see every statement).
 */
function createBinding(db: Knex): Binding {
  const parent = db.client as Knex.Client & { _query: QueryFn };
  const send: QueryFn = (conn, obj) => parent._query.call(parent, conn, obj);
  const client = Object.create(parent) as Record<string, unknown> & { acquireConnection(): Promise<Connection> };
  // Listeners registered on the bound client must not land on the pool client's own list.
  EventEmitter.call(client as unknown as EventEmitter);
  client.emit = (name: string, ...args: unknown[]) => parent.emit(name, ...args);
  client.transacting = true;
  const binding: Binding = { db, trx: null as unknown as Knex.Transaction, connection: null, acquiring: null, send, unit: null };
  client.acquireConnection = async () => {
    if (!binding.unit) throw ended();
    const connection = await connectionOf(binding);
    // Without pipelining a statement must wait for BEGIN (a savepoint's first of all).
    const begun = binding.unit?.begun;
    if (begun && !pipelines(connection)) await begun;
    return connection;
  };
  client.releaseConnection = () => Promise.resolve();
  client._query = (conn: Connection, obj: QueryObject) => {
    const unit = binding.unit;
    if (!unit || conn !== binding.connection) return Promise.reject(ended());
    const rows = blindRows(binding, unit);
    if (!pipelines(conn)) {
      const begun = unit.begun ?? sendBegin(binding, unit, conn);
      return begun.then(async () => {
        for (const row of rows) await send(conn, row);
        return send(conn, obj);
      });
    }
    return corked(conn, () => {
      if (!unit.begun) sendBegin(binding, unit, conn);
      // The rows first: the statement may refer to them. Its caller sees their failure, if any.
      const before = rows.map((row) => send(conn, row));
      const result = send(conn, obj);
      return before.length ? Promise.all([...before, result]).then(() => result) : result;
    });
  };
  client.transaction = (...args: unknown[]) => {
    // A savepoint needs the transaction it nests in: knex sends SAVEPOINT on the connection it is
    // given, past the bound client's _query, so BEGIN goes out as the connection is handed over.
    const opening = Object.create(client) as typeof client;
    opening.acquireConnection = async () => {
      const connection = await client.acquireConnection();
      const unit = binding.unit;
      if (unit) {
        // BEGIN, and the rows inserted blind so far (they belong to the transaction, not to the
        // savepoint, and its statements may refer to them): sent before knex sends SAVEPOINT.
        const begun = unit.begun ?? sendBegin(binding, unit, connection);
        if (!pipelines(connection)) await begun;
        const rows = blindRows(binding, unit);
        if (pipelines(connection)) await Promise.all(rows.map((row) => send(connection, row)));
        else for (const row of rows) await send(connection, row);
      }
      return connection;
    };
    return (knex.Client.prototype as unknown as { transaction: (...a: unknown[]) => unknown }).transaction.apply(opening, args);
  };
  const bound = knex({
    client: function BoundClient() {
      return client;
    } as unknown as typeof knex.Client,
  });
  binding.trx = Object.assign(bound, { isTransaction: true }) as unknown as Knex.Transaction;
  bindingsByHandle.set(binding.trx, binding);
  return binding;
}

function takeBinding(db: Knex): Binding {
  return idleBindings.get(db)?.pop() ?? createBinding(db);
}

/**
 * Gives the binding back once its connection is released. It is reused only after the current
 * turn of the event loop: a statement its transaction left unawaited is refused (ended) rather than
 * run in the next transaction.
 */
async function releaseBinding(binding: Binding, healthy: boolean): Promise<void> {
  const { acquiring } = binding;
  let connection = binding.connection;
  binding.connection = null;
  binding.acquiring = null;
  setImmediate(() => {
    let idle = idleBindings.get(binding.db);
    if (!idle) idleBindings.set(binding.db, (idle = []));
    if (idle.length < MAX_IDLE_BINDINGS) idle.push(binding);
  });
  // A borrowing still under way when the work failed ends in a connection to give back.
  if (!connection && acquiring) connection = await acquiring.catch(() => null);
  if (!connection) return;
  // The pool validates a connection before lending it and drops one marked disposed.
  if (!healthy) connection.__knex__disposed = "its transaction could not be rolled back";
  await releaseExclusive(binding.db, connection);
}

/** The rows inserted blind and not yet sent, marked sent: to go before the statement about to be sent. */
function blindRows(binding: Binding, unit: Unit): Compiled[] {
  const pending = unit.deferred.filter((item) => item.blind && !item.sent);
  for (const item of pending) item.sent = true;
  return pending.length ? compileDeferred(binding.trx, pending) : [];
}

// Fresh objects per use: the driver writes each statement's response onto its object.
const begin = (): QueryObject => ({ sql: "BEGIN;", bindings: [] });
const commitStatement = (): QueryObject => ({ sql: "COMMIT;", bindings: [] });

/**
 * Sends `statements` (after BEGIN when it was not sent) and COMMIT; throws the first failure. A
 * transaction that sent nothing before goes whole - BEGIN, statements, COMMIT - on a shared
 * transaction lane where the database multiplexes (multiplexing.ts), else on its own connection;
 * one of independent inserts only goes as one statement, in a commit group (commit-groups.ts).
 */
async function commit(binding: Binding, unit: Unit): Promise<void> {
  const statements = compileDeferred(
    binding.trx,
    unit.deferred.filter((item) => !item.sent),
  );
  if (!unit.begun && statements.length === 0) return;
  const { send } = binding;
  const whole = !unit.begun && !binding.acquiring;
  if (whole && statements.every((statement) => statement.insert)) {
    // Independent inserts: one statement, committed with whatever else waits for a lane.
    const grouped = commitGrouped(binding.db, send, statements);
    if (grouped) return grouped;
  }
  const lane = whole ? acquireTransactionLane(binding.db) : null;
  let sent: Promise<QueryObject>[];
  if (lane) {
    const connection = (await lane) as Connection;
    // Issued together: nothing else on the lane comes between them. A single statement is a
    // transaction by itself (PostgreSQL commits it alone, or nothing of it).
    const together = statements.length === 1 ? statements : [begin(), ...statements, commitStatement()];
    sent = together.map((statement) => send(connection, statement));
  } else {
    const connection = await connectionOf(binding);
    const trail = [...statements, commitStatement()];
    if (pipelines(connection)) {
      sent = corked(connection, () => {
        if (!unit.begun) sendBegin(binding, unit, connection);
        return trail.map((statement) => send(connection, statement));
      });
    } else {
      if (!unit.begun) sendBegin(binding, unit, connection);
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
    sent.unshift(unit.begun! as Promise<QueryObject>);
  }
  const outcomes = await Promise.allSettled(sent);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed) throw failed.reason;
  const committed = outcomes[outcomes.length - 1] as PromiseFulfilledResult<QueryObject>;
  // (A statement sent alone answers its own command, never ROLLBACK: it failed or committed.)
  // COMMIT of a transaction PostgreSQL had already aborted answers ROLLBACK, not an error.
  if (committed.value.response?.command === "ROLLBACK") throw new Error("the transaction was rolled back at COMMIT");
}

async function rollback(binding: Binding, unit: Unit): Promise<void> {
  if (!unit.begun) return;
  await binding.send(await connectionOf(binding), { sql: "ROLLBACK;", bindings: [] });
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
  const binding = takeBinding(db as Knex);
  const unit: Unit = { begun: null, deferred: [] };
  binding.unit = unit;
  let healthy = true;
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
    await releaseBinding(binding, healthy);
  }
}

/**
 * Appends a statement (knex raw: `?` bindings) to the end of the transaction `handle` runs (sent
 * with its COMMIT). False when `handle` is not such a transaction: the caller runs it itself.
 */
export function deferStatement(
  handle: object,
  sql: string,
  bindings: readonly unknown[],
  /**
   * insert: the statement is a plain INSERT that reads no row the change writes (combineInserts);
   * rows: its one binding is a JSON array of rows, and deferred statements of the same text may be
   * merged into one (mergeRows).
   */
  options: { insert?: boolean; rows?: boolean } = {},
): boolean {
  const unit = bindingsByHandle.get(handle)?.unit;
  if (!unit) return false;
  unit.deferred.push({ sql, bindings, native: false, insert: options.insert === true, rows: options.rows === true, blind: false, sent: false });
  return true;
}

/**
 * Appends a query builder's statement to the end of the transaction it was built on (see
 * deferStatement): for a row nothing reads back before COMMIT, whose failure (a constraint) fails
 * the whole change at COMMIT. False when the builder is not on such a transaction.
 */
export function deferQuery(handle: object, query: Knex.QueryBuilder): boolean {
  const unit = bindingsByHandle.get(handle)?.unit;
  if (!unit) return false;
  const compiled = query.toSQL();
  const native = compiled.toNative();
  const insert = compiled.method === "insert" && !/\breturning\b/i.test(native.sql);
  unit.deferred.push({ sql: native.sql, bindings: native.bindings, native: true, insert, rows: false, blind: true, sent: false });
  return true;
}

/**
 * Appends one row inserted blind into `table` to the transaction `handle` runs (as deferQuery does
 * with an insert query), when its values are plain; false otherwise (the caller builds the query).
 */
export function deferInsert(handle: object, table: string, row: Readonly<Record<string, unknown>>): boolean {
  const unit = bindingsByHandle.get(handle)?.unit;
  const statement = unit ? blindInsert(table, row) : null;
  if (!statement) return false;
  unit!.deferred.push(statement);
  return true;
}

/**
 * Where to run a statement no rollback would undo anyway (a sequence's nextval): on the
 * transaction's connection once it has borrowed one, else outside the transaction, so that a
 * transaction of deferred statements still needs no connection before COMMIT. (Outside it while it
 * holds a connection, a pool of one - PGlite in memory - would wait on itself.)
 */
export function nonTransactionalHandle(handle: Knex | Knex.Transaction): Knex | Knex.Transaction {
  const binding = bindingsByHandle.get(handle);
  if (!binding || binding.connection || binding.acquiring) return handle;
  return binding.db;
}
