// CORS on the MCP host, as the service description sets it: any origin, no credentials (bearer
// tokens only; cookies are never read), preflight answered before authentication and cached
// for a day. Allow-Headers adds to the described list the headers a 2026-07-28 client must send
// (Mcp-Method, Mcp-Name) and the tool selection headers; without them a browser's preflight for
// every 2026-07-28 request would fail.
import type Koa from "koa";

export const CORS_ALLOW_METHODS = "POST, GET, DELETE, OPTIONS";
export const CORS_ALLOW_HEADERS =
  "Authorization, Content-Type, Accept, MCP-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, X-MCP-Toolsets, X-MCP-Readonly";
export const CORS_EXPOSE_HEADERS = "MCP-Session-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, WWW-Authenticate";
export const CORS_MAX_AGE_SECONDS = 86_400;

export function mcpCors(): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set("Access-Control-Allow-Origin", "*");
    if (ctx.method === "OPTIONS") {
      ctx.set("Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
      ctx.set("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
      ctx.set("Access-Control-Max-Age", String(CORS_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    ctx.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    await next();
  };
}
