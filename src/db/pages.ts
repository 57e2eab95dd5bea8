// One page of a list query: the total, and the rows of the requested window. Every list uses it,
// so "a page past the last answers empty data with meta.total" holds everywhere, however far past
// (an offset beyond PostgreSQL's bigint would otherwise fail).
import type { Knex } from "knex";

/** The rows one page of a list selects, and their order (the pipeline settles it from the query). */
export interface PageWindow {
  offset: number;
  limit: number;
  sortBy: string;
  sortDirection: "asc" | "desc";
}

/** The column the page's rows carry their list's total in (removed before they are returned). */
const TOTAL = "__list_total";

export async function fetchPage<Row>(
  query: Knex.QueryBuilder,
  window: PageWindow,
  /** SQL ORDER BY for the chosen column and direction (the list's tie-breaker included). */
  orderBy: string,
): Promise<{ rows: Row[]; total: number }> {
  const counted = () => query.clone().clearSelect().clearOrder().count({ n: "*" });
  // One statement for a page with rows: the total rides on each row as an uncorrelated subquery
  // (evaluated once, from the same snapshot as the rows, so the two always agree). Every list
  // selects its columns explicitly, which the added column needs. An offset no page can reach is
  // never sent (PostgreSQL's bigint would refuse some).
  if (Number.isSafeInteger(window.offset)) {
    const page = query.clone().select(counted().as(TOTAL)).orderByRaw(orderBy).offset(window.offset).limit(window.limit);
    const rows = (await page) as Array<Row & { [TOTAL]?: string | number }>;
    if (rows.length) {
      const total = Number(rows[0]![TOTAL]);
      for (const row of rows) delete row[TOTAL];
      return { rows, total };
    }
  }
  // No row: past the last page, or an empty list; the total alone answers.
  const countRow = await counted().first();
  return { rows: [], total: Number(countRow?.n ?? 0) };
}

/** "<expression> asc|desc nulls first|last": nulls sort as the smallest values in both directions. */
export function orderClause(expression: string, direction: "asc" | "desc"): string {
  return `${expression} ${direction === "asc" ? "asc nulls first" : "desc nulls last"}`;
}

/**
 * One page ordered by the column `sorts` maps `window.sortBy` to (an unoffered one falls back to
 * created_at, as the pagination rules say), ties broken by id in the same direction.
 */
export function sortedPage<Row>(query: Knex.QueryBuilder, window: PageWindow, sorts: Readonly<Record<string, string>>) {
  const sort = sorts[window.sortBy] ?? sorts.created_at ?? "created_at";
  return fetchPage<Row>(query, window, `${orderClause(sort, window.sortDirection)}, id ${window.sortDirection}`);
}

/** A row a keyset reads by: its creation time and id (the tie-breaker). */
export interface KeysetRow {
  id: string;
  created_at: Date;
}

/**
 * `query` narrowed to the rows after `after` (a previous row's created_at and id) newest first:
 * created_at desc, id desc, each window an index seek from there, unmoved by rows added meanwhile.
 * `table` qualifies the columns when the query joins others.
 */
export function newestFirstAfter(query: Knex.QueryBuilder, after: readonly [Date, string] | null, table?: string): Knex.QueryBuilder {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  if (after) query.whereRaw(`(${column("created_at")}, ${column("id")}) < (?, ?)`, [...after]);
  return query.orderBy([
    { column: column("created_at"), order: "desc" },
    { column: column("id"), order: "desc" },
  ]);
}

/**
 * Every row of `query`, newest first, `size` rows a statement: the next statement starts after
 * the last row read, so no statement holds more than `size` rows and no cursor stays open between
 * them (PGlite has no streaming cursor; one statement per chunk works on both backends).
 */
export async function* keysetChunks<Row extends KeysetRow>(query: () => Knex.QueryBuilder, size: number, table?: string): AsyncGenerator<Row[]> {
  let after: [Date, string] | null = null;
  for (;;) {
    const rows = (await newestFirstAfter(query(), after, table).limit(size)) as Row[];
    if (rows.length) yield rows;
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    after = [last.created_at, last.id];
  }
}
