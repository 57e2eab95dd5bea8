// One Koa middleware per operation of the table: authenticate, rate limit, authorize, validate,
// then run the handler (writes under an Idempotency-Key, inside one transaction).
import type Koa from "koa";
import type { Knex } from "knex";
import type { OperationSpec } from "../../../generated/operations.ts";
import type { Kv } from "../../kv/kv.ts";
import type { Actor } from "../../db/tenant.ts";
import type { ConnectorRegistry } from "../../modules/connectors/registry.ts";
import { authenticateBearer } from "../../pipeline/authenticate.ts";
import { authorizeOperation } from "../../pipeline/authorize.ts";
import { validateInput } from "../../pipeline/validate.ts";
import { executeOperation, type AppHandlers } from "../../pipeline/execute.ts";
import { consumeBudget, rateLimitHeaders, rateLimited, type Window } from "../../pipeline/rate-limit.ts";
import { readJsonBody } from "../http/body.ts";
import { idempotencyKeyOf, runIdempotently } from "./idempotency.ts";
import type { RequestState } from "../http/request.ts";

export interface OperationRouteDeps {
  db: Knex;
  kv: Kv;
  appKey: Buffer;
  handlers: AppHandlers;
  now: () => Date;
  release: string;
  /** Public base URL of the API (absolute links in list envelopes). */
  baseUrl: string;
  budget: readonly Window[];
  /** The connector packages loaded at start. */
  connectors: ConnectorRegistry;
}

/**
 * The request's address on the public base URL, for list links. Built from the parsed path and
 * query, never from the request line: an absolute-form target (GET http://other.example/v1/...)
 * names a host the client chose.
 */
export function publicUrlOf(ctx: Koa.Context, baseUrl: string): URL {
  return new URL(`${baseUrl}${ctx.path}${ctx.querystring ? `?${ctx.querystring}` : ""}`);
}

export function operationRoute(op: OperationSpec, deps: OperationRouteDeps): Koa.Middleware {
  return async (ctx) => {
    const now = deps.now();
    const state = ctx.state as RequestState;
    const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
    let principal = null;
    let actor: Actor | null = null;

    if (!op.public) {
      try {
        principal = await authenticateBearer(deps.db, ctx.get("authorization"), now);
      } catch (err) {
        ctx.set("WWW-Authenticate", 'Bearer realm="SubBridge API"');
        throw err;
      }
      state.credentialId = principal.credentialId;
      const rate = await consumeBudget(deps.kv, `token:${principal.credentialId}`, deps.budget, now.getTime());
      ctx.set(rateLimitHeaders(rate));
      if (rate.retryAfter !== null) throw rateLimited(rate);
      authorizeOperation(op, principal, params);
      actor = {
        userId: principal.userId,
        teamId: principal.teamId,
        projectIds: principal.projectIds,
        kind: "api_token",
        credentialKind: principal.credentialKind,
        requestId: state.requestId,
      };
    }

    const rawBody = op.write ? await readJsonBody(ctx) : null;
    const idempotencyKey = op.write && principal ? idempotencyKeyOf(ctx) : null;
    const input = validateInput(op, { path: params, query: { ...ctx.query }, body: rawBody?.json });

    const execute = async () => {
      const output = await executeOperation(deps.db, deps.handlers, op, input, {
        now,
        requestId: state.requestId,
        principal,
        actor,
        resourceUrl: publicUrlOf(ctx, deps.baseUrl),
        release: deps.release,
        connectors: deps.connectors,
      });
      ctx.status = op.successStatus;
      if (op.successBody) ctx.body = output;
    };
    if (idempotencyKey !== null && principal) {
      await runIdempotently(
        ctx,
        { kv: deps.kv, appKey: deps.appKey, tokenId: principal.credentialId, key: idempotencyKey, rawBody: rawBody!.bytes },
        execute,
      );
    } else {
      await execute();
    }
  };
}
