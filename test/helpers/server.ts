// Starts the API surface in-process on a free port, over the run's backends.
import { createServer, type Server } from "node:http";
import type Koa from "koa";
import pino, { type Logger } from "pino";
import type { ClientIpResolver } from "../../src/http/client-ip.ts";
import { createApiApp, type ApiAppDeps } from "../../src/apps/api/api-app.ts";
import { answerParserErrorsInEnvelope } from "../../src/http/parser-errors.ts";
import { handlers as realHandlers, preflights } from "../../src/modules/handlers.ts";
import { REST_BUDGET } from "../../src/pipeline/rate-limit.ts";
import type { AppHandlers } from "../../src/pipeline/execute.ts";
import { DEFAULT_CONNECTORS_DIR } from "../../src/config.ts";
import { loadConnectorRegistry, type ConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { testDatabase, testKv } from "./backends.ts";
import type { Database } from "../../src/db/database.ts";
import type { Kv } from "../../src/kv/kv.ts";
import { listenOnLoopback } from "./open-resources.ts";
import type { TestClock } from "./clock.ts";
import { PORTAL_URL, testPlatformEndpoints } from "./platforms.ts";
import type { PlatformEndpoints } from "../../src/config.ts";
import type { WebhookNetwork } from "../../src/modules/webhooks/address-guard.ts";
import type { StripeTwin } from "../../src/simulators/stripe/index.ts";
import { createStripeClient } from "../../src/modules/payments/stripe/client.ts";
import { stripeEventsUrl } from "../../src/modules/payments/stripe/stripe-payments.ts";

export const TEST_APP_KEY = Buffer.alloc(32, 7);
export const DOCS_URL = "http://docs.test";
export const AUTH_URL = "http://auth.test";
/** The creator dashboard's public address (links a creator opens, e.g. a project's payments page). */
export const DASHBOARD_URL = "http://dashboard.test";
export const MCP_URL = "http://mcp.test";

/** Logs go nowhere unless TEST_LOGS=1. */
export const testLogger = pino({ level: process.env.TEST_LOGS ? "debug" : "silent" });

export interface RunningApi {
  url: string;
  deps: ApiAppDeps;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: TestClock;
  /** The database the app runs on (default: the run's test database). */
  db?: Database;
  /** Instances with the same name share their KV store (rate limits, idempotency). */
  sharedKv?: string;
  /** The KV store the app runs on (default: the run's, see sharedKv). */
  kv?: Kv;
  budget?: ApiAppDeps["budget"];
  handlers?: Partial<AppHandlers>;
  /** The connector packages the app serves; default: the repository's connectors/ folder. */
  connectors?: ConnectorRegistry;
  /** Where the connector drivers reach their platforms (default: the process's fake platform). */
  platforms?: PlatformEndpoints;
  /** Where the app logs (default: nowhere unless TEST_LOGS=1). */
  logger?: Logger;
  /** How the app finds the client's address (default: the socket's, TRUST_PROXY unset). */
  clientIp?: ClientIpResolver;
  /** Where webhooks may be sent (default TEST_WEBHOOK_NETWORK: loopback over http allowed). */
  webhooks?: WebhookNetwork;
  /** A Stripe twin the app takes payments on: a Connect webhook endpoint on it points at the app's route. */
  stripeTwin?: StripeTwin;
}

/**
 * Tests reach local receivers: loopback exempt and http allowed (WEBHOOK_ALLOWED_CIDRS and
 * WEBHOOK_ALLOW_HTTP as a developer sets them), a short time-out. The guard's own tests use
 * STRICT_WEBHOOK_NETWORK.
 */
export const TEST_WEBHOOK_NETWORK: WebhookNetwork = { allowedCidrs: ["127.0.0.0/8", "::1/128"], allowHttp: true, timeoutMs: 2_000 };

let repositoryConnectors: ConnectorRegistry | null = null;
/** The repository's connectors/ folder, loaded once per run. */
export function repositoryConnectorRegistry(): ConnectorRegistry {
  return (repositoryConnectors ??= loadConnectorRegistry(DEFAULT_CONNECTORS_DIR));
}

/**
 * Listens on a free port first, then builds the app with the address it now knows (apps need
 * their public URL for absolute links).
 */
export async function serveOnFreePort(
  build: (url: string) => Koa,
  logger: Logger = testLogger,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer();
  answerParserErrorsInEnvelope(server, { docsUrl: DOCS_URL, logger });
  const { port, close } = await listenOnLoopback(server, "app server");
  const url = `http://127.0.0.1:${port}`;
  server.on("request", build(url).callback());
  return { server, url, close };
}

export async function startApi(options: StartOptions = {}): Promise<RunningApi> {
  const db = options.db ?? (await testDatabase()).db;
  const platforms = options.platforms ?? (await testPlatformEndpoints());
  const kv =
    options.kv ??
    (await testKv({ ...(options.sharedKv ? { shared: options.sharedKv } : {}), ...(options.clock ? { now: options.clock.nowMs } : {}) }));
  let deps!: ApiAppDeps;
  const running = await serveOnFreePort((url) => {
    deps = {
      db,
      kv,
      appKey: TEST_APP_KEY,
      handlers: { ...realHandlers, ...options.handlers } as AppHandlers,
      preflights,
      now: options.clock?.now ?? (() => new Date()),
      release: "3.0.0",
      baseUrl: url,
      docsUrl: DOCS_URL,
      authUrl: AUTH_URL,
      mcpUrl: MCP_URL,
      budget: options.budget ?? REST_BUDGET,
      logger: options.logger ?? testLogger,
      connectors: options.connectors ?? repositoryConnectorRegistry(),
      platforms,
      portalUrl: PORTAL_URL,
      dashboardUrl: DASHBOARD_URL,
      webhooks: options.webhooks ?? TEST_WEBHOOK_NETWORK,
      ...(options.clientIp ? { clientIp: options.clientIp } : {}),
    };
    return createApiApp(deps);
  }, options.logger);
  if (options.stripeTwin) {
    // The endpoint needs the app's address, known only once it listens; the route reads deps.stripe per request.
    const client = createStripeClient({ secretKey: options.stripeTwin.secretKey, ...options.stripeTwin.clientOptions });
    const endpoint = await client.webhookEndpoints.create({ url: stripeEventsUrl(running.url), enabled_events: ["*"], connect: true });
    deps.stripe = { client, webhookSecret: endpoint.secret! };
  }
  return { url: running.url, deps, close: running.close };
}
