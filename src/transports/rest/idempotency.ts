// Idempotency-Key handling for REST writes (service description, Conventions 2 and 3):
//   first use of a key            -> run the request
//   same key, same raw body       -> the cached response, same status, Idempotent-Replay: true
//   same key, different body      -> 409 IDEMPOTENCY_KEY_REUSED
//   same key, first still running -> 425 IDEMPOTENCY_REPLAY_IN_PROGRESS
// Records live in the KV store (shared across processes through Redis, inside the deployment's
// own key namespace), keyed on token id, method, path and key; only 2xx responses with a JSON body
// are kept, for 24 hours, with the body encrypted and bound to its record key. Errors, and bodiless answers such as a delete's 204, are not kept: a repeat of
// them runs again (a repeated delete then finds nothing and answers 404).
import { randomUUID } from "node:crypto";
import type Koa from "koa";
import type { Claim, ClaimOutcome, Kv } from "../../kv/kv.ts";
import { ApiError, validationFailed } from "../../errors.ts";
import { decrypt, encrypt, sha256Hex } from "../../security/crypto.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request holds its key; a crashed process frees it after this. */
export const IDEMPOTENCY_LOCK_MS = 5 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

interface Running {
  state: "running";
  hash: string;
  owner: string;
}

interface Done {
  state: "done";
  hash: string;
  status: number;
  /** Encrypted JSON text of the body. */
  body: string;
}

export function idempotencyKeyOf(ctx: Koa.Context): string {
  const key = ctx.get("idempotency-key");
  if (!key) throw new ApiError("IDEMPOTENCY_KEY_MISSING", "This write needs an Idempotency-Key header.");
  if (key.length > MAX_KEY_LENGTH) throw validationFailed({ "Idempotency-Key": [`must be at most ${MAX_KEY_LENGTH} characters`] });
  return key;
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

export function idempotencyClaim(tokenId: string, method: string, path: string, key: string, rawBody: Buffer): IdempotencyClaim {
  const hash = sha256Hex(rawBody);
  return {
    key: idempotencyRecordKey(tokenId, method, path, key),
    hash,
    lock: JSON.stringify({ state: "running", hash, owner: randomUUID() } satisfies Running),
  };
}

/** The claim as a KV claim: set where absent, held at most IDEMPOTENCY_LOCK_MS. */
export function lockOf(claim: IdempotencyClaim): Claim {
  return { key: claim.key, value: claim.lock, ttlMs: IDEMPOTENCY_LOCK_MS };
}

/**
 * Answers with the kept response. The body is opened first: a record this process cannot open
 * (sealed under another APP_KEY, or copied from another record) is never presented as a replay.
 */
function replay(ctx: Koa.Context, record: Done, appKey: Buffer, recordKey: string) {
  let body: unknown;
  try {
    body = JSON.parse(decrypt(appKey, record.body, recordKey));
  } catch {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "The response kept for this Idempotency-Key cannot be replayed by this server.", {
      remediation: "Send the request again with a new Idempotency-Key. (Operators: every process of a deployment must share APP_KEY.)",
    });
  }
  ctx.status = record.status;
  ctx.set("Idempotent-Replay", "true");
  ctx.type = "application/json";
  ctx.body = body;
}

/** Takes the claim's key for this request; the record found there when another holds it. */
async function takeKey(kv: Kv, claim: IdempotencyClaim, claimed: ClaimOutcome | null): Promise<string | null> {
  if (claimed) return claimed.taken ? null : claimed.existing;
  for (let attempt = 0; ; attempt++) {
    if (await kv.set(claim.key, claim.lock, { ttlMs: IDEMPOTENCY_LOCK_MS, onlyIfAbsent: true })) return null;
    const existing = await kv.get(claim.key);
    if (existing !== null) return existing;
    // Released between our two calls; try to take it again.
    if (attempt >= 3) throw new ApiError("IDEMPOTENCY_REPLAY_IN_PROGRESS", "A request with this Idempotency-Key is still running.");
  }
}

/**
 * Runs `execute` at most once per key; replays or refuses repeats as the table above says.
 * `claimed`: the claim already settled (in admission's round trip), or null to settle it here.
 */
export async function runIdempotently(
  ctx: Koa.Context,
  kv: Kv,
  appKey: Buffer,
  claim: IdempotencyClaim,
  claimed: ClaimOutcome | null,
  execute: () => Promise<void>,
): Promise<void> {
  const existing = await takeKey(kv, claim, claimed);
  if (existing !== null) {
    const record = JSON.parse(existing) as Running | Done;
    if (record.hash !== claim.hash) {
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used with a different request body.");
    }
    if (record.state === "running") {
      throw new ApiError("IDEMPOTENCY_REPLAY_IN_PROGRESS", "The first request with this Idempotency-Key is still running.", {
        headers: { "Retry-After": "1" },
      });
    }
    return replay(ctx, record, appKey, claim.key);
  }

  try {
    await execute();
  } catch (err) {
    await kv.compareAndDelete(claim.key, claim.lock);
    throw err;
  }
  const jsonBody = ctx.body !== undefined && ctx.body !== null && ctx.response.is("json") !== false;
  if (!(ctx.status >= 200 && ctx.status < 300 && jsonBody)) {
    await kv.compareAndDelete(claim.key, claim.lock);
    return;
  }
  const done: Done = { state: "done", hash: claim.hash, status: ctx.status, body: encrypt(appKey, JSON.stringify(ctx.body), claim.key) };
  await kv.compareAndSet(claim.key, claim.lock, JSON.stringify(done), IDEMPOTENCY_TTL_MS);
}
