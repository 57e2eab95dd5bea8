// The responses kept for Idempotency-Key replays (the rules: src/pipeline/idempotency.ts).
// A response is kept by the transaction of the write it answers (keepResponse runs in it), found again by keptResponse for 24 hours, then purged (jobs.ts).
// Records belong to a credential, not to a team's data: reached by key only, never listed.
import type { Db } from "../../db/tenant.ts";
import { sha256Hex } from "../../security/crypto.ts";
import { isUniqueViolation } from "../../db/unique.ts";

/** How long a response is kept (the description's "idempotency memory"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface KeptResponse {
  /** SHA-256 of the raw body the response answered. */
  requestHash: string;
  status: number;
  /** The encrypted JSON text of the body (bound to the record key). */
  body: string;
}

const INSERT = "insert into idempotency_records (record_key, request_hash, status, body, created_at) values (?, ?, ?, ?, ?)";
const PRIMARY_KEY = "idempotency_records_pkey";

/** The stored form of a record key (the key names a credential and holds the client's own key). */
const storedKey = (recordKey: string) => sha256Hex(recordKey);

/** Keeps `response` under `recordKey` with the transaction `handle` runs (or at once, outside one). */
export async function keepResponse(handle: Db, recordKey: string, response: KeptResponse, now: Date): Promise<void> {
  const bindings = [storedKey(recordKey), response.requestHash, response.status, response.body, now];
  await handle.raw(INSERT, bindings);
}

/** The response kept under `recordKey` less than 24 hours before `now`, if any. */
export async function keptResponse(db: Db, recordKey: string, now: Date): Promise<KeptResponse | null> {
  const row = (await db("idempotency_records")
    .where({ record_key: storedKey(recordKey) })
    .where("created_at", ">", new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
    .first("request_hash", "status", "body")) as { request_hash: string; status: number; body: string } | undefined;
  return row ? { requestHash: row.request_hash, status: Number(row.status), body: row.body } : null;
}

/** Whether `err` is a write refused because a response is already kept under its key. */
export function isKeptAlready(err: unknown): boolean {
  return isUniqueViolation(err, PRIMARY_KEY);
}

/** Forgets the response under `recordKey` if it is older than 24 hours (the purge has not reached it yet). */
export async function forgetExpired(db: Db, recordKey: string, now: Date): Promise<void> {
  await db("idempotency_records")
    .where({ record_key: storedKey(recordKey) })
    .where("created_at", "<=", new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
    .delete();
}
