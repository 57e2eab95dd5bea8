// npm start: opens the backends (embedded defaults: PGlite under DATA_DIR, in-process KV), runs
// migrations, seeds a demo account on the first start of an empty embedded database, and serves
// every surface of this release and the job worker in one process. Each surface can also run alone
// (SURFACES=api WORKER=off), and the worker alone (SURFACES= WORKER=on).
import type { Server } from "node:http";
import { ConfigError, loadConfig, type SurfaceName } from "./config.ts";
import { EmbeddedDatabaseError } from "./embedded/database.ts";
import { BackendUnavailableError, isConnectionFailure, openServices, type Services } from "./services.ts";
import { countCreators } from "./modules/account/creators.ts";
import { DEMO_EMAIL, seedDemo } from "./operator.ts";
import { demoAccountLines } from "./first-start.ts";
import { createApiApp } from "./apps/api/api-app.ts";
import { clientIpResolver } from "./http/client-ip.ts";
import { createHttpServer, listen, stopServer } from "./http/server.ts";
import { readinessProbe, type ReadinessProbe } from "./observability/readiness.ts";
import { createMetricsApp } from "./observability/metrics-app.ts";
import { createDocsApp } from "./apps/docs/docs-app.ts";
import { createAuthApp } from "./apps/auth/auth-app.ts";
import { createSiteApp } from "./apps/site/site-app.ts";
import { createPortalApp } from "./apps/portal/portal-app.ts";
import { createMcpApp } from "./apps/mcp/mcp-app.ts";
import { MCP_BUDGET, REST_BUDGET, UNAUTHENTICATED_MCP_BUDGET } from "./pipeline/rate-limit.ts";
import { handlers, preflights } from "./modules/handlers.ts";
import { loadConnectorRegistry, type ConnectorRegistry } from "./modules/connectors/registry.ts";
import { ConnectorLoadError, displayPath } from "./modules/connectors/problems.ts";
import { openPlatforms, type PlatformEndpoints } from "./modules/connectors/platforms.ts";
import { reintroduceBots } from "./modules/connectors/platform-tasks.ts";
import { openStripe, type StripePayments } from "./modules/payments/stripe/open.ts";
import type Koa from "koa";
import { readRepositoryText } from "./repository-files.ts";
import { discoverScheduledJobs } from "./workers/jobs/discovery.ts";
import { startJobWorker, type JobWorker } from "./workers/jobs/worker.ts";
import { startDeliveryWorker, type DeliveryWorker } from "./workers/deliveries/worker.ts";
import { startMail, type MailRuntime } from "./workers/mail/start.ts";
import { startBotMessageWorker, type BotMessageWorker } from "./workers/bot-messages/worker.ts";
import { setAlertAddresses } from "./modules/alerts/links.ts";

const release = (JSON.parse(readRepositoryText("package.json")) as { version: string }).version;

function buildSurface(
  name: SurfaceName,
  s: Services,
  connectors: ConnectorRegistry,
  platforms: PlatformEndpoints,
  readiness: ReadinessProbe,
  stripe: StripePayments | null,
): Koa {
  const { config } = s;
  // What every surface is built with: the backends, the clock, the logger, the public addresses.
  const common = {
    db: s.db,
    kv: s.kv,
    appKey: s.appKey,
    now: s.now,
    release: config.release,
    logger: s.logger,
    baseUrl: config.api.url,
    docsUrl: config.docs.url,
    authUrl: config.auth.url,
    clientIp: clientIpResolver(config.trustProxy),
    environment: config.environment,
  };
  // The surfaces that run operations (REST and MCP) also need the handlers and the platforms.
  const operations = {
    ...common,
    handlers,
    preflights,
    connectors,
    platforms,
    portalUrl: config.portal.url,
    webhooks: config.webhooks,
    readiness,
    stripe,
  };
  switch (name) {
    case "api":
      return createApiApp({ ...operations, mcpUrl: config.mcp.url, budget: REST_BUDGET });
    case "mcp":
      return createMcpApp({
        ...operations,
        invocations: s.activity,
        awaitInvocationEntries: config.mcpInvocationEntries === "committed",
        mcpUrl: config.mcp.url,
        budget: MCP_BUDGET,
        unauthenticatedBudget: UNAUTHENTICATED_MCP_BUDGET,
        allowedHosts: config.mcpAllowedHosts,
        allowedOrigins: config.mcpAllowedOrigins,
      });
    case "site":
      return createSiteApp({ ...common, siteUrl: config.site.url, mcpUrl: config.mcp.url, connectors });
    case "auth":
      return createAuthApp({ ...common, mcpUrl: config.mcp.url, stripe, platforms });
    case "docs":
      return createDocsApp({ ...common, mcpUrl: config.mcp.url, siteUrl: config.site.url });
    case "portal":
      return createPortalApp({ ...common, portalUrl: config.portal.url, connectors, platforms, stripe });
    default:
      throw new ConfigError(`surface ${name} is not available in this release`);
  }
}

function serve(app: Koa, port: number, host: string, s: Services): Promise<Server> {
  return listen(createHttpServer(app, s.config.http, { docsUrl: s.config.docs.url, logger: s.logger }), port, host);
}

/** A running job's share of the stop's deadline (the rest covers the listeners, the pools and the log). */
const JOB_SHARE_OF_DEADLINE = 2 / 3;

async function main() {
  const config = loadConfig(process.env, release);
  setAlertAddresses({ auth: config.auth.url, portal: config.portal.url, api: config.api.url });
  // Before the backends open: an invalid connector package refuses the start without side effects.
  const connectors = loadConnectorRegistry(config.connectorsDir);
  const services = await openServices(config);
  const readiness = readinessProbe({ db: services.db, kv: services.kv });
  const platforms = await openPlatforms(config.platforms, { dataDir: config.dataDir, serves: true });
  const stripe = await openStripe(config.stripe, config.api.url, services.appKey, config.dataDir);
  const servers: Server[] = [];
  let worker: JobWorker | null = null;
  let deliveries: DeliveryWorker | null = null;
  let mail: MailRuntime | null = null;
  let botMessages: BotMessageWorker | null = null;
  let stopping = false;
  const shutdown = async (signal: string) => {
    // A signal sent to the process group reaches this process twice under `npm start` (directly,
    // and relayed by npm): the repeat must not cut short the running job's graceful stop.
    if (stopping) return;
    stopping = true;
    services.logger.info({ signal, deadline_ms: config.shutdownTimeoutMs }, "shutting down");
    readiness.markStopping();
    // Every wait below is bounded, and so is their sum: a stop that stalls still ends the process.
    setTimeout(() => {
      services.logger.error({ signal, afterMs: config.shutdownTimeoutMs }, "graceful shutdown did not finish in time; exiting");
      services.logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    // The listeners take no new connection; requests in flight, the running job and the delivery
    // attempts under way finish (their outcomes recorded) before the backends close.
    await Promise.all([worker?.stop(), deliveries?.stop(), mail?.stop(), botMessages?.stop(), ...servers.map(stopServer)]);
    await platforms.close();
    await stripe.close();
    await services.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  const creators = await countCreators(services.db);
  const demo = !config.databaseUrl && creators === 0 ? await seedDemo(services.db, services.now(), config.environment) : null;

  for (const name of config.surfaces)
    servers.push(
      await serve(
        buildSurface(name, services, connectors, platforms.endpoints, readiness, stripe.payments),
        config[name].port,
        config.host,
        services,
      ),
    );
  // The listeners are up: a new simulation learns the bots' webhooks (the real platforms keep them).
  if (config.platforms.simulated)
    await reintroduceBots(
      services.db,
      { platforms: platforms.endpoints, appKey: services.appKey, baseUrl: config.api.url },
      services.now(),
      {},
      services.logger,
    );
  if (config.metrics.port !== null) {
    const metrics = createMetricsApp({ ...services, docsUrl: config.docs.url, release: config.release, readiness, token: config.metrics.token });
    servers.push(await serve(metrics, config.metrics.port, config.metrics.host, services));
  }
  const jobs = config.worker ? await discoverScheduledJobs() : [];
  if (config.worker)
    deliveries = startDeliveryWorker({
      db: services.db,
      appKey: services.appKey,
      network: config.webhooks,
      release: config.release,
      logger: services.logger,
      clock: services.now,
    });
  // Beside the webhook deliveries: the same processes drain the mail outbox (any number may run).
  mail = await startMail(config, services.db, services.logger, services.now);
  // And the messages people get from the bots (alerts, support replies, notices), paced across processes.
  if (config.worker)
    botMessages = startBotMessageWorker({
      db: services.db,
      kv: services.kv,
      env: { connectors, platforms: platforms.endpoints, appKey: services.appKey },
      logger: services.logger,
      clock: services.now,
    });
  if (config.worker)
    worker = await startJobWorker({
      db: services.db,
      logger: services.logger,
      jobs,
      clock: services.now,
      platformAccess: { platforms: platforms.endpoints, appKey: services.appKey, connectors },
      stripe: stripe.payments,
      timing: { stopTimeoutMs: Math.floor(config.shutdownTimeoutMs * JOB_SHARE_OF_DEADLINE) },
    });

  const lines = [
    "",
    `SubBridge ${config.release}`,
    ...config.surfaces.map((name) => {
      const label = { api: "REST API", docs: "Reference", mcp: "MCP server", auth: "Authorization", site: "Site", portal: "Portal" }[name];
      const extra =
        name === "api"
          ? `   (OpenAPI: ${config.api.url}/openapi.json)`
          : name === "site"
            ? `   (webhook signing keys: ${config.site.url}/.well-known/http-message-signatures-directory)`
            : name === "auth"
              ? `   (sign in: ${config.auth.url}/sign-in)`
              : "";
      return `  ${label.padEnd(14)}${config[name].url}${name === "api" ? "/v1" : ""}${extra}`;
    }),
    `  Database      ${services.backends.database}`,
    `  KV store      ${services.backends.kv}`,
    `  Connectors    ${[...connectors.packages.keys()].join(", ") || "none"} (from ${displayPath(connectors.dir)})`,
    `  Platforms     ${platforms.description}`,
    `  Payments      ${stripe.description}`,
    `  Environment   ${config.environment === "test" ? "test (a sandbox: sbt_test_ tokens, simulated providers only)" : "live (sbt_live_ tokens, real providers only)"}`,
    `  Job worker    ${config.worker ? `${jobs.length} scheduled job${jobs.length === 1 ? "" : "s"} on pg-boss (npm run cli -- jobs:list)` : "off (WORKER=off)"}`,
    `  Webhooks      ${config.worker ? `delivery worker on (timeout ${config.webhooks.timeoutMs / 1000} s)` : "no delivery worker here (WORKER=off)"}`,
    `  Mail          ${mail.description}`,
    `  Metrics       ${config.metrics.port !== null ? `http://${config.metrics.host}:${config.metrics.port}/metrics${config.metrics.token ? " (bearer METRICS_TOKEN)" : ""}, readiness /ready` : "off (set METRICS_PORT)"}`,
  ];
  if (demo) {
    lines.push("", ...demoAccountLines(demo, { apiUrl: config.api.url, tty: Boolean(process.stdout.isTTY), dataDir: config.dataDir }));
  } else if (creators === 0) {
    // PostgreSQL is never seeded: an operator's database gets no demo account it did not ask for.
    lines.push(
      "",
      "No creator yet. Create one and mint a token with the operator CLI (same environment):",
      "  npm run cli -- creator:create --email you@example.com --password '<8 characters or more>' --tier growth",
      "  npm run cli -- token:mint --email you@example.com --abilities all",
      ...(config.surfaces.includes("auth")
        ? [
            `Or open an account at ${config.auth.url}/sign-up: its confirmation link arrives by mail (see Mail above), and`,
            "  npm run cli -- mail:list --email you@example.com lists mail not yet sent",
          ]
        : []),
    );
  } else {
    const example = config.databaseUrl ? "<creator's email>" : DEMO_EMAIL;
    lines.push("", `Need a token? npm run cli -- token:mint --email ${example} --abilities all`);
  }
  console.log(lines.join("\n") + "\n");
}

/** Whether `err` is a listener's address that does not resolve or is not this machine's (HOST, METRICS_HOST). */
function listenAddressFailed(err: unknown): boolean {
  const { code, syscall, hostname } = err as { code?: string; syscall?: string; hostname?: string };
  if (code === "EADDRNOTAVAIL" && syscall === "listen") return true;
  return (code === "ENOTFOUND" || code === "EAI_AGAIN") && hostname !== undefined && [process.env.HOST, process.env.METRICS_HOST].includes(hostname);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
  } else if (err instanceof EmbeddedDatabaseError || err instanceof BackendUnavailableError) {
    console.error(err.message);
  } else if (err instanceof ConnectorLoadError) {
    console.error(`${err.message}\nFix the files above (or remove the package folder) and start again.`);
  } else if ((err as { code?: string }).code === "EADDRINUSE") {
    const { port } = err as { port?: number };
    console.error(`port ${port} is already in use: stop the other process or choose another port (API_PORT, DOCS_PORT, ..., METRICS_PORT)`);
  } else if (listenAddressFailed(err)) {
    const { hostname, address } = err as { hostname?: string; address?: string };
    console.error(
      `configuration error: cannot listen on ${hostname ?? address} (${(err as { code: string }).code}): set HOST (or METRICS_HOST) to an address of this machine (0.0.0.0, ::, 127.0.0.1) or a hostname that resolves to one`,
    );
  } else if (isConnectionFailure(err)) {
    // The database went away after it was first reached (the job worker's setup runs last).
    console.error(`the database stopped answering while the service started: ${(err as Error).message}; check DATABASE_URL and start again`);
  } else if ((err as { code?: string }).code === "EACCES" && (err as { syscall?: string }).syscall === "listen") {
    const { port } = err as { port?: number };
    console.error(`configuration error: port ${port} needs privileges this process lacks: choose a port above 1023 (API_PORT, ..., METRICS_PORT)`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
