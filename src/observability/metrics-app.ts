// The operator's listener (METRICS_PORT, on METRICS_HOST, loopback unless configured): /metrics in
// Prometheus text format, and /up and /ready for probes that reach this port rather than a public
// surface. /metrics needs `Authorization: Bearer <METRICS_TOKEN>` whenever a token is configured,
// which config.ts requires before the listener may bind to anything but loopback.
import { createHash, timingSafeEqual } from "node:crypto";
import Koa from "koa";
import { Router } from "@koa/router";
import type { Logger } from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";
import type { Database } from "../db/database.ts";
import { ApiError } from "../errors.ts";
import { requestContext } from "../http/request.ts";
import { routeFallback } from "../http/route-fallback.ts";
import { processRegistry } from "./metrics.ts";
import { READINESS_TIMEOUT_MS, readinessRoute, type ReadinessProbe } from "./readiness.ts";
import { registerScrapeGauges } from "./scrape-gauges.ts";

export interface MetricsAppDeps {
  db: Database;
  logger: Logger;
  docsUrl: string;
  release: string;
  readiness: ReadinessProbe;
  /** METRICS_TOKEN; null = /metrics answers anyone who reaches the (loopback) listener. */
  token: string | null;
}

/** Node's process metrics (CPU, memory, event-loop lag, handles), collected once per process. */
let runtimeRegistry: Registry | null = null;
function runtimeMetrics(): Registry {
  if (!runtimeRegistry) {
    runtimeRegistry = new Registry();
    collectDefaultMetrics({ register: runtimeRegistry });
  }
  return runtimeRegistry;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` is `Bearer <token>` (compared in constant time). */
function bearerMatches(authorization: string, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(authorization.trim());
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

export function createMetricsApp(deps: MetricsAppDeps): Koa {
  const scrape = new Registry();
  registerScrapeGauges(scrape, { db: deps.db, logger: deps.logger, timeoutMs: READINESS_TIMEOUT_MS });
  const registry = Registry.merge([processRegistry, runtimeMetrics(), scrape]);

  const router = new Router();
  router.register("/metrics", ["GET"], async (ctx) => {
    if (deps.token !== null && !bearerMatches(ctx.get("authorization"), deps.token)) {
      throw new ApiError("AUTHENTICATION_REQUIRED", "The metrics need the bearer token the operator set in METRICS_TOKEN.", {
        headers: { "WWW-Authenticate": 'Bearer realm="SubBridge metrics"' },
      });
    }
    ctx.set("Cache-Control", "no-store");
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  router.register("/up", ["GET"], async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "up", release: deps.release };
  });
  router.register("/ready", ["GET"], readinessRoute(deps.readiness));

  const app = new Koa();
  app.use(requestContext({ logger: deps.logger, docsUrl: deps.docsUrl, surface: "metrics" }));
  app.use(router.routes());
  app.use(routeFallback(router, "This listener serves GET /metrics, /up and /ready."));
  return app;
}
