// Prepared statements for what a process runs again and again ("auto-prepare": what pgx's
// statement cache and postgres.js do by default, and Npgsql's Max Auto Prepare). knex sends every
// statement unnamed, so PostgreSQL parses and plans it on every run; measured with pgbench on the
// development machine, the token mint's transaction (BEGIN, two inserts, COMMIT, pipelined) ran at
// 5,100-5,300 per second unnamed and 7,000-9,000 prepared, on the same two cores.
//
// A statement text with bound values is given a name from its second run on (one-off statements,
// such as migrations, stay unnamed), up to `capacity` texts per process; pg then sends Parse once
// per connection and only Bind/Execute afterwards (never relying on a Parse the server has not
// confirmed: see prepareStatementsOn). Statements without values go as they are (the simple
// protocol, where several commands may share one text).
//
// PostgreSQL refuses a prepared statement whose result columns changed under it ("cached plan must
// not change result type", after another process's migration added a column to a `select *`): the
// statement fails once, and its connection is closed and replaced, since its prepared statements
// can no longer be trusted.
//
// Only for PostgreSQL servers: the embedded database serves every client from one PGlite session,
// where two clients' statements of the same name would collide. DATABASE_PREPARED_STATEMENTS=0
// turns this off (a transaction-pooling PgBouncer before 1.21 cannot keep prepared statements).
import { createHash } from "node:crypto";

export const DEFAULT_PREPARED_STATEMENTS = 256;

/** Runs of a text before it is prepared: a statement run once is never. */
const RUNS_BEFORE_PREPARING = 2;
/** Texts counted but not yet prepared; beyond this the counts start over (they are only hints). */
const MAX_COUNTED = 4096;

/** What a pg Client's query method is given (the part this module reads). */
interface QueryConfig {
  text?: unknown;
  name?: unknown;
  values?: unknown;
  rows?: unknown;
  portal?: unknown;
  submit?: unknown;
}

/** pg's Client, as far as this module uses it. */
export interface PgQueryable {
  query(config: unknown, values?: unknown, callback?: unknown): unknown;
  end(): Promise<void>;
  __knex__disposed?: string;
  /** pg's connection: the names the server confirmed parsing, and those whose Parse is on its way. */
  connection?: { parsedStatements?: Record<string, string>; submittedNamedStatements?: Record<string, string> };
}

export class StatementCache {
  private readonly names = new Map<string, string>();
  private readonly runs = new Map<string, number>();

  constructor(readonly capacity: number) {}

  /** The name `text` runs under, or undefined while it runs unnamed. */
  nameFor(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.capacity) return name;
    const runs = (this.runs.get(text) ?? 0) + 1;
    if (runs < RUNS_BEFORE_PREPARING) {
      if (this.runs.size >= MAX_COUNTED) this.runs.clear();
      this.runs.set(text, runs);
      return undefined;
    }
    this.runs.delete(text);
    const named = `sb_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    this.names.set(text, named);
    return named;
  }

  /** How many texts are prepared (each on the connections that ran it since). */
  get size(): number {
    return this.names.size;
  }
}

function preparable(config: unknown): config is QueryConfig & { text: string; values: unknown[] } {
  if (config === null || typeof config !== "object") return false;
  const c = config as QueryConfig;
  return (
    typeof c.text === "string" &&
    c.name === undefined &&
    Array.isArray(c.values) &&
    c.values.length > 0 &&
    c.rows === undefined &&
    c.portal === undefined &&
    typeof c.submit !== "function"
  );
}

/** The error PostgreSQL gives a prepared statement whose result columns changed since it was prepared. */
function isStalePlan(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === "0A000" && /cached plan must not change result type/.test(e.message ?? "");
}

/** Makes `connection` run the cache's named statements. */
export function prepareStatementsOn(connection: PgQueryable, cache: StatementCache): void {
  const query = connection.query.bind(connection);
  connection.query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (!preparable(config)) return query(config, values, callback);
    const name = cache.nameFor(config.text);
    // pg skips Parse for a name whose Parse it has sent; if that Parse then fails (it is refused
    // in a transaction already aborted, which a pipelined batch of another request may be), a
    // statement relying on it would name nothing. So a name is used only once the server confirmed
    // it, or by the statement that sends its Parse; meanwhile the text runs unnamed.
    const parsing = connection.connection?.submittedNamedStatements?.[name ?? ""] !== undefined;
    if (name === undefined || (parsing && connection.connection?.parsedStatements?.[name] === undefined)) return query(config, values, callback);
    const retire = (err: unknown) => {
      if (!isStalePlan(err) || connection.__knex__disposed) return;
      connection.__knex__disposed = "a prepared statement's result columns changed (a migration ran)";
      void connection.end().catch(() => undefined);
    };
    const named = { ...config, name };
    if (typeof values === "function") {
      const done = values as (err: unknown, result: unknown) => void;
      return query(named, (err: unknown, result: unknown) => {
        if (err) retire(err);
        done(err, result);
      });
    }
    const result = query(named, values, callback) as Promise<unknown> | undefined;
    result?.catch?.(retire);
    return result;
  };
}
