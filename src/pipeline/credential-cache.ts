// Resolved credentials, kept briefly in the KV store so an authenticated request costs no database
// query (shared through Redis by every process, so a change is seen by all of them at once).
// Exact by construction, never "eventually":
//   - a change that makes a cached resolution untrue (a token deleted, a creator leaving a team)
//     writes a tombstone once it commits (CommitEffect), before its response is sent;
//   - an entry is added only where none exists (SET NX), so a resolution read before the change
//     committed can never overwrite the tombstone written after it;
//   - a tombstone outlives any resolution in flight (30 s): "revoked" refuses at once, "changed"
//     sends every request back to the database until it expires, then caching resumes.
// An entry is "<sha256 of the secret>:<resolved at, ms>:<record>": the KV checks the secret's hash and
// counts the request against the token's budget in the same round trip (a wrong secret counts
// nothing, so nobody can spend another token's budget). The expiry is checked on every request.
// While the KV store is unreachable every credential is read from the database, nothing is cached,
// and a tombstone is written as soon as the store answers again (retryWhenReachable), for as long as
// an entry it must override can live.
import { KvUnavailableError, type CounterState, type Kv } from "../kv/kv.ts";
import { retryWhenReachable } from "../kv/outage.ts";
import type { CommitEffect } from "../db/tenant.ts";
import type { TokenRecord } from "../modules/tokens/tokens.ts";
import { countKvOutage } from "../observability/metrics.ts";
import { kvCounters, type BudgetCounter } from "./rate-limit.ts";

/**
 * How long a resolution is trusted, by the server's clock: an older one is read again from the
 * database (which is when last_used_at is written). The KV keeps it twice as long, then drops it.
 */
export const CREDENTIAL_TTL_MS = 60_000;
/**
 * Far longer than any request in flight (a resolution is read and offered to the KV within one
 * request), and short enough that a changed credential is cached again soon after.
 */
const TOMBSTONE_TTL_MS = 30_000;

const REVOKED = "revoked";
const CHANGED = "changed";

export type CachedCredential =
  /** The secret matched a cached resolution; the request was counted. `entry` is the raw value. */
  | { state: "hit"; entry: string; counts: CounterState[] }
  /** A cached resolution whose secret is another: the bearer is refused. */
  | { state: "wrong-secret" }
  | { state: "revoked" }
  | { state: "changed" }
  | { state: "miss" }
  /** The KV store is unreachable: the database answers, and nothing is cached or counted there. */
  | { state: "unreachable" };

const key = (tokenId: string) => `cred:pat:${tokenId}`;

/** Looks the token up and, when the secret matches, counts the request against `counters`, in one round trip. */
export async function admitCached(kv: Kv, tokenId: string, secretHash: string, counters: readonly BudgetCounter[]): Promise<CachedCredential> {
  let found: Awaited<ReturnType<Kv["incrementIfPrefixed"]>>;
  try {
    found = await kv.incrementIfPrefixed(key(tokenId), `${secretHash}:`, kvCounters(counters));
  } catch (err) {
    if (!(err instanceof KvUnavailableError)) throw err;
    countKvOutage("credential_cache");
    return { state: "unreachable" };
  }
  const { value, counts } = found;
  if (value === null) return { state: "miss" };
  if (value === REVOKED) return { state: "revoked" };
  if (value === CHANGED) return { state: "changed" };
  if (!counts) return { state: "wrong-secret" };
  return { state: "hit", entry: value, counts };
}

/** What a cache entry says, decoded once per distinct entry in this process (see resolveEntry). */
export interface DecodedEntry<T> {
  entry: string;
  resolvedAtMs: number;
  record: TokenRecord;
  /** What the caller derived from the record (memoized with it), if anything yet. */
  derived?: T;
}

const MAX_DECODED = 4096;
/** By "<secret hash>:<resolved at>" (short to hash); the whole text is compared on every use. */
const decoded = new Map<string, DecodedEntry<unknown>>();

/**
 * The entry's resolution. An entry never changes once written (any change writes another entry or
 * a tombstone, and the KV is asked on every request), so equal text is an equal resolution: the
 * JSON is parsed, and the caller's derivation computed, once per entry rather than per request.
 * Bounded; the oldest decoded entries are forgotten first.
 */
export function decodeEntry<T>(entry: string): DecodedEntry<T> {
  const afterHash = entry.indexOf(":") + 1;
  const colon = entry.indexOf(":", afterHash);
  const id = entry.slice(0, colon);
  let found = decoded.get(id) as DecodedEntry<T> | undefined;
  if (!found || found.entry !== entry) {
    found = { entry, resolvedAtMs: Number(entry.slice(afterHash, colon)), record: JSON.parse(entry.slice(colon + 1)) as TokenRecord };
    decoded.delete(id);
    if (decoded.size >= MAX_DECODED) decoded.delete(decoded.keys().next().value!);
    decoded.set(id, found);
  }
  return found;
}

const entryOf = (record: TokenRecord, now: Date) => `${record.secretHash}:${now.getTime()}:${JSON.stringify(record)}`;

/** A cache write that may be skipped: with the KV store unreachable, the next request reads the database again. */
async function cacheBestEffort(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (!(err instanceof KvUnavailableError)) throw err;
  }
}

/** Keeps a resolution read from the database, unless a tombstone (or another entry) is there. */
export async function rememberCredential(kv: Kv, record: TokenRecord, now: Date): Promise<void> {
  await cacheBestEffort(kv.set(key(record.id), entryOf(record, now), { ttlMs: 2 * CREDENTIAL_TTL_MS, onlyIfAbsent: true }));
}

/** Replaces an aged resolution with a fresh one, unless something else (a tombstone) replaced it first. */
export async function refreshCredential(kv: Kv, previous: string, record: TokenRecord, now: Date): Promise<void> {
  await cacheBestEffort(kv.compareAndSet(key(record.id), previous, entryOf(record, now), 2 * CREDENTIAL_TTL_MS));
}

/** Applies what a committed change says about credentials. */
export async function applyCredentialEffects(kv: Kv, effects: readonly CommitEffect[]): Promise<void> {
  for (const effect of effects) {
    if (effect.kind !== "credentials-revoked" && effect.kind !== "credentials-changed") continue;
    const tombstone = effect.kind === "credentials-revoked" ? REVOKED : CHANGED;
    for (const id of effect.tokenIds) {
      // An entry cached before the change lives at most twice the TTL in the store.
      await retryWhenReachable(() => kv.set(key(id), tombstone, { ttlMs: TOMBSTONE_TTL_MS }), 2 * CREDENTIAL_TTL_MS);
    }
  }
}
