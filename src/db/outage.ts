// An outage of the database, told apart from anything the request asked of it: the server ended the
// session (a terminated backend, a restart, a failover), refuses new ones (ALLOW_CONNECTIONS false,
// starting up, too many clients), or cannot be reached at all. A request that meets one answers
// SERVICE_BUSY (503) and its transaction has rolled back; a start step that meets one is retried.

/** Errors of a socket that never reached, or lost, the server. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * SQLSTATE classes and codes of a session that cannot go on: 08 (connection exception), 57P01-57P03
 * (terminated by an administrator, a crash, or not accepting connections yet), 53300 (too many
 * connections), 28 (authentication) and 3D000 (no such database: a failover to a server without it).
 */
const SESSION_STATES = /^(08|28|57P0[1-3]$|53300$|3D000$)/;

/** What pg says when the socket closed under it, and of a client it has given up on (after the SQL knex puts first). */
const LOST_CONNECTION = [
  /(^| - )Connection terminated/,
  /(^| - )Client has encountered a connection error and is not queryable$/,
  /(^| - )timeout exceeded when trying to connect$/,
];

/** Whether `err` says the database is unreachable now (see the header), not that the work was wrong. */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const { code, severity, message } = err as { code?: unknown; severity?: unknown; message?: unknown };
  // FATAL and PANIC end the session whatever the code (55000: the database does not accept connections).
  if (severity === "FATAL" || severity === "PANIC") return true;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || SESSION_STATES.test(code))) return true;
  return typeof message === "string" && LOST_CONNECTION.some((pattern) => pattern.test(message));
}
