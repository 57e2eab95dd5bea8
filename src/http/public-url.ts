import type Koa from "koa";

/**
 * The request's address on a surface's public URL, built from the parsed path and query, never
 * from the request line: an absolute-form target (GET http://other.example/v1/...) names a host
 * the client chose, and the Host header is the client's too.
 */
export function publicUrlOf(ctx: Koa.Context, surfaceUrl: string): URL {
  return new URL(`${surfaceUrl}${ctx.path}${ctx.querystring ? `?${ctx.querystring}` : ""}`);
}
