// Values of a PostgreSQL sequence taken a block at a time (the "pooled" id generator of ORMs), so
// a row can be inserted blind: its id is known before the insert is sent, and the insert can leave
// with its transaction's COMMIT instead of a round trip of its own (transaction.ts, deferQuery).
// Each process keeps the rest of its block; ids stay unique and positive but are neither dense nor
// in creation order across processes (a restart leaves the unused ones of its block unassigned).
import type { Knex } from "knex";
import { nonTransactionalHandle } from "./transaction.ts";

const BLOCK_SIZE = 32;

interface Block {
  free: string[];
  /** The block being fetched, shared by everyone who found the current one empty. */
  fetching: Promise<void> | null;
}

/**
 * By database: keyed on its client's settings, the one object a database's knex instance, its
 * transactions and their bound instances all share.
 */
const blocks = new WeakMap<object, Map<string, Block>>();

async function fetchBlock(db: Knex | Knex.Transaction, sequence: string, block: Block): Promise<void> {
  // nextval is never rolled back: outside the caller's transaction where it has sent nothing yet.
  const { rows } = (await nonTransactionalHandle(db).raw("select nextval(?::regclass)::text as id from generate_series(1, ?)", [
    sequence,
    BLOCK_SIZE,
  ])) as {
    rows: { id: string }[];
  };
  block.free.push(...rows.map((r) => r.id));
}

/** The next value of `sequence` for this process (decimal text: bigint ids exceed a double's range). */
export async function nextSequenceValue(handle: Knex | Knex.Transaction, sequence: string): Promise<string> {
  const database = (handle.client as { config: object }).config;
  let sequences = blocks.get(database);
  if (!sequences) blocks.set(database, (sequences = new Map()));
  let block = sequences.get(sequence);
  if (!block) sequences.set(sequence, (block = { free: [], fetching: null }));
  while (block.free.length === 0) {
    block.fetching ??= fetchBlock(handle, sequence, block).finally(() => {
      block.fetching = null;
    });
    await block.fetching;
  }
  return block.free.shift()!;
}
