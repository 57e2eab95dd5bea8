// The REST API surface ({base_url}): the operation table routed through one pipeline (found in a
// radix tree, operation-table.ts), plus the public metadata routes.
import Koa from "koa";
import { Router } from "@koa/router";
import type { Logger } from "pino";
import { operationList } from "../../../generated/operations.ts";
import { operationRoute, type OperationRouteDeps } from "./operation-route.ts";
import { operationTable } from "./operation-table.ts";
import { requestContext } from "../../http/request.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import { routeFallback } from "../../http/route-fallback.ts";
import { compression } from "../../http/compression.ts";
import { publicDocuments } from "./public-documents.ts";
import { TELEGRAM_UPDATES_PATH, telegramUpdates } from "./telegram-updates.ts";
import { DISCORD_INTERACTIONS_PATH, discordInteractions } from "./discord-interactions.ts";
import { stripeEvents } from "./stripe-events.ts";
import { STRIPE_EVENTS_PATH } from "../../modules/payments/stripe/stripe-payments.ts";
import { BILLING_EVENTS_PATH, billingEvents } from "./billing-events.ts";
import { mountApiDiscovery } from "../site/discovery/routes.ts";
import { apiCors } from "./cors.ts";
import { readinessRoute, type ReadinessProbe } from "../../observability/readiness.ts";

export interface ApiAppDeps extends OperationRouteDeps {
  logger: Logger;
  docsUrl: string;
  /** {mcp_url}: the API catalog on this host lists the MCP server too. */
  mcpUrl: string;
  /** How the per-IP limits find the client (TRUST_PROXY); the socket's address by default. */
  clientIp?: ClientIpResolver;
  /** GET /ready answers from it (503 while the database or the KV store does not answer). */
  readiness?: ReadinessProbe;
}

export function createApiApp(deps: ApiAppDeps): Koa {
  const app = new Koa();
  const router = new Router();
  const operations = operationTable(operationList.map((op) => ({ method: op.method, path: op.routePath, middleware: operationRoute(op, deps) })));
  const documents = publicDocuments(deps, deps.release);
  for (const doc of documents) router.register(doc.path, ["GET"], doc.middleware);
  router.register(TELEGRAM_UPDATES_PATH, ["POST"], telegramUpdates(deps));
  router.register(DISCORD_INTERACTIONS_PATH, ["POST"], discordInteractions(deps));
  router.register(STRIPE_EVENTS_PATH, ["POST"], stripeEvents(deps));
  router.register(BILLING_EVENTS_PATH, ["POST"], billingEvents(deps));
  if (deps.readiness) router.register("/ready", ["GET"], readinessRoute(deps.readiness));
  mountApiDiscovery(router, deps);

  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "api",
      publicUrl: deps.baseUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(apiCors());
  app.use(compression());
  app.use(operations.routes);
  app.use(router.routes());
  app.use(routeFallback(router, "Check the method and path against the API reference (GET /openapi.json).", operations.methodsAt));
  return app;
}
