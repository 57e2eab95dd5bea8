// A discovery document (service description, "Discovery documents"): answered to GET without
// credentials, with Cache-Control public, max-age=3600 and Access-Control-Allow-Origin *, and
// limited to 60 requests a minute per IP (429 with Retry-After beyond).
import type Koa from "koa";
import type { Kv } from "../kv/kv.ts";
import { consumeBudget, DISCOVERY_BUDGET, rateLimited } from "../pipeline/rate-limit.ts";
import { clientNetworkOf } from "./request.ts";

export interface DiscoveryDeps {
  kv: Kv;
  now: () => Date;
}

export function discoveryDocument(deps: DiscoveryDeps, body: unknown, type = "application/json"): Koa.Middleware {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return discoveryRoute(deps, async (ctx) => {
    ctx.type = type;
    ctx.body = text;
  });
}

/** The same rules around a document made per request (`answer` sets the body, e.g. read from the database). */
export function discoveryRoute(deps: DiscoveryDeps, answer: Koa.Middleware): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set("Access-Control-Allow-Origin", "*");
    const rate = await consumeBudget(deps.kv, `discovery-ip:${clientNetworkOf(ctx)}`, DISCOVERY_BUDGET, deps.now().getTime());
    if (rate.retryAfter !== null) throw rateLimited(rate);
    ctx.set("Cache-Control", "public, max-age=3600");
    await answer(ctx, next);
  };
}
