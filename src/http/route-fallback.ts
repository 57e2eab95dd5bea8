// The last middleware of a surface: nothing matched the path and method. 405 with an Allow header
// when the path exists under other methods, else 404; both in the error envelope.
import type Koa from "koa";
import type { Router } from "@koa/router";
import { ApiError } from "../errors.ts";

export function routeFallback(router: Router, remediation: string): Koa.Middleware {
  return async (ctx) => {
    const allowed = new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods));
    if (allowed.size) {
      const allow = [...allowed].sort().join(", ");
      throw new ApiError("METHOD_NOT_ALLOWED", `${ctx.method} is not accepted on ${ctx.path}; use ${allow}.`, { headers: { Allow: allow } });
    }
    throw new ApiError("RESOURCE_NOT_FOUND", `No route ${ctx.method} ${ctx.path}.`, { remediation });
  };
}
