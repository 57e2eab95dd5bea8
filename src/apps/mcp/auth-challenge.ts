// Bearer authentication on the MCP endpoint: the pipeline's admission, as REST's, plus the
// RFC 9728 challenge that sends a client to the protected-resource metadata, and the budgets:
// a valid token spends its MCP budget, anything else spends its IP's small unauthenticated one.
import type Koa from "koa";
import type { Knex } from "knex";
import type { Kv } from "../../kv/kv.ts";
import { ApiError } from "../../errors.ts";
import { admit } from "../../pipeline/run.ts";
import type { Principal } from "../../pipeline/context.ts";
import { consumeBudget, rateLimitHeaders, rateLimited, type Window } from "../../pipeline/rate-limit.ts";
import { PROTECTED_RESOURCE_PATH } from "./protected-resource-metadata.ts";
import { clientNetworkOf } from "../../http/request.ts";
import type { Environment } from "../../modules/tokens/environment.ts";

export const MCP_SCOPE = "mcp:use";

export function bearerChallenge(mcpUrl: string): string {
  return `Bearer resource_metadata="${mcpUrl}${PROTECTED_RESOURCE_PATH}", scope="${MCP_SCOPE}"`;
}

export interface McpAuthDeps {
  db: Knex;
  kv: Kv;
  now: () => Date;
  mcpUrl: string;
  budget: readonly Window[];
  unauthenticatedBudget: readonly Window[];
  /** Which tokens are this deployment's (sbt_live_ or sbt_test_); absent = live. */
  environment?: Environment;
}

/** The request's principal; throws 401 with the challenge, or 429 once a budget is spent. */
export async function authenticateMcpRequest(ctx: Koa.Context, deps: McpAuthDeps): Promise<Principal> {
  const now = deps.now();
  let admission;
  try {
    admission = await admit(deps, ctx.get("authorization"), deps.budget, "mcp", now);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "AUTHENTICATION_REQUIRED") throw err;
    const rate = await consumeBudget(deps.kv, `mcp-ip:${clientNetworkOf(ctx)}`, deps.unauthenticatedBudget, now.getTime());
    if (rate.retryAfter !== null) throw rateLimited(rate);
    ctx.set("WWW-Authenticate", bearerChallenge(deps.mcpUrl));
    throw err;
  }
  ctx.set(rateLimitHeaders(admission.rate));
  return admission.principal;
}
