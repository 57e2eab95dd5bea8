// What a listener answers while its process starts (src/startup.ts): /up says the process runs,
// /ready (where the surface has it) says it is not ready yet, and every other request is told to
// come back, in the error envelope, until the surface's own app takes over the listener.
import Koa from "koa";
import type { Logger } from "pino";
import { ApiError } from "../errors.ts";
import { readinessRoute, type ReadinessProbe } from "../observability/readiness.ts";
import { requestContext } from "./request.ts";

export function createStartingApp(deps: {
  surface: string;
  release: string;
  docsUrl: string;
  logger: Logger;
  /** The process's readiness, on the surfaces that answer /ready. */
  readiness?: ReadinessProbe;
}): Koa {
  const ready = deps.readiness ? readinessRoute(deps.readiness) : null;
  const app = new Koa();
  app.use(requestContext({ logger: deps.logger, docsUrl: deps.docsUrl, surface: deps.surface }));
  app.use(async (ctx, next) => {
    if (ctx.method === "GET" && ctx.path === "/up") {
      ctx.set("Cache-Control", "no-store");
      ctx.body = { status: "up", release: deps.release };
      return;
    }
    if (ctx.method === "GET" && ctx.path === "/ready" && ready) return ready(ctx, next);
    throw new ApiError("SERVICE_BUSY", "The service is starting; try again in a moment.", { headers: { "Retry-After": "1" } });
  });
  return app;
}
