// The last middleware of a surface: nothing matched the path and method. 405 with an Allow header
// when the path exists under other methods, else 404; both in the error envelope.
import type Koa from "koa";
import type { Router } from "@koa/router";
import { ApiError } from "../errors.ts";

/** The methods routed elsewhere than `router` at a path (the API's operation table). */
export type MethodsAt = (path: string) => readonly string[];

/** The methods `path` answers to, as an Allow header's value; null when no route has the path. */
export function allowedMethods(router: Router, ctx: Koa.Context, elsewhere?: MethodsAt): string | null {
  const allowed = new Set([...router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods), ...(elsewhere?.(ctx.path) ?? [])]);
  return allowed.size ? [...allowed].sort().join(", ") : null;
}

export function routeFallback(router: Router, remediation: string, elsewhere?: MethodsAt): Koa.Middleware {
  return async (ctx) => {
    const allow = allowedMethods(router, ctx, elsewhere);
    if (allow) {
      throw new ApiError("METHOD_NOT_ALLOWED", `${ctx.method} is not accepted on ${ctx.path}; use ${allow}.`, { headers: { Allow: allow } });
    }
    throw new ApiError("RESOURCE_NOT_FOUND", `No route ${ctx.method} ${ctx.path}.`, { remediation });
  };
}
