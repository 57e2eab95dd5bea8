// npm start: opens the backends (embedded defaults: PGlite under DATA_DIR, in-process KV), runs
// migrations, seeds a demo account on the first start of an empty embedded database, and serves
// every surface of this release and the job worker in one process. Each surface can also run alone
// (SURFACES=api WORKER=off), and the worker alone (SURFACES= WORKER=on).
import type { Server } from "node:http";
import type { Logger } from "pino";
import { ConfigError, loadConfig, type Config, type PlatformEndpoints, type SurfaceName } from "./config.ts";
import { EmbeddedDatabaseError } from "./embedded/database.ts";
import { createLogger, openServiceDatabase, openServices, type Services } from "./services.ts";
import { StartStopped, startSteps } from "./startup.ts";
import { countCreators } from "./modules/account/creators.ts";
import { DEMO_EMAIL, seedDemo } from "./operator.ts";
import { demoAccountLines } from "./first-start.ts";
import { createApiApp } from "./apps/api/api-app.ts";
import { clientIpResolver } from "./http/client-ip.ts";
import { createHttpServer, listen, replaceApp, stopServer } from "./http/server.ts";
import { createStartingApp } from "./http/starting-app.ts";
import { readinessProbe, type ReadinessProbe } from "./observability/readiness.ts";
import { createMetricsApp } from "./observability/metrics-app.ts";
import { createDocsApp } from "./apps/docs/docs-app.ts";
import { createAuthApp } from "./apps/auth/auth-app.ts";
import { createSiteApp } from "./apps/site/site-app.ts";
import { createPortalApp } from "./apps/portal/portal-app.ts";
import { createDashboardApp } from "./apps/dashboard/dashboard-app.ts";
import { registerDashboardClient } from "./modules/oauth/first-party.ts";
import { createMcpApp } from "./apps/mcp/mcp-app.ts";
import { MCP_BUDGET, REST_BUDGET, UNAUTHENTICATED_MCP_BUDGET } from "./pipeline/rate-limit.ts";
import { handlers, preflights } from "./modules/handlers.ts";
import { loadConnectorRegistry, type ConnectorRegistry } from "./modules/connectors/registry.ts";
import { ConnectorLoadError, displayPath } from "./modules/connectors/problems.ts";
import { openPlatforms, type OpenedPlatforms } from "./outside/platforms.ts";
import { DISCORD_INTERACTIONS_PATH } from "./apps/api/discord-interactions.ts";
import { reintroduceBots } from "./modules/connectors/platform-tasks.ts";
import { DiscordRateLimits } from "./modules/connectors/drivers/discord-rate-limits.ts";
import { openStripe, type OpenedStripe } from "./outside/stripe.ts";
import type { StripePayments } from "./modules/payments/stripe/stripe-payments.ts";
import type Koa from "koa";
import { readRepositoryText } from "./repository-files.ts";
import { discoverScheduledJobs } from "./workers/jobs/discovery.ts";
import { startJobWorker, type JobWorker } from "./workers/jobs/worker.ts";
import { startDeliveryWorker, type DeliveryWorker } from "./workers/deliveries/worker.ts";
import { startMail, type MailRuntime } from "./outside/mail.ts";
import { simulatorLine } from "./outside/simulator-listeners.ts";
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
    dashboardUrl: config.dashboard.url,
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
      return createAuthApp({ ...common, mcpUrl: config.mcp.url, dashboardUrl: config.dashboard.url, stripe, platforms });
    case "docs":
      return createDocsApp({ ...common, mcpUrl: config.mcp.url, siteUrl: config.site.url });
    case "portal":
      return createPortalApp({ ...common, portalUrl: config.portal.url, connectors, platforms, stripe });
    case "dashboard":
      return createDashboardApp({
        ...common,
        dashboardUrl: config.dashboard.url,
        portalUrl: config.portal.url,
        mcpUrl: config.mcp.url,
      });
    default:
      throw new ConfigError(`surface ${name} is not available in this release`);
  }
}

/** `surface` listening on host:port, answering as a starting process until its app takes over (replaceApp). */
function listenStarting(surface: string, port: number, host: string, config: Config, logger: Logger, readiness?: ReadinessProbe): Promise<Server> {
  const app = createStartingApp({ surface, release: config.release, docsUrl: config.docs.url, logger, ...(readiness ? { readiness } : {}) });
  return listen(createHttpServer(app, config.http, { docsUrl: config.docs.url, logger }), port, host);
}

/** The banner's account of ROLE (src/config-role.ts). */
const ROLE_LINES = {
  all: "all (the surfaces below and the workers; ROLE=api or ROLE=worker splits them across processes)",
  api: "api (the surfaces below; no background work: that runs in ROLE=worker processes)",
  worker: "worker (jobs, webhook deliveries, mail and bot messages; no surface)",
} as const;

/** A running job's share of the stop's deadline (the rest covers the listeners, the pools and the log). */
const JOB_SHARE_OF_DEADLINE = 2 / 3;

/** Set once a signal asked the process to stop: the shutdown ends it, whatever the start was doing. */
let stopping = false;

async function main() {
  const config = loadConfig(process.env, release);
  setAlertAddresses({ auth: config.auth.url, portal: config.portal.url, api: config.api.url });
  // Before the backends open: an invalid connector package refuses the start without side effects.
  const connectors = loadConnectorRegistry(config.connectorsDir);
  const logger = createLogger(config.logLevel);
  const readiness = readinessProbe({});
  const steps = startSteps(logger);
  // The embedded database is claimed before any port is taken: a second server on one DATA_DIR is told so.
  const database = await openServiceDatabase(config, logger);
  // Listening from here: /up answers, /ready says 503 until every step below is done (src/startup.ts).
  const surfaces = new Map<SurfaceName, Server>();
  for (const name of config.surfaces) {
    const ready = name === "api" || name === "mcp" ? readiness : undefined;
    surfaces.set(name, await listenStarting(name, config[name].port, config.host, config, logger, ready));
  }
  const metricsServer =
    config.metrics.port !== null ? await listenStarting("metrics", config.metrics.port, config.metrics.host, config, logger, readiness) : null;
  const servers = [...surfaces.values(), ...(metricsServer ? [metricsServer] : [])];
  let services: Services | null = null;
  let platforms: OpenedPlatforms | null = null;
  let stripe: OpenedStripe | null = null;
  let worker: JobWorker | null = null;
  let deliveries: DeliveryWorker | null = null;
  let mail: MailRuntime | null = null;
  let botMessages: BotMessageWorker | null = null;
  const shutdown = async (signal: string) => {
    // A signal sent to the process group reaches this process twice under `npm start` (directly,
    // and relayed by npm): the repeat must not cut short the running job's graceful stop.
    if (stopping) return;
    stopping = true;
    logger.info({ signal, deadline_ms: config.shutdownTimeoutMs }, "shutting down");
    readiness.markStopping();
    steps.stop();
    // Every wait below is bounded, and so is their sum: a stop that stalls still ends the process.
    setTimeout(() => {
      logger.error({ signal, afterMs: config.shutdownTimeoutMs }, "graceful shutdown did not finish in time; exiting");
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    // The listeners take no new connection; requests in flight, the running job and the delivery
    // attempts under way finish (their outcomes recorded) before the backends close.
    await Promise.all([worker?.stop(), deliveries?.stop(), mail?.stop(), botMessages?.stop(), ...servers.map(stopServer)]);
    await platforms?.close();
    await stripe?.close();
    await (services ? services.close() : database.close());
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  const s = await steps.run("open the database and Redis", () => openServices(config, logger, database));
  services = s;
  readiness.attach(s);
  platforms = await openPlatforms(config.platforms, {
    dataDir: config.dataDir,
    serves: true,
    discordInteractionsUrl: `${config.api.url.replace(/\/+$/, "")}${DISCORD_INTERACTIONS_PATH}`,
    port: config.simulatorPorts.platforms,
  });
  stripe = await openStripe(config.stripe, config.api.url, s.appKey, config.dataDir, config.simulatorPorts.stripeTwin);
  if (config.surfaces.includes("auth") || config.surfaces.includes("dashboard"))
    await steps.run("register the dashboard's sign-in", () => registerDashboardClient(s.db, config.dashboard.url, s.now()));
  const creators = await steps.run("count the creators", () => countCreators(s.db));
  const demo = !config.databaseUrl && creators === 0 ? await seedDemo(s.db, s.now(), config.environment) : null;

  // Every driver of this process shares Discord's rate limits with the other processes through the KV store.
  const endpoints = { ...platforms.endpoints, rateLimits: new DiscordRateLimits(s.kv, { logger }) };
  for (const [name, server] of surfaces) replaceApp(server, buildSurface(name, s, connectors, endpoints, readiness, stripe.payments));
  // The listeners serve: a new simulation learns the bots' webhooks (the real platforms keep them).
  const bots = { platforms: endpoints, appKey: s.appKey, baseUrl: config.api.url };
  if (config.platforms.simulated) await steps.run("point the simulated bots at this start", () => reintroduceBots(s.db, bots, s.now(), {}, logger));
  // A real platform keeps each bot's webhook, but not what a newer release asks bots for.
  else await steps.run("set up the bots an older release set up", () => reintroduceBots(s.db, bots, s.now(), { outdated: true }, logger));
  if (metricsServer)
    replaceApp(metricsServer, createMetricsApp({ ...s, docsUrl: config.docs.url, release: config.release, readiness, token: config.metrics.token }));
  const jobs = config.worker ? await discoverScheduledJobs() : [];
  if (config.worker)
    deliveries = startDeliveryWorker({
      db: s.db,
      appKey: s.appKey,
      network: config.webhooks,
      release: config.release,
      logger,
      clock: s.now,
    });
  // Beside the webhook deliveries: the same processes drain the mail outbox (any number may run).
  mail = await startMail(config, s.db, logger, s.now);
  // And the messages people get from the bots (alerts, support replies, notices), paced across processes.
  if (config.worker)
    botMessages = startBotMessageWorker({
      db: s.db,
      kv: s.kv,
      env: { connectors, platforms: endpoints, appKey: s.appKey },
      logger,
      clock: s.now,
    });
  const payments = stripe.payments;
  if (config.worker)
    worker = await steps.run("start the job worker", () =>
      startJobWorker({
        db: s.db,
        logger,
        jobs,
        clock: s.now,
        platformAccess: { platforms: endpoints, appKey: s.appKey, connectors },
        stripe: payments,
        timing: { stopTimeoutMs: Math.floor(config.shutdownTimeoutMs * JOB_SHARE_OF_DEADLINE) },
      }),
    );
  readiness.markServing();

  const offBecause = config.role === "api" ? "ROLE=api" : "WORKER=off";
  const lines = [
    "",
    `SubBridge ${config.release}`,
    `  Role          ${ROLE_LINES[config.role]}`,
    ...config.surfaces.map((name) => {
      const label = {
        api: "REST API",
        docs: "Reference",
        mcp: "MCP server",
        auth: "Authorization",
        site: "Site",
        portal: "Portal",
        dashboard: "Dashboard",
      }[name];
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
    `  Database      ${s.backends.database}`,
    `  KV store      ${s.backends.kv}`,
    `  Connectors    ${[...connectors.packages.keys()].join(", ") || "none"} (from ${displayPath(connectors.dir)})`,
    `  Platforms     ${platforms.description}`,
    `  Payments      ${stripe.description}`,
    `  Environment   ${config.environment === "test" ? "test (a sandbox: sbt_test_ tokens, simulated providers only)" : "live (sbt_live_ tokens, real providers only)"}`,
    `  Job worker    ${config.worker ? `${jobs.length} scheduled job${jobs.length === 1 ? "" : "s"} on pg-boss (npm run cli -- jobs:list)` : `off (${offBecause})`}`,
    `  Webhooks      ${config.worker ? `delivery worker on (timeout ${config.webhooks.timeoutMs / 1000} s)` : `no delivery worker here (${offBecause})`}; ${webhookReceivers(config.webhooks)}`,
    `  Mail          ${mail.description}`,
    ...[simulatorLine([...(platforms.listeners ?? []), ...(stripe.listeners ?? []), ...(mail.listeners ?? [])])]
      .filter((line) => line !== null)
      .map((line) => `  Simulators    ${line}`),
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

/** Which receivers an endpoint may name, and the settings that say so. */
function webhookReceivers({ allowedCidrs, allowHttp }: Config["webhooks"]): string {
  const ranges = allowedCidrs.length ? `public hosts and ${allowedCidrs.join(", ")} (WEBHOOK_ALLOWED_CIDRS)` : "public hosts only";
  return `receivers: ${ranges}, ${allowHttp ? "http or https (WEBHOOK_ALLOW_HTTP=on)" : "https only"}`;
}

/** Whether `err` is a listener's address that does not resolve or is not this machine's (HOST, METRICS_HOST). */
function listenAddressFailed(err: unknown): boolean {
  const { code, syscall, hostname } = err as { code?: string; syscall?: string; hostname?: string };
  if (code === "EADDRNOTAVAIL" && syscall === "listen") return true;
  return (code === "ENOTFOUND" || code === "EAI_AGAIN") && hostname !== undefined && [process.env.HOST, process.env.METRICS_HOST].includes(hostname);
}

main().catch((err: unknown) => {
  // A stop during the start: the shutdown ends the process (a step it cut short may throw here).
  if (stopping || err instanceof StartStopped) return;
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
  } else if (err instanceof EmbeddedDatabaseError) {
    console.error(err.message);
  } else if (err instanceof ConnectorLoadError) {
    console.error(`${err.message}\nFix the files above (or remove the package folder) and start again.`);
  } else if ((err as { code?: string }).code === "EADDRINUSE") {
    const { port } = err as { port?: number };
    console.error(
      `port ${port} is already in use: stop the other process or choose another port (API_PORT, DOCS_PORT, ..., METRICS_PORT, MAIL_CATCHER_PORT, SIMULATED_PLATFORMS_PORT, STRIPE_TWIN_PORT)`,
    );
  } else if (listenAddressFailed(err)) {
    const { hostname, address } = err as { hostname?: string; address?: string };
    console.error(
      `configuration error: cannot listen on ${hostname ?? address} (${(err as { code: string }).code}): set HOST (or METRICS_HOST) to an address of this machine (0.0.0.0, ::, 127.0.0.1) or a hostname that resolves to one`,
    );
  } else if ((err as { code?: string }).code === "EACCES" && (err as { syscall?: string }).syscall === "listen") {
    const { port } = err as { port?: number };
    console.error(`configuration error: port ${port} needs privileges this process lacks: choose a port above 1023 (API_PORT, ..., METRICS_PORT)`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
