// Every environment variable the service reads, parsed and validated once, with the defaults
// the embedded mode needs. A bad value fails at boot with a message naming the variable.
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseTrustProxy, type TrustProxy } from "./http/client-ip.ts";
import { repositoryFile } from "./repository-files.ts";
import ipaddr from "ipaddr.js";
import {
  ConfigError,
  hostnames,
  integer,
  isLoopback,
  listenAddress,
  milliseconds,
  port,
  portNumber,
  url,
  urlOrNull,
  type Env,
} from "./config-values.ts";
import type { WebhookNetwork } from "./modules/webhooks/address-guard.ts";
import { DEFAULT_WEBHOOK_LIMITS } from "./modules/webhooks/limits.ts";
import { stripeConfig, type StripeConfig } from "./config-stripe.ts";
import { platformConfig, type PlatformConfig } from "./config-platforms.ts";

export type { DiscordApplication, PlatformConfig, PlatformEndpoints } from "./config-platforms.ts";
import { mailConfig, type MailConfig } from "./config-mail.ts";

export type { StripeConfig } from "./config-stripe.ts";
import { ENVIRONMENTS, type Environment } from "./modules/tokens/environment.ts";
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from "./db/timeouts.ts";
import { processRole, type Role } from "./config-role.ts";
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from "./http/server.ts";

export interface SurfaceConfig {
  port: number;
  /** Public address of the surface, without a trailing slash. */
  url: string;
}

export interface Config {
  release: string;
  dataDir: string;
  /** postgres:// URL; null = embedded PGlite under dataDir. */
  databaseUrl: string | null;
  /**
   * A direct PostgreSQL address (DATABASE_DIRECT_URL, default DATABASE_URL) for what needs a
   * session of its own: the migrations and their lock, pg-boss, the workers' start lock. Set it when
   * DATABASE_URL goes through PgBouncer in transaction pooling mode.
   */
  databaseDirectUrl: string | null;
  /** Bounds on every database wait (DATABASE_*_TIMEOUT_MS): src/db/timeouts.ts. */
  databaseTimeouts: DatabaseTimeouts;
  /** redis:// URL; null = in-process KV. */
  redisUrl: string | null;
  /**
   * First part of every Redis key (REDIS_KEY_PREFIX); the deployment's own id (kept in its
   * database) follows, so deployments sharing one Redis never share a key.
   */
  redisKeyPrefix: string;
  /** Which proxies may report the client's address in X-Forwarded-For (TRUST_PROXY). */
  trustProxy: TrustProxy;
  /** 32-byte key (base64 or hex) for AES-256-GCM; null = generated once under dataDir. */
  appKey: string | null;
  /** LOG_LEVEL: one of LOG_LEVELS (default info). */
  logLevel: LogLevel;
  /** HOST: the address every surface listens on (default 0.0.0.0). */
  host: string;
  /** Bounds on slow clients and on connections, per listener (HTTP_*): src/http/server.ts. */
  http: HttpLimits;
  /** The operator's listener: /metrics, /up and /ready (METRICS_PORT, METRICS_HOST, METRICS_TOKEN). */
  metrics: MetricsConfig;
  /** How long a graceful stop may take before the process exits anyway (SHUTDOWN_TIMEOUT_MS, default 30000). */
  shutdownTimeoutMs: number;
  api: SurfaceConfig;
  mcp: SurfaceConfig;
  auth: SurfaceConfig;
  site: SurfaceConfig;
  docs: SurfaceConfig;
  portal: SurfaceConfig;
  /** The creator dashboard (DASHBOARD_PORT 4007, DASHBOARD_URL): a browser client of the public SDK. */
  dashboard: SurfaceConfig;
  /** ROLE: all (default), api (the HTTP surfaces, no background work) or worker (background work, no surface). */
  role: Role;
  /** Which surfaces `npm start` runs in this process. */
  surfaces: SurfaceName[];
  /**
   * Whether this process runs the worker: scheduled jobs and webhook deliveries (WORKER=on|off,
   * default on; SURFACES=worker runs it alone).
   */
  worker: boolean;
  /**
   * Extra hostnames the MCP endpoint accepts in Host and Origin (MCP_ALLOWED_HOSTS), besides the
   * MCP_URL host (and the localhost names when MCP_URL is local). DNS-rebinding protection.
   */
  mcpAllowedHosts: string[];
  /** Extra Origin hostnames for browser clients on other sites (MCP_ALLOWED_ORIGINS); "*" = any. */
  mcpAllowedOrigins: string[];
  /**
   * When a read's or a refused call's invocation entry is written (MCP_INVOCATION_ENTRIES):
   * "recorded" (default) queues it and answers, the entry committed within milliseconds; "committed"
   * answers once it is. A write's entry always commits with the write.
   */
  mcpInvocationEntries: McpInvocationEntries;
  /** Folder of the connector packages, one <key>/connector.json each (CONNECTORS_DIR), absolute. */
  connectorsDir: string;
  /** Where the connector drivers reach their platforms (see PlatformConfig). */
  platforms: PlatformConfig;
  /**
   * Where webhooks may be sent. WEBHOOK_ALLOWED_CIDRS (comma-separated ranges, default none) exempts
   * ranges from the public-address rule and WEBHOOK_ALLOW_HTTP=on accepts http URLs: both for local
   * development and tests only. In the test environment both default to loopback receivers
   * (127.0.0.0/8, ::1/128 over http); live keeps none. WEBHOOK_TIMEOUT_MS (default 10000) bounds one request to an endpoint.
   * WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT (16), WEBHOOK_MAX_IN_FLIGHT_PER_TEAM (32) and
   * WEBHOOK_MAX_ENDPOINTS_PER_TEAM (20) keep one team from holding every delivery slot.
   */
  webhooks: WebhookNetwork;
  /** Where payments by Stripe go (see StripeConfig). */
  stripe: StripeConfig;
  /** Where the mail worker sends the outbox (see MailConfig). */
  mail: MailConfig;
  /**
   * SUBBRIDGE_ENVIRONMENT: live (production: sbt_live_ tokens, real providers only) or test (a
   * sandbox: sbt_test_ tokens, simulated providers only, which it runs, like an embedded start, for
   * whatever is not configured). Default: test on an embedded start (it runs the simulated platforms
   * and Stripe), live on PostgreSQL.
   */
  environment: Environment;
  /** Where a sandbox's simulators listen (see SimulatorPorts). */
  simulatorPorts: SimulatorPorts;
}

/**
 * The simulators' listeners on loopback, each null when unset: MAIL_CATCHER_PORT (the mail catcher's
 * page; unset: 4006, or a free port when taken), MAIL_CATCHER_SMTP_PORT (its SMTP listener),
 * SIMULATED_PLATFORMS_PORT (Telegram and Discord) and STRIPE_TWIN_PORT (unset: the last start's port,
 * else a free one). A port that is set is taken or the start fails naming it.
 */
export interface SimulatorPorts {
  mailCatcher: number | null;
  mailCatcherSmtp: number | null;
  platforms: number | null;
  stripeTwin: number | null;
}

export const SURFACES = ["api", "mcp", "auth", "site", "docs", "portal", "dashboard"] as const;
export type SurfaceName = (typeof SURFACES)[number];
const DEFAULT_PORTS: Record<SurfaceName, number> = { api: 4000, mcp: 4001, auth: 4002, site: 4003, docs: 4004, portal: 4005, dashboard: 4007 };
/** Surfaces that exist in this release; the others join as they are built. */
export const AVAILABLE_SURFACES: readonly SurfaceName[] = ["api", "mcp", "auth", "site", "docs", "portal", "dashboard"];

/** The repository's connectors/ folder, found from this file so `npm start` works from any directory. */
export const DEFAULT_CONNECTORS_DIR = fileURLToPath(repositoryFile("connectors"));

export { ConfigError, type Env } from "./config-values.ts";

export function loadConfig(env: Env = process.env, release = "0.0.0"): Config {
  const surface = (name: SurfaceName): SurfaceConfig => {
    const upper = name.toUpperCase();
    const p = port(env, `${upper}_PORT`, DEFAULT_PORTS[name]);
    return { port: p, url: url(env, upper === "API" ? "BASE_URL" : `${upper}_URL`, `http://localhost:${p || DEFAULT_PORTS[name]}`) };
  };
  const { role, surfaces, worker } = processRole(env, AVAILABLE_SURFACES);
  const databaseUrl = urlOrNull(env, "DATABASE_URL", ["postgres:", "postgresql:"]);
  const databaseDirectUrl = urlOrNull(env, "DATABASE_DIRECT_URL", ["postgres:", "postgresql:"]);
  if (databaseDirectUrl && !databaseUrl)
    throw new ConfigError("DATABASE_DIRECT_URL is set without DATABASE_URL: set both (the pooled address and the direct one)");
  const appKey = env.APP_KEY || null;
  if (appKey !== null) decodeKeyOrThrow(appKey);
  return withEnvironment(env, {
    release: env.RELEASE || release,
    dataDir: dataDir(env),
    databaseUrl,
    databaseDirectUrl: databaseDirectUrl ?? databaseUrl,
    databaseTimeouts: databaseTimeouts(env),
    redisUrl: urlOrNull(env, "REDIS_URL", ["redis:", "rediss:"]),
    redisKeyPrefix: redisKeyPrefix(env),
    trustProxy: trustProxy(env),
    appKey,
    logLevel: logLevel(env),
    host: listenAddress(env, "HOST", "0.0.0.0"),
    http: httpLimits(env),
    metrics: metricsConfig(env),
    shutdownTimeoutMs: milliseconds(env, "SHUTDOWN_TIMEOUT_MS", 30_000, 1_000, 600_000),
    simulatorPorts: simulatorPorts(env),
    api: surface("api"),
    mcp: surface("mcp"),
    auth: surface("auth"),
    site: surface("site"),
    docs: surface("docs"),
    portal: surface("portal"),
    dashboard: surface("dashboard"),
    role,
    surfaces: surfaces as SurfaceName[],
    worker,
    mcpAllowedHosts: hostnames(env, "MCP_ALLOWED_HOSTS"),
    mcpAllowedOrigins: hostnames(env, "MCP_ALLOWED_ORIGINS", { allowAny: true }),
    mcpInvocationEntries: invocationEntries(env),
    connectorsDir: resolve(env.CONNECTORS_DIR || DEFAULT_CONNECTORS_DIR),
    platforms: platformConfig(env),
    webhooks: webhookNetwork(env),
    stripe: stripeConfig(env),
    mail: mailConfig(env, surface("auth").url),
  });
}

/**
 * The environment, and what it refuses: a sandbox takes no live Stripe key (it would move real
 * money), production takes no test key (a test card would grant real access) and runs no simulated
 * provider (a member's payment would go nowhere).
 */
function withEnvironment(env: Env, config: Omit<Config, "environment">): Config {
  const raw = env.SUBBRIDGE_ENVIRONMENT || (config.databaseUrl ? "live" : "test");
  if (!(ENVIRONMENTS as readonly string[]).includes(raw)) throw new ConfigError(`SUBBRIDGE_ENVIRONMENT must be live or test, got "${raw}"`);
  const environment = raw as Environment;
  if (environment === "test" && /^(sk|rk)_live_/.test(config.stripe.secretKey ?? ""))
    throw new ConfigError(
      "SUBBRIDGE_ENVIRONMENT=test refuses a live Stripe key (sk_live_/rk_live_): a sandbox uses simulated or test-mode providers only",
    );
  if (environment === "live" && /^(sk|rk)_test_/.test(config.stripe.secretKey ?? ""))
    throw new ConfigError(
      "SUBBRIDGE_ENVIRONMENT=live refuses a test-mode STRIPE_SECRET_KEY (sk_test_/rk_test_): test cards would grant real access; set a live key (sk_live_/rk_live_), or SUBBRIDGE_ENVIRONMENT=test (live is the default with DATABASE_URL)",
    );
  if (environment === "live" && (config.platforms.simulated || config.stripe.simulated))
    throw new ConfigError(
      "SUBBRIDGE_ENVIRONMENT=live refuses the simulated platforms and Stripe: set TELEGRAM_API_URL or DISCORD_API_URL and STRIPE_SECRET_KEY, or use SUBBRIDGE_ENVIRONMENT=test",
    );
  if (environment === "live") return { ...config, environment };
  // A sandbox on PostgreSQL simulates too what nothing configures (an embedded start already does).
  const platforms = { ...config.platforms, simulated: !env.TELEGRAM_API_URL && !env.DISCORD_API_URL };
  const stripe = { ...config.stripe, simulated: config.stripe.secretKey === null };
  return { ...config, platforms, stripe, webhooks: sandboxWebhookNetwork(env, config.webhooks), environment };
}

/** Loopback receivers over http, unless the operator set either variable (even to ""), so a developer can test against a local listener. */
export const SANDBOX_WEBHOOK_CIDRS = ["127.0.0.0/8", "::1/128"] as const;

function sandboxWebhookNetwork(env: Env, network: WebhookNetwork): WebhookNetwork {
  return {
    ...network,
    allowedCidrs: env.WEBHOOK_ALLOWED_CIDRS === undefined ? [...SANDBOX_WEBHOOK_CIDRS] : network.allowedCidrs,
    allowHttp: env.WEBHOOK_ALLOW_HTTP === undefined ? true : network.allowHttp,
  };
}

const optionalPort = (env: Env, name: string) => (env[name] ? port(env, name, 0) : null);

function simulatorPorts(env: Env): SimulatorPorts {
  return {
    mailCatcher: optionalPort(env, "MAIL_CATCHER_PORT"),
    mailCatcherSmtp: optionalPort(env, "MAIL_CATCHER_SMTP_PORT"),
    platforms: optionalPort(env, "SIMULATED_PLATFORMS_PORT"),
    stripeTwin: optionalPort(env, "STRIPE_TWIN_PORT"),
  };
}

function webhookNetwork(env: Env): WebhookNetwork {
  const allowedCidrs = (env.WEBHOOK_ALLOWED_CIDRS ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  for (const cidr of allowedCidrs) {
    if (!ipaddr.isValidCIDR(cidr)) throw new ConfigError(`WEBHOOK_ALLOWED_CIDRS must list CIDR ranges (127.0.0.0/8,::1/128), got "${cidr}"`);
  }
  const allowHttp = (env.WEBHOOK_ALLOW_HTTP ?? "off").trim().toLowerCase();
  if (allowHttp !== "on" && allowHttp !== "off" && allowHttp !== "")
    throw new ConfigError(`WEBHOOK_ALLOW_HTTP must be on or off, got "${env.WEBHOOK_ALLOW_HTTP}"`);
  const timeoutMs = milliseconds(env, "WEBHOOK_TIMEOUT_MS", 10_000, 100, 60_000);
  const d = DEFAULT_WEBHOOK_LIMITS;
  const limits = {
    inFlightPerEndpoint: integer(env, "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT", d.inFlightPerEndpoint, 1, 1_000),
    inFlightPerTeam: integer(env, "WEBHOOK_MAX_IN_FLIGHT_PER_TEAM", d.inFlightPerTeam, 1, 10_000),
    endpointsPerTeam: integer(env, "WEBHOOK_MAX_ENDPOINTS_PER_TEAM", d.endpointsPerTeam, 1, 1_000),
  };
  return { allowedCidrs, allowHttp: allowHttp === "on", timeoutMs, limits };
}

function databaseTimeouts(env: Env): DatabaseTimeouts {
  const d = DEFAULT_DATABASE_TIMEOUTS;
  return {
    statementMs: milliseconds(env, "DATABASE_STATEMENT_TIMEOUT_MS", d.statementMs, 100, 3_600_000),
    lockMs: milliseconds(env, "DATABASE_LOCK_TIMEOUT_MS", d.lockMs, 100, 3_600_000),
    idleInTransactionMs: milliseconds(env, "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", d.idleInTransactionMs, 1_000, 3_600_000),
    connectMs: milliseconds(env, "DATABASE_CONNECT_TIMEOUT_MS", d.connectMs, 100, 120_000),
    acquireMs: milliseconds(env, "DATABASE_ACQUIRE_TIMEOUT_MS", d.acquireMs, 100, 120_000),
  };
}

export type McpInvocationEntries = "recorded" | "committed";

function invocationEntries(env: Env): McpInvocationEntries {
  const raw = (env.MCP_INVOCATION_ENTRIES ?? "").trim().toLowerCase();
  if (raw === "" || raw === "recorded") return "recorded";
  if (raw === "committed") return "committed";
  throw new ConfigError(`MCP_INVOCATION_ENTRIES must be recorded or committed, got "${env.MCP_INVOCATION_ENTRIES}"`);
}

function redisKeyPrefix(env: Env): string {
  const raw = env.REDIS_KEY_PREFIX ?? "sb";
  if (!/^[A-Za-z0-9_.-]{1,32}$/.test(raw)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1-32 letters, digits, "_", "." or "-", got "${raw}"`);
  return raw;
}

function trustProxy(env: Env): TrustProxy {
  try {
    return parseTrustProxy(env.TRUST_PROXY);
  } catch (err) {
    throw new ConfigError(
      `TRUST_PROXY must be a number of proxy hops, or addresses, CIDR ranges and loopback, linklocal or uniquelocal separated by commas: ${(err as Error).message}`,
    );
  }
}

/** APP_KEY is 32 bytes, written as base64 (44 chars) or hex (64 chars). */
export function decodeKeyOrThrow(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) throw new ConfigError("APP_KEY must be 32 bytes, base64- or hex-encoded (generate one with: openssl rand -base64 32)");
  return key;
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

function logLevel(env: Env): LogLevel {
  const raw = (env.LOG_LEVEL ?? "").trim().toLowerCase();
  if (raw === "") return "info";
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  return raw as LogLevel;
}

/** DATA_DIR: a folder, created on first start if missing; a file in its place is refused here rather than by mkdir. */
function dataDir(env: Env): string {
  const dir = resolve(env.DATA_DIR || join(process.cwd(), "data"));
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory())
    throw new ConfigError(`DATA_DIR must be a folder (created if missing) for the embedded database and the app key, but ${existing} is a file`);
  return dir;
}

function httpLimits(env: Env): HttpLimits {
  const d = DEFAULT_HTTP_LIMITS;
  const limits: HttpLimits = {
    headersTimeoutMs: milliseconds(env, "HTTP_HEADERS_TIMEOUT_MS", d.headersTimeoutMs, 1_000, 300_000),
    requestTimeoutMs: milliseconds(env, "HTTP_REQUEST_TIMEOUT_MS", d.requestTimeoutMs, 1_000, 3_600_000),
    keepAliveTimeoutMs: milliseconds(env, "HTTP_KEEP_ALIVE_TIMEOUT_MS", d.keepAliveTimeoutMs, 1_000, 600_000),
    maxConnections: integer(env, "HTTP_MAX_CONNECTIONS", d.maxConnections, 1, 1_000_000),
  };
  // Node refuses a server whose header bound exceeds its request bound.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}): the headers are part of the request`,
    );
  return limits;
}

export interface MetricsConfig {
  /** METRICS_PORT; null (unset or "off") = no metrics listener. */
  port: number | null;
  /** METRICS_HOST, default 127.0.0.1: only this machine reaches /metrics unless the operator says otherwise. */
  host: string;
  /** METRICS_TOKEN: the bearer /metrics asks for; required when METRICS_HOST is not a loopback address. */
  token: string | null;
}

function metricsConfig(env: Env): MetricsConfig {
  const rawPort = (env.METRICS_PORT ?? "").trim().toLowerCase();
  const port = rawPort === "" || rawPort === "off" ? null : portNumber("METRICS_PORT", env.METRICS_PORT!.trim(), "or off");
  const host = listenAddress(env, "METRICS_HOST", "127.0.0.1");
  const token = env.METRICS_TOKEN || null;
  if (token !== null && !/^[\x21-\x7e]{16,}$/.test(token))
    throw new ConfigError("METRICS_TOKEN must be 16 or more printable characters without spaces (generate one with: openssl rand -hex 32)");
  if (port !== null && token === null && !isLoopback(host))
    throw new ConfigError(
      `METRICS_TOKEN must be set when METRICS_HOST (${host}) is not a loopback address: /metrics then asks for it as a bearer token`,
    );
  return { port, host, token };
}
