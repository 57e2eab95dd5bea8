// The MCP surface ({mcp_url}): the endpoint at the root, its health check and its discovery
// documents (protected-resource metadata, server card). Stateless: every process serves alike.
import Koa from "koa";
import { Router } from "@koa/router";
import type { Logger } from "pino";
import { routeFallback } from "../../http/route-fallback.ts";
import { discoveryDocument } from "../../http/discovery-document.ts";
import { requestContext } from "../../http/request.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import type { Window } from "../../pipeline/rate-limit.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";
import { mcpCors } from "./cors.ts";
import { mcpEndpoint } from "./endpoint.ts";
import type { GroupedActivityWriter } from "../../modules/activity/grouped-writer.ts";
import { hostPolicy } from "./host-validation.ts";
import { PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from "./protected-resource-metadata.ts";
import { resourceCatalog } from "./resources/catalog.ts";
import { SERVER_CARD_PATH, serverCard } from "./server-card.ts";
import { mountMcpDiscovery } from "../site/discovery/routes.ts";
import { readinessRoute, type ReadinessProbe } from "../../observability/readiness.ts";

/** What the pipeline needs (PipelineDeps), and what the MCP surface adds. */
export interface McpAppDeps extends PipelineDeps {
  /** Public addresses of this surface and of the reference (the pipeline's cover the rest). */
  mcpUrl: string;
  docsUrl: string;
  logger: Logger;
  /** Where the entries of reads and refusals are written (Services.activity: one per process, drained on shutdown). */
  invocations: GroupedActivityWriter;
  /** Answer a read or a refusal once its entry is committed (MCP_INVOCATION_ENTRIES=committed), not when it is queued. */
  awaitInvocationEntries?: boolean;
  /** Per token (MCP_BUDGET in production). */
  budget: readonly Window[];
  /** Per IP, for requests without a valid credential (UNAUTHENTICATED_MCP_BUDGET). */
  unauthenticatedBudget: readonly Window[];
  /** MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS (config). */
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** How the per-IP limits find the client (TRUST_PROXY); the socket's address by default. */
  clientIp?: ClientIpResolver;
  /** GET /ready answers from it (503 while the database or the KV store does not answer). */
  readiness?: ReadinessProbe;
}

/** Discovery documents: public, cacheable for an hour, readable from any origin. */
export function createMcpApp(deps: McpAppDeps): Koa {
  const app = new Koa();
  const resources = resourceCatalog({ mcpUrl: deps.mcpUrl, baseUrl: deps.baseUrl, authUrl: deps.authUrl, docsUrl: deps.docsUrl });

  const endpoint = mcpEndpoint({
    ...deps,
    resources,
    hostPolicy: hostPolicy(deps.mcpUrl, deps.allowedHosts, deps.allowedOrigins),
  });
  const router = new Router();
  router.register("/", ["POST", "GET", "DELETE", "PUT", "PATCH"], endpoint);
  router.register("/up", ["GET"], async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "up", release: deps.release };
  });
  if (deps.readiness) router.register("/ready", ["GET"], readinessRoute(deps.readiness));
  router.register(PROTECTED_RESOURCE_PATH, ["GET"], discoveryDocument(deps, protectedResourceMetadata(deps)));
  router.register(SERVER_CARD_PATH, ["GET"], discoveryDocument(deps, serverCard({ ...deps, resourceCount: resources.length })));
  mountMcpDiscovery(router, deps);

  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "mcp",
      publicUrl: deps.mcpUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(mcpCors());
  app.use(router.routes());
  app.use(routeFallback(router, `The MCP endpoint is ${deps.mcpUrl} (POST); see ${deps.mcpUrl}${SERVER_CARD_PATH}.`));
  return app;
}
