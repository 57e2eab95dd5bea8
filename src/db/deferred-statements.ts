// The statements a transaction defers to its end (transaction.ts: deferStatement, deferQuery), in
// the driver's form: placeholders numbered once per text, activity rows merged into one insert,
// and a transaction's independent inserts made one statement.
import type { Knex } from "knex";

/**
 * A statement a transaction appends at its end: knex raw (`?` bindings), or already in the
 * driver's form (`$n`, from a compiled query builder).
 */
export interface Deferred {
  sql: string;
  bindings: readonly unknown[];
  native: boolean;
  /**
   * An INSERT that reads no row the other deferred statements write and returns nothing: it may
   * run as one part of a single statement with the others (combineInserts).
   */
  insert: boolean;
  /**
   * The statement's one binding is a JSON array of rows: deferred statements of the same text are
   * sent as one, their rows concatenated in the order they were deferred (mergeRows).
   */
  rows: boolean;
  /**
   * A row inserted blind (deferQuery), which a later statement of the transaction may refer to (a
   * foreign key): it is sent before any statement the transaction sends after it, not held to COMMIT.
   */
  blind: boolean;
  /** Already sent (ahead of a later statement); COMMIT does not send it again. */
  sent: boolean;
}

export interface QueryObject {
  sql: string;
  bindings?: readonly unknown[];
  response?: { command?: string };
}

/** A deferred statement in the driver's form. */
export interface Compiled extends QueryObject {
  bindings: readonly unknown[];
  insert: boolean;
}

/** Deferred statement texts with their `?` placeholders numbered for the driver, by text. */
const positioned = new Map<string, string>();
const MAX_POSITIONED = 1024;

/**
 * The deferred statements in the order they were asked for, in the driver's form. A text whose
 * placeholders are all plain `?` (no `??` identifier) bound to plain values is numbered once and
 * remembered (the texts are the few constant statements of the areas); anything else goes through
 * knex's compiler.
 */
export function compileDeferred(trx: Knex.Transaction, deferred: readonly Deferred[]): Compiled[] {
  const client = trx.client as Knex.Client & { positionBindings(sql: string): string };
  return mergeRows(deferred).map((item) => {
    if (item.native) return { sql: item.sql, bindings: item.bindings, insert: item.insert };
    const plain =
      !item.sql.includes("??") && item.bindings.every((b) => b === null || typeof b !== "object" || b instanceof Date || Buffer.isBuffer(b));
    if (plain) {
      const known = positioned.get(item.sql);
      const sql = known ?? client.positionBindings(item.sql);
      if (known === undefined && positioned.size < MAX_POSITIONED) positioned.set(item.sql, sql);
      return { sql, bindings: item.bindings, insert: item.insert };
    }
    const native = trx
      .raw(item.sql, item.bindings as Knex.RawBinding[])
      .toSQL()
      .toNative();
    return { sql: native.sql, bindings: native.bindings, insert: item.insert };
  });
}

/** Insert texts by table and column list (the few constant row shapes of the areas). */
const insertTexts = new Map<string, string>();

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** A value knex binds as it is (an undefined one is its DEFAULT, an object may be a raw expression). */
const plain = (value: unknown) =>
  value === null || typeof value !== "object" ? value !== undefined : value instanceof Date || Buffer.isBuffer(value);

/**
 * A row inserted blind, in the driver's form, as knex's compiler would write it but without
 * building a query for it (a measurable share of a write's CPU): null when a value is not plain,
 * for knex to compile.
 */
export function blindInsert(table: string, row: Readonly<Record<string, unknown>>): Deferred | null {
  const columns = Object.keys(row);
  const bindings = columns.map((column) => row[column]);
  if (!bindings.every(plain)) return null;
  const shape = `${table}\0${columns.join("\0")}`;
  let sql = insertTexts.get(shape);
  if (sql === undefined) {
    sql = `insert into ${quoted(table)} (${columns.map(quoted).join(", ")}) values (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
    if (insertTexts.size < MAX_POSITIONED) insertTexts.set(shape, sql);
  }
  return { sql, bindings, native: true, insert: true, rows: false, blind: true, sent: false };
}

/**
 * Deferred statements of one text that each bind a JSON array of rows (activity entries), merged
 * into the first of them: one statement inserting every row, in the order they were deferred (the
 * order their `seq` follows). Nothing else in the transaction reads those rows back.
 */
function mergeRows(deferred: readonly Deferred[]): readonly Deferred[] {
  if (deferred.filter((item) => item.rows).length < 2) return deferred;
  const merged: Deferred[] = [];
  const first = new Map<string, Deferred>();
  for (const item of deferred) {
    const into = item.rows ? first.get(item.sql) : undefined;
    if (!into) {
      const copy = { ...item, bindings: [...item.bindings] };
      if (item.rows) first.set(item.sql, copy);
      merged.push(copy);
      continue;
    }
    const rows = String(item.bindings[0]);
    const kept = String(into.bindings[0]);
    // "[a]" and "[b]" make "[a,b]" (an empty array adds nothing).
    if (rows.length > 2) into.bindings = [kept.length > 2 ? `${kept.slice(0, -1)},${rows.slice(1)}` : rows];
  }
  return merged;
}

/**
 * Independent INSERTs as one statement: each a data-modifying part of a WITH, its placeholders
 * renumbered after the parts before it. PostgreSQL runs every part to completion (referenced or
 * not) in the one statement, which commits alone or not at all: a transaction's worth of inserts
 * in one statement, without BEGIN and COMMIT around it.
 */
export function combineInserts(statements: readonly Compiled[]): QueryObject {
  return { sql: combinedText(statements), bindings: statements.flatMap((s) => s.bindings) };
}

/** Combined texts by their parts' texts, one map per part (the texts are the areas' constants). */
interface TextTrie {
  next: Map<string, TextTrie>;
  sql?: string;
  /** The parts' binding counts the text was numbered for (a text's count is fixed by its placeholders). */
  counts?: readonly number[];
}
const combinedTexts: TextTrie = { next: new Map() };
let combinedCount = 0;

/**
 * The text of the parts as one statement, built once per sequence of texts: the same text object
 * each time, whose hash the statement cache's lookup then already knows (a new 1-2 KB string per
 * transaction was hashed and compared again in each lookup).
 */
function combinedText(statements: readonly Compiled[]): string {
  let node = combinedTexts;
  for (const statement of statements) {
    let child = node.next.get(statement.sql);
    if (!child) {
      if (combinedCount >= MAX_POSITIONED) return combine(statements);
      node.next.set(statement.sql, (child = { next: new Map() }));
    }
    node = child;
  }
  if (node.sql === undefined) {
    node.sql = combine(statements);
    node.counts = statements.map((s) => s.bindings.length);
    combinedCount++;
  }
  return node.counts!.every((count, i) => count === statements[i]!.bindings.length) ? node.sql : combine(statements);
}

function combine(statements: readonly Compiled[]): string {
  let offset = 0;
  const parts = statements.map((statement, i) => {
    const shift = offset;
    offset += statement.bindings.length;
    return `s${i} as (${shift ? statement.sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + shift}`) : statement.sql})`;
  });
  return `with ${parts.join(", ")} select`;
}
