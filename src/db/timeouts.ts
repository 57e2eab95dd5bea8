// Every wait on the database is bounded. PostgreSQL enforces the session settings each pooled
// connection starts with (statement_timeout, lock_timeout, idle_in_transaction_session_timeout);
// pg bounds connecting, and a query whose answer never comes (a half-open socket TCP keepalive has
// not yet caught); knex bounds the wait for a pooled connection. A request that hits any of them
// answers SERVICE_BUSY (503), and its transaction has rolled back: nothing of it is kept.

export interface DatabaseTimeouts {
  /** statement_timeout: the longest one statement may run (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementMs: number;
  /** lock_timeout: the longest a statement waits for a row or table lock (DATABASE_LOCK_TIMEOUT_MS). */
  lockMs: number;
  /**
   * idle_in_transaction_session_timeout: a transaction left open this long without a statement is
   * ended by the server, its locks released (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS).
   */
  idleInTransactionMs: number;
  /** Opening a connection (DATABASE_CONNECT_TIMEOUT_MS). */
  connectMs: number;
  /** Waiting for a connection of the pool while all are lent (DATABASE_ACQUIRE_TIMEOUT_MS). */
  acquireMs: number;
}

/** Suited to an API: a request waits seconds, never minutes; an operator raises them for a long migration. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementMs: 15_000,
  lockMs: 5_000,
  idleInTransactionMs: 30_000,
  connectMs: 5_000,
  acquireMs: 10_000,
};

/** The client gives up on an answer this long after the server should have cancelled the statement. */
const ANSWER_GRACE_MS = 5_000;
/** Idle time before TCP keepalive probes a connection (a peer gone without a FIN is found). */
const KEEPALIVE_DELAY_MS = 10_000;

/** pg connection settings carrying the bounds: merged into every connection the pool opens. */
export function boundedConnection<T extends object>(connection: T, timeouts: DatabaseTimeouts) {
  return {
    ...connection,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: timeouts.statementMs + ANSWER_GRACE_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
}

/** knex pool settings: a bounded wait for a connection, and for opening one. */
export function boundedPool(max: number, timeouts: DatabaseTimeouts) {
  return { min: 0, max, acquireTimeoutMillis: timeouts.acquireMs, createTimeoutMillis: timeouts.connectMs };
}

/** SQLSTATEs of a bound the server enforced: statement_timeout (or a cancel), lock_timeout, idle in transaction. */
const TIMEOUT_STATES = new Set(["57014", "55P03", "25P03"]);
/** pg's own words, alone or after the SQL knex puts first ("select ... - Query read timeout"). */
const CLIENT_TIMEOUTS = [/(^| - )Query read timeout$/, /(^| - )timeout expired$/, /connection timeout/i];

/** Whether `err` is a database wait that passed its bound (see the header). */
export function isDatabaseTimeout(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const { code, name, message } = err as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === "string" && TIMEOUT_STATES.has(code)) return true;
  if (name === "KnexTimeoutError") return true;
  return typeof message === "string" && CLIENT_TIMEOUTS.some((pattern) => pattern.test(message));
}
