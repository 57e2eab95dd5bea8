// REST's side of idempotency (the rules and the store: src/pipeline/idempotency.ts): the key from
// the Idempotency-Key header, and a replay answered with its kept status, body and
// Idempotent-Replay: true.
import type Koa from "koa";
import { ApiError, validationFailed } from "../../errors.ts";
import type { ExecutionHooks } from "../../pipeline/execute.ts";
import { MAX_KEY_LENGTH, runIdempotently, type IdempotencyClaim, type IdempotencyDeps } from "../../pipeline/idempotency.ts";

export { idempotencyClaim, idempotencyRecordKey, type IdempotencyClaim } from "../../pipeline/idempotency.ts";

export function idempotencyKeyOf(ctx: Koa.Context): string {
  const key = ctx.get("idempotency-key");
  if (!key) throw new ApiError("IDEMPOTENCY_KEY_MISSING", "This write needs an Idempotency-Key header.");
  if (key.length > MAX_KEY_LENGTH) throw validationFailed({ "Idempotency-Key": [`must be at most ${MAX_KEY_LENGTH} characters`] });
  return key;
}

/** Runs a REST write under its claim; a repeat is answered with the kept response. */
export async function runRestIdempotently(
  ctx: Koa.Context,
  deps: IdempotencyDeps,
  claim: IdempotencyClaim,
  now: Date,
  keeps: { status: number } | null,
  execute: (hooks: ExecutionHooks) => Promise<void>,
): Promise<void> {
  const replayed = await runIdempotently(deps, claim, now, keeps, execute);
  if (!replayed) return;
  ctx.status = replayed.status;
  ctx.set("Idempotent-Replay", "true");
  ctx.type = "application/json";
  ctx.body = replayed.body;
}
