// CORS for the hosts called with a bearer token (REST and MCP): any origin, never credentials
// (cookies are not read there, so a page on another origin gains nothing it could not send
// itself), the preflight answered before authentication and routing, cached for a day.
import type Koa from "koa";

export interface BearerCorsPolicy {
  allowMethods: string;
  allowHeaders: string;
  exposeHeaders: string;
}

export const CORS_MAX_AGE_SECONDS = 86_400;

/** Answers every OPTIONS as a preflight (204); other requests get the origin and exposed headers. */
export function bearerCors(policy: BearerCorsPolicy): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set("Access-Control-Allow-Origin", "*");
    if (ctx.method === "OPTIONS") {
      ctx.set("Access-Control-Allow-Methods", policy.allowMethods);
      ctx.set("Access-Control-Allow-Headers", policy.allowHeaders);
      ctx.set("Access-Control-Max-Age", String(CORS_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    ctx.set("Access-Control-Expose-Headers", policy.exposeHeaders);
    await next();
  };
}
