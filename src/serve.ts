// The start's second half, loaded once the listeners answer /up (src/main.ts): the services,
// the outside systems, every surface's app and the workers. Importing these modules is most of a
// start's time; behind the listeners, /up answers while it happens and /ready says 503 until done.
import type { Server } from "node:http";
import type Koa from "koa";
import type { Logger } from "pino";
import { ConfigError, type Config, type PlatformEndpoints, type SurfaceName } from "./config.ts";
import { openServices, type Services } from "./services.ts";
import type { OpenedDatabase } from "./db/database.ts";
import type { startSteps } from "./startup.ts";
import { countCreators } from "./modules/account/creators.ts";
import { DEMO_EMAIL, seedDemo } from "./operator.ts";
import { demoAccountLines } from "./first-start.ts";
import { createApiApp } from "./apps/api/api-app.ts";
import { clientIpResolver } from "./http/client-ip.ts";
import { replaceApp } from "./http/server.ts";
import type { ReadinessProbe } from "./observability/readiness.ts";
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
import { displayPath } from "./modules/connectors/problems.ts";
import type { ConnectorRegistry } from "./modules/connectors/registry.ts";
import { openPlatforms, type OpenedPlatforms } from "./outside/platforms.ts";
import { DISCORD_INTERACTIONS_PATH } from "./apps/api/discord-interactions.ts";
import { reintroduceBots } from "./modules/connectors/platform-tasks.ts";
import { DiscordRateLimits } from "./modules/connectors/drivers/discord-rate-limits.ts";
import { openStripe, type OpenedStripe } from "./outside/stripe.ts";
import type { StripePayments } from "./modules/payments/stripe/stripe-payments.ts";
import { discoverScheduledJobs } from "./workers/jobs/discovery.ts";
import { startJobWorker, type JobWorker } from "./workers/jobs/worker.ts";
import { startDeliveryWorker, type DeliveryWorker } from "./workers/deliveries/worker.ts";
import { startMail, type MailRuntime } from "./outside/mail.ts";
import { simulatorLine } from "./outside/simulator-listeners.ts";
import { startBotMessageWorker, type BotMessageWorker } from "./workers/bot-messages/worker.ts";

/** What the start has opened so far: the shutdown stops and closes each one there is. */
export interface Running {
  services?: Services;
  platforms?: OpenedPlatforms;
  stripe?: OpenedStripe;
  worker?: JobWorker;
  deliveries?: DeliveryWorker;
  mail?: MailRuntime;
  botMessages?: BotMessageWorker;
}

/** What src/main.ts has done before this module loads: the configuration read, the database claimed, the ports taken. */
export interface Listening {
  config: Config;
  logger: Logger;
  connectors: ConnectorRegistry;
  readiness: ReadinessProbe;
  steps: ReturnType<typeof startSteps>;
  database: OpenedDatabase;
  surfaces: Map<SurfaceName, Server>;
  metricsServer: Server | null;
}

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

/** The banner's account of ROLE (src/config-role.ts). */
const ROLE_LINES = {
  all: "all (the surfaces below and the workers; ROLE=api or ROLE=worker splits them across processes)",
  api: "api (the surfaces below; no background work: that runs in ROLE=worker processes)",
  worker: "worker (jobs, webhook deliveries, mail and bot messages; no surface)",
} as const;

/** A running job's share of the stop's deadline (the rest covers the listeners, the pools and the log). */
const JOB_SHARE_OF_DEADLINE = 2 / 3;

/** Opens the rest, hands each listener its surface's app, starts the workers and prints the banner. */
export async function serve(
  { config, logger, connectors, readiness, steps, database, surfaces, metricsServer }: Listening,
  running: Running,
): Promise<void> {
  const s = await steps.run("open the database and Redis", () => openServices(config, logger, database));
  running.services = s;
  readiness.attach(s);
  const platforms = await openPlatforms(config.platforms, {
    dataDir: config.dataDir,
    serves: true,
    discordInteractionsUrl: `${config.api.url.replace(/\/+$/, "")}${DISCORD_INTERACTIONS_PATH}`,
    port: config.simulatorPorts.platforms,
  });
  running.platforms = platforms;
  const stripe = await openStripe(config.stripe, config.api.url, s.appKey, config.dataDir, config.simulatorPorts.stripeTwin);
  running.stripe = stripe;
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
    running.deliveries = startDeliveryWorker({
      db: s.db,
      appKey: s.appKey,
      network: config.webhooks,
      release: config.release,
      logger,
      clock: s.now,
    });
  // Beside the webhook deliveries: the same processes drain the mail outbox (any number may run).
  const mail = await startMail(config, s.db, logger, s.now);
  running.mail = mail;
  // And the messages people get from the bots (alerts, support replies, notices), paced across processes.
  if (config.worker)
    running.botMessages = startBotMessageWorker({
      db: s.db,
      kv: s.kv,
      env: { connectors, platforms: endpoints, appKey: s.appKey },
      logger,
      clock: s.now,
    });
  const payments = stripe.payments;
  if (config.worker)
    running.worker = await steps.run("start the job worker", () =>
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
