// The REST adapter of the pipeline (src/pipeline/run.ts): one Koa middleware per operation of the
// table. It translates HTTP into a call - the bearer header, the path and query, the body read
// after authorization - and the result back into a status and a JSON body; writes run under
// their Idempotency-Key.
import type Koa from "koa";
import { Readable } from "node:stream";
import type { FileBody, OperationSpec } from "../../../generated/operations.ts";
import { addFieldError, ApiError, emptyFieldErrors } from "../../errors.ts";
import { parseQuery } from "../../http/query.ts";
import { publicUrlOf } from "../../http/public-url.ts";
import { admit, prepareOperation, type PipelineDeps } from "../../pipeline/run.ts";
import { rateLimitHeaders, type Window } from "../../pipeline/rate-limit.ts";
import { parseJsonBody, readBodyText } from "../../http/body.ts";
import type { RequestState } from "../../http/request.ts";
import type { ExecutionHooks } from "../../pipeline/execute.ts";
import { idempotencyClaim, idempotencyKeyOf, runRestIdempotently, type IdempotencyClaim } from "./idempotency.ts";

export interface OperationRouteDeps extends PipelineDeps {
  budget: readonly Window[];
}

async function admitRest(ctx: Koa.Context, deps: OperationRouteDeps, now: Date) {
  try {
    const admission = await admit(deps, ctx.get("authorization"), deps.budget, "rest", now);
    (ctx.state as RequestState).credentialId = admission.principal.credentialId;
    ctx.set(rateLimitHeaders(admission.rate));
    return admission;
  } catch (err) {
    if (err instanceof ApiError && err.code === "AUTHENTICATION_REQUIRED") ctx.set("WWW-Authenticate", 'Bearer realm="SubBridge API"');
    throw err;
  }
}

/**
 * A file answer (text/csv): sent as the handler's chunks come, so the rows are read while the
 * client downloads and never all held at once. A failure before the first chunk still answers the
 * error envelope (the handler settles tenancy before it returns); one after it ends the connection.
 */
function sendFile(ctx: Koa.Context, media: string, file: FileBody): void {
  ctx.type = `${media}; charset=utf-8`;
  ctx.attachment(file.filename, { type: "attachment" });
  ctx.body = Readable.from(file.chunks);
}

export function operationRoute(op: OperationSpec, deps: OperationRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const now = deps.now();
    const state = ctx.state as RequestState;
    state.operation = op.id;
    const admission = op.public ? null : await admitRest(ctx, deps, now);
    const principal = admission?.principal ?? null;
    let claim: IdempotencyClaim | null = null;
    const { query, undecodable } = parseQuery(ctx.querystring);
    const problems = emptyFieldErrors();
    for (const name of undecodable) if (op.queryParams.includes(name)) addFieldError(problems, name, "is not valid UTF-8 once percent-decoded");

    const prepared = await prepareOperation(deps, {
      op,
      principal,
      path: (ctx as unknown as { params?: Record<string, string> }).params ?? {},
      query,
      problems,
      // Read only once authorization has passed: an unauthorized client's body is never read.
      body: async () => {
        if (!op.write) return undefined;
        const body = parseJsonBody(ctx, await readBodyText(ctx), op.body !== null);
        if (principal) claim = idempotencyClaim(principal.credentialId, ctx.method, ctx.path, idempotencyKeyOf(ctx), body.bytes);
        return body.json;
      },
      actorKind: principal?.human ? "human" : "api_token",
      requestId: state.requestId,
      resourceUrl: () => publicUrlOf(ctx, deps.baseUrl),
      now,
    });

    const respond = async (hooks?: ExecutionHooks) => {
      const output = await prepared.execute(hooks);
      ctx.status = op.successStatus;
      if (op.successMedia && op.successMedia !== "application/json") sendFile(ctx, op.successMedia, output as FileBody);
      else if (op.successBody) ctx.body = output;
    };
    const idempotent = claim as IdempotencyClaim | null;
    if (idempotent) await runRestIdempotently(ctx, deps, idempotent, now, op.successBody ? { status: op.successStatus } : null, respond);
    else await respond();
  };
}
