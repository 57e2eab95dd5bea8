// Deleting rows kept only until a date (expired sessions, spent codes and tokens) in bounded
// batches, each its own statement: a backlog (a worker that was down for a week) never becomes one
// long delete holding locks on a table that sign-ins and token requests write to.
import type { Knex } from "knex";
import type { Db } from "./tenant.ts";

export const PURGE_BATCH = 1000;

/**
 * Deletes the rows of `table` that `due` selects, `batch` at a time by their `key`, until none is
 * left; returns how many went. `db` is the caller's (unscoped, with its reason) handle.
 */
export async function deleteInBatches(
  db: Db,
  table: string,
  key: string,
  due: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
  batch = PURGE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    // The deleted keys, counted: both drivers answer `returning` alike (PGlite's bare delete count is not a number).
    const deleted = (
      (await db(table)
        .whereIn(key, due(db(table).select(key)).limit(batch))
        .delete()
        .returning(key)) as unknown[]
    ).length;
    total += deleted;
    if (deleted < batch) return total;
  }
}
