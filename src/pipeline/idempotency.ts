// Idempotency keys for writes, whichever transport carries them (service description, Conventions
// 2 and 3): REST's Idempotency-Key header (src/apps/api/idempotency.ts) and an MCP write tool's
// idempotency_key argument (src/apps/mcp/tool-call.ts) run through this one layer:
//   first use of a key            -> run the request
//   same key, same raw body       -> the kept response, same status, Idempotent-Replay: true
//   same key, different body      -> 409 IDEMPOTENCY_KEY_REUSED
//   same key, first still running -> 425 IDEMPOTENCY_REPLAY_IN_PROGRESS
// Keys are per token id, method, path and key (MCP: the method "MCP" and the tool's name, the hash
// over its canonical arguments). Two stores, each doing what it is good at:
//   - the lock: a running request holds its key in the KV store (shared across processes through
//     Redis), taken once the request is authorized and valid, for IDEMPOTENCY_LOCK_MS and renewed
//     by the running process meanwhile, so a killed process frees it within that time;
//   - the kept response: a 2xx JSON answer is written by the write's own transaction
//     (modules/idempotency), body encrypted and bound to its key, for 24 hours. The write and its
//     kept response commit together, so no stop between COMMIT and keeping the answer can let a
//     repeat run the write twice.
// After a success the lock is left to expire: a repeat that meets it looks for the kept response
// (replayed if there, else the first is still running). A repeat after the lock expired runs
// again and its transaction is refused by the kept response's key, which is then replayed.
// Errors, and bodiless answers such as a delete's 204, are not kept: their lock is given back and
// a repeat runs again (a repeated delete then finds nothing and answers 404).
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { KvUnavailableError, type Kv } from "../kv/kv.ts";
import { retryWhenReachable } from "../kv/outage.ts";
import { countKvOutage } from "../observability/metrics.ts";
import { ApiError } from "../errors.ts";
import { decrypt, encrypt, sha256Hex } from "../security/crypto.ts";
import type { ExecutionHooks } from "./execute.ts";
import { unscoped } from "../db/tenant.ts";
import { forgetExpired, isKeptAlready, keepResponse, keptResponse, type KeptResponse } from "../modules/idempotency/records.ts";

/**
 * How long a lock lives without renewal: a killed process's key is free again after this. The
 * running process renews it every third of this time, however long its write takes.
 */
export const IDEMPOTENCY_LOCK_MS = 30 * 1000;
/** The longest key accepted (REST's header, MCP's argument). */
export const MAX_KEY_LENGTH = 255;

interface Running {
  state: "running";
  hash: string;
  owner: string;
}

/** Where a write's record lives and the lock that claims it while the write runs. */
export interface IdempotencyClaim {
  /** The record's KV key (idempotencyRecordKey). */
  key: string;
  /** SHA-256 of the raw body: the same key with another body is refused. */
  hash: string;
  /** The "running" record that holds the key while the first request runs (unique to it). */
  lock: string;
}

/** Where the record of (token, method, path, key) lives in the KV store. */
export function idempotencyRecordKey(tokenId: string, method: string, path: string, key: string): string {
  return `idem:${tokenId}:${method}:${sha256Hex(path)}:${sha256Hex(key)}`;
}

export function idempotencyClaim(tokenId: string, method: string, path: string, key: string, rawBody: Buffer | string): IdempotencyClaim {
  const hash = sha256Hex(rawBody);
  return {
    key: idempotencyRecordKey(tokenId, method, path, key),
    hash,
    lock: JSON.stringify({ state: "running", hash, owner: randomUUID() } satisfies Running),
  };
}

const keyReused = () =>
  new ApiError("IDEMPOTENCY_KEY_REUSED", "This idempotency key was already used with a different request (body or tool arguments).");

/** A kept response, answered again instead of running the write. */
export interface Replayed {
  status: number;
  body: unknown;
}

/**
 * The kept response. The body is opened first: a record this process cannot open (sealed under
 * another APP_KEY, or copied from another record) is never presented as a replay.
 */
function replay(kept: KeptResponse, claim: IdempotencyClaim, appKey: Buffer): Replayed {
  if (kept.requestHash !== claim.hash) {
    throw keyReused();
  }
  let body: unknown;
  try {
    body = JSON.parse(decrypt(appKey, kept.body, claim.key));
  } catch {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "The response kept for this idempotency key cannot be replayed by this server.", {
      remediation: "Send the request again with a new idempotency key. (Operators: every process of a deployment must share APP_KEY.)",
    });
  }
  return { status: kept.status, body };
}

/** Takes the claim's key for this request; the lock found there when another holds it. */
async function takeKey(kv: Kv, claim: IdempotencyClaim, lockMs: number): Promise<string | null> {
  for (let attempt = 0; ; attempt++) {
    if (await kv.set(claim.key, claim.lock, { ttlMs: lockMs, onlyIfAbsent: true })) return null;
    const existing = await kv.get(claim.key);
    if (existing !== null) return existing;
    // Released between our two calls; try to take it again.
    if (attempt >= 3) throw new ApiError("IDEMPOTENCY_REPLAY_IN_PROGRESS", "A request with this idempotency key is still running.");
  }
}

export interface IdempotencyDeps {
  kv: Kv;
  db: Knex;
  appKey: Buffer;
  /** The lock's life without renewal (IDEMPOTENCY_LOCK_MS unless a test shortens it). */
  lockMs?: number;
}

/**
 * Keeps the lock alive while the write runs: every third of its life, the lock is set again with a
 * fresh expiry if it is still this request's. A renewal the KV store misses is not retried: the
 * kept response's key still lets only one run commit.
 */
function renewWhileRunning(kv: Kv, claim: IdempotencyClaim, lockMs: number): () => void {
  const timer = setInterval(() => void kv.compareAndSet(claim.key, claim.lock, claim.lock, lockMs).catch(() => undefined), lockMs / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Runs `execute` at most once per key; replays or refuses repeats as the table above says.
 * `keeps`: whether a success is kept (a 2xx JSON answer); `execute` runs the operation with the
 * hooks it is given (the kept response, written in the operation's transaction by beforeCommit).
 * Answers the kept response when this was a repeat, null when `execute` ran.
 */
export async function runIdempotently(
  deps: IdempotencyDeps,
  claim: IdempotencyClaim,
  now: Date,
  keeps: { status: number } | null,
  execute: (hooks: ExecutionHooks) => Promise<void>,
): Promise<Replayed | null> {
  const lockMs = deps.lockMs ?? IDEMPOTENCY_LOCK_MS;
  let existing: string | null = null;
  let locked = true;
  try {
    existing = await takeKey(deps.kv, claim, lockMs);
  } catch (err) {
    if (!(err instanceof KvUnavailableError)) throw err;
    // The lock only turns a concurrent repeat away early: without it, the kept response's key
    // still lets one run commit and replays it to the others (see the header).
    countKvOutage("idempotency_lock");
    locked = false;
  }
  // Given back as soon as the KV store answers, for as long as the lock would live.
  const giveBack = () => (locked ? retryWhenReachable(() => deps.kv.compareAndDelete(claim.key, claim.lock), lockMs) : undefined);
  if (existing !== null) {
    const lock = JSON.parse(existing) as Running;
    if (lock.hash !== claim.hash) {
      throw keyReused();
    }
    // The lock outlives a finished request (it expires on its own): its kept response answers.
    const kept = await keptResponse(deps.db, claim.key, now);
    if (kept) return replay(kept, claim, deps.appKey);
    throw new ApiError("IDEMPOTENCY_REPLAY_IN_PROGRESS", "The first request with this idempotency key is still running.", {
      headers: { "Retry-After": "1" },
    });
  }

  const keep: ExecutionHooks = keeps
    ? {
        beforeCommit: (domain, output) =>
          keepResponse(
            unscoped(domain, "a kept response belongs to the credential's request, written with its change"),
            claim.key,
            { requestHash: claim.hash, status: keeps.status, body: encrypt(deps.appKey, JSON.stringify(output), claim.key) },
            now,
          ),
      }
    : {};
  // A renewal after the key was given back finds another value (or none) there and changes nothing.
  const stopRenewing = locked ? renewWhileRunning(deps.kv, claim, lockMs) : () => undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await execute(keep);
        break;
      } catch (err) {
        // This key's lock had expired (or the KV store lost it): an earlier run of this request
        // committed, and its kept response answers. One kept more than 24 hours ago is forgotten
        // (the purge had not reached it yet) and the request runs once more.
        const kept = await keptResponse(deps.db, claim.key, now).catch(() => null);
        if (kept) {
          await giveBack();
          return replay(kept, claim, deps.appKey);
        }
        if (attempt === 0 && isKeptAlready(err)) {
          await forgetExpired(deps.db, claim.key, now);
          continue;
        }
        await giveBack();
        throw err;
      }
    }
  } finally {
    stopRenewing();
  }
  // A kept response answers repeats from now on; anything else is not kept and gives its key back.
  if (!keeps) await giveBack();
  return null;
}
