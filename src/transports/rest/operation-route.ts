// The REST adapter of the pipeline (src/pipeline/run.ts): one Koa middleware per operation of the
// table. It translates HTTP into a call - the bearer header, the path and query, the body read
// after authorization - and the result back into a status and a JSON body; writes run under
// their Idempotency-Key.
import type Koa from "koa";
import type { OperationSpec } from "../../../generated/operations.ts";
import { addFieldError, ApiError, emptyFieldErrors } from "../../errors.ts";
import { parseQuery } from "../http/query.ts";
import { publicUrlOf } from "../http/public-url.ts";
import { admit, prepareOperation, type PipelineDeps } from "../../pipeline/run.ts";
import { rateLimitHeaders, type Window } from "../../pipeline/rate-limit.ts";
import { parseJsonBody, readBodyText } from "../http/body.ts";
import type { RequestState } from "../http/request.ts";
import type { AlsoRecord } from "../../pipeline/execute.ts";
import { idempotencyClaim, idempotencyKeyOf, lockOf, runIdempotently, type IdempotencyClaim } from "./idempotency.ts";

export interface OperationRouteDeps extends PipelineDeps {
  budget: readonly Window[];
}

async function admitRest(ctx: Koa.Context, deps: OperationRouteDeps, now: Date, early: EarlyWrite | null) {
  try {
    const admission = await admit(
      deps,
      ctx.get("authorization"),
      deps.budget,
      "rest",
      now,
      early?.claimable ? (tokenId) => lockOf((early.claim = idempotencyClaim(tokenId, ctx.method, ctx.path, early.key!, early.bytes!))) : undefined,
    );
    (ctx.state as RequestState).credentialId = admission.principal.credentialId;
    ctx.set(rateLimitHeaders(admission.rate));
    return admission;
  } catch (err) {
    if (err instanceof ApiError && err.code === "AUTHENTICATION_REQUIRED") ctx.set("WWW-Authenticate", 'Bearer realm="SubBridge API"');
    throw err;
  }
}

/**
 * A credentialed write's body, read before admission so that its idempotency lock is taken in
 * admission's KV round trip. What reading it found wrong is reported where it always was: after
 * authorization, with the body's other faults.
 */
interface EarlyWrite {
  bytes: Buffer | null;
  text: string | null;
  /** Why the body could not be read (thrown when the body is asked for). */
  failure: unknown;
  /** The Idempotency-Key header, when present and of an acceptable length. */
  key: string | null;
  /** Whether the lock can be taken in admission (a readable body and a usable key). */
  claimable: boolean;
  /** Set by admission when it asked for the lock. */
  claim: IdempotencyClaim | null;
}

async function readEarly(ctx: Koa.Context): Promise<EarlyWrite> {
  let key: string | null = null;
  try {
    key = idempotencyKeyOf(ctx);
  } catch {
    // Reported after authorization, as before.
  }
  try {
    const { bytes, text } = await readBodyText(ctx);
    return { bytes, text, failure: null, key, claimable: key !== null, claim: null };
  } catch (failure) {
    return { bytes: null, text: null, failure, key, claimable: false, claim: null };
  }
}

export function operationRoute(op: OperationSpec, deps: OperationRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const now = deps.now();
    const state = ctx.state as RequestState;
    const early = op.write && !op.public ? await readEarly(ctx) : null;
    const admission = op.public ? null : await admitRest(ctx, deps, now, early);
    const principal = admission?.principal ?? null;
    const claimed = admission?.claim ?? null;
    let claim: IdempotencyClaim | null = null;
    const { query, undecodable } = parseQuery(ctx.querystring);
    const problems = emptyFieldErrors();
    for (const name of undecodable) if (op.queryParams.includes(name)) addFieldError(problems, name, "is not valid UTF-8 once percent-decoded");

    let prepared;
    try {
      prepared = await prepareOperation(deps, {
        op,
        principal,
        path: (ctx as unknown as { params?: Record<string, string> }).params ?? {},
        query,
        problems,
        body: async () => {
          if (!op.write) return undefined;
          if (early?.failure) throw early.failure;
          const raw = early ? { bytes: early.bytes!, text: early.text! } : await readBodyText(ctx);
          const body = parseJsonBody(ctx, raw, op.body !== null);
          if (principal) claim = early?.claim ?? idempotencyClaim(principal.credentialId, ctx.method, ctx.path, idempotencyKeyOf(ctx), body.bytes);
          return body.json;
        },
        actorKind: "api_token",
        requestId: state.requestId,
        resourceUrl: () => publicUrlOf(ctx, deps.baseUrl),
        now,
      });
    } catch (err) {
      // A lock taken in admission for a request refused before it ran is given back.
      if (early?.claim && claimed?.taken) await deps.kv.compareAndDelete(early.claim.key, early.claim.lock);
      throw err;
    }

    const respond = async (also?: AlsoRecord) => {
      const output = await prepared.execute(also);
      ctx.status = op.successStatus;
      if (op.successBody) ctx.body = output;
    };
    const idempotent = claim as IdempotencyClaim | null;
    if (idempotent) {
      const keeps = op.successBody ? { status: op.successStatus } : null;
      await runIdempotently(ctx, deps, idempotent, idempotent === early?.claim ? claimed : null, now, keeps, respond);
    } else {
      await respond();
    }
  };
}
