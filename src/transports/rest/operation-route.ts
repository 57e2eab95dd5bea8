// The REST adapter of the pipeline (src/pipeline/run.ts): one Koa middleware per operation of the
// table. It translates HTTP into a call - the bearer header, the path and query, the body read
// after authorization - and the result back into a status and a JSON body; writes run under
// their Idempotency-Key.
import type Koa from "koa";
import type { OperationSpec } from "../../../generated/operations.ts";
import { addFieldError, ApiError, emptyFieldErrors } from "../../errors.ts";
import { parseQuery } from "../http/query.ts";
import { admit, prepareOperation, type PipelineDeps } from "../../pipeline/run.ts";
import { rateLimitHeaders, type Window } from "../../pipeline/rate-limit.ts";
import type { Principal } from "../../pipeline/context.ts";
import { readJsonBody } from "../http/body.ts";
import type { RequestState } from "../http/request.ts";
import { idempotencyKeyOf, runIdempotently } from "./idempotency.ts";

export interface OperationRouteDeps extends PipelineDeps {
  budget: readonly Window[];
}

/**
 * The request's address on the public base URL, for list links. Built from the parsed path and
 * query, never from the request line: an absolute-form target (GET http://other.example/v1/...)
 * names a host the client chose.
 */
export function publicUrlOf(ctx: Koa.Context, baseUrl: string): URL {
  return new URL(`${baseUrl}${ctx.path}${ctx.querystring ? `?${ctx.querystring}` : ""}`);
}

async function admitRest(ctx: Koa.Context, deps: OperationRouteDeps, now: Date): Promise<Principal> {
  try {
    const { principal, rate } = await admit(deps, ctx.get("authorization"), deps.budget, "rest", now);
    (ctx.state as RequestState).credentialId = principal.credentialId;
    ctx.set(rateLimitHeaders(rate));
    return principal;
  } catch (err) {
    if (err instanceof ApiError && err.code === "AUTHENTICATION_REQUIRED") ctx.set("WWW-Authenticate", 'Bearer realm="SubBridge API"');
    throw err;
  }
}

export function operationRoute(op: OperationSpec, deps: OperationRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const now = deps.now();
    const state = ctx.state as RequestState;
    const principal = op.public ? null : await admitRest(ctx, deps, now);
    let write: { bytes: Buffer; key: string } | null = null;
    const { query, undecodable } = parseQuery(ctx.querystring);
    const problems = emptyFieldErrors();
    for (const name of undecodable) if (op.queryParams.includes(name)) addFieldError(problems, name, "is not valid UTF-8 once percent-decoded");

    const prepared = await prepareOperation(deps, {
      op,
      principal,
      path: (ctx as unknown as { params?: Record<string, string> }).params ?? {},
      query,
      problems,
      body: async () => {
        if (!op.write) return undefined;
        const body = await readJsonBody(ctx, op.body !== null);
        if (principal) write = { bytes: body.bytes, key: idempotencyKeyOf(ctx) };
        return body.json;
      },
      actorKind: "api_token",
      requestId: state.requestId,
      resourceUrl: () => publicUrlOf(ctx, deps.baseUrl),
      now,
    });

    const respond = async () => {
      const output = await prepared.execute();
      ctx.status = op.successStatus;
      if (op.successBody) ctx.body = output;
    };
    const idempotent = write as { bytes: Buffer; key: string } | null;
    if (idempotent && principal) {
      await runIdempotently(
        ctx,
        { kv: deps.kv, appKey: deps.appKey, tokenId: principal.credentialId, key: idempotent.key, rawBody: idempotent.bytes },
        respond,
      );
    } else {
      await respond();
    }
  };
}
