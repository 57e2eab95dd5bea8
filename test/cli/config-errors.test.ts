// Every variable config.ts reads is refused at boot, when its value is bad, with one line that
// names the variable and what it accepts (main.ts prints it without a stack trace). The variables
// are found in config.ts itself, so a new one without a case here fails this test.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, SURFACES, type Env } from "../../src/config.ts";
import { loadConnectorRegistry } from "../../src/modules/connectors/registry.ts";
import { ROOT, tempDir } from "../helpers/processes.ts";

/** A bad value of the variable (other variables it needs alongside), and what the message must name as accepted. */
interface BadValue {
  env: Env;
  accepted: RegExp;
}

const integerRange = /must be an integer from \d+ to \d+/;
const port = (name: string): BadValue => ({ env: { [name]: "http" }, accepted: /port number \(0-65535/ });
const httpUrl = (name: string): BadValue => ({ env: { [name]: "ftp://files.example" }, accepted: /http or https/ });
const discord = { accepted: /DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN and DISCORD_PUBLIC_KEY are set together/ };
const discordApplication = { DISCORD_CLIENT_ID: "1234", DISCORD_CLIENT_SECRET: "secret", DISCORD_BOT_TOKEN: "token" };

const cases: Record<string, BadValue | BadValue[]> = {
  APP_KEY: { env: { APP_KEY: "short" }, accepted: /32 bytes, base64- or hex-encoded/ },
  BASE_URL: [
    { env: { BASE_URL: "not a url" }, accepted: /absolute http\(s\) URL/ },
    { env: { BASE_URL: "ftp://x" }, accepted: /http or https/ },
  ],
  ...Object.fromEntries(SURFACES.filter((s) => s !== "api").map((s) => [`${s.toUpperCase()}_URL`, httpUrl(`${s.toUpperCase()}_URL`)])),
  ...Object.fromEntries(SURFACES.map((s) => [`${s.toUpperCase()}_PORT`, port(`${s.toUpperCase()}_PORT`)])),
  DATABASE_URL: [
    { env: { DATABASE_URL: "mysql://db.example/app" }, accepted: /postgres:\/\/ or postgresql:\/\/ URL/ },
    { env: { DATABASE_URL: "::" }, accepted: /postgres:\/\/ or postgresql:\/\/ URL/ },
  ],
  DATABASE_DIRECT_URL: [
    {
      env: { DATABASE_URL: "postgres://pgbouncer.example/app", DATABASE_DIRECT_URL: "mysql://db.example/app" },
      accepted: /postgres:\/\/ or postgresql:\/\/ URL/,
    },
    { env: { DATABASE_DIRECT_URL: "postgres://db.example/app" }, accepted: /without DATABASE_URL: set both/ },
  ],
  DATABASE_STATEMENT_TIMEOUT_MS: { env: { DATABASE_STATEMENT_TIMEOUT_MS: "soon" }, accepted: integerRange },
  DATABASE_LOCK_TIMEOUT_MS: { env: { DATABASE_LOCK_TIMEOUT_MS: "1" }, accepted: integerRange },
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: { env: { DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "1.5" }, accepted: integerRange },
  DATABASE_CONNECT_TIMEOUT_MS: { env: { DATABASE_CONNECT_TIMEOUT_MS: "-5" }, accepted: integerRange },
  DATABASE_ACQUIRE_TIMEOUT_MS: { env: { DATABASE_ACQUIRE_TIMEOUT_MS: "999999999" }, accepted: integerRange },
  DISCORD_API_URL: { env: { DISCORD_API_URL: "discord" }, accepted: /absolute http\(s\) URL/ },
  TELEGRAM_API_URL: httpUrl("TELEGRAM_API_URL"),
  DISCORD_BOT_TOKEN: { env: { DISCORD_BOT_TOKEN: "token" }, ...discord },
  DISCORD_CLIENT_ID: { env: { DISCORD_CLIENT_ID: "1234" }, ...discord },
  DISCORD_CLIENT_SECRET: { env: { DISCORD_CLIENT_SECRET: "secret" }, ...discord },
  DISCORD_PUBLIC_KEY: [
    { env: { DISCORD_PUBLIC_KEY: "ab".repeat(32) }, ...discord },
    { env: { ...discordApplication, DISCORD_PUBLIC_KEY: "not-hex" }, accepted: /64 hexadecimal characters/ },
  ],
  HOST: [
    { env: { HOST: "not_a_host" }, accepted: /an IP address of this machine \(0\.0\.0\.0 .*\) or a hostname/ },
    { env: { HOST: "256.1.1.1" }, accepted: /an IP address of this machine/ },
    { env: { HOST: "http://0.0.0.0" }, accepted: /an IP address of this machine/ },
  ],
  HTTP_HEADERS_TIMEOUT_MS: [
    { env: { HTTP_HEADERS_TIMEOUT_MS: "0" }, accepted: integerRange },
    { env: { HTTP_HEADERS_TIMEOUT_MS: "60000", HTTP_REQUEST_TIMEOUT_MS: "30000" }, accepted: /must not exceed HTTP_REQUEST_TIMEOUT_MS/ },
  ],
  HTTP_REQUEST_TIMEOUT_MS: { env: { HTTP_REQUEST_TIMEOUT_MS: "30s" }, accepted: integerRange },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: { env: { HTTP_KEEP_ALIVE_TIMEOUT_MS: "forever" }, accepted: integerRange },
  HTTP_MAX_CONNECTIONS: { env: { HTTP_MAX_CONNECTIONS: "0" }, accepted: integerRange },
  LOG_LEVEL: { env: { LOG_LEVEL: "loud" }, accepted: /one of fatal, error, warn, info, debug, trace, silent/ },
  MCP_ALLOWED_HOSTS: { env: { MCP_ALLOWED_HOSTS: "https://agent.example" }, accepted: /hostnames separated by commas/ },
  MCP_ALLOWED_ORIGINS: { env: { MCP_ALLOWED_ORIGINS: "agent.example:443" }, accepted: /hostnames separated by commas/ },
  MCP_INVOCATION_ENTRIES: { env: { MCP_INVOCATION_ENTRIES: "sometimes" }, accepted: /recorded or committed/ },
  METRICS_PORT: { env: { METRICS_PORT: "metrics" }, accepted: /port number \(0-65535, or off\)/ },
  METRICS_HOST: { env: { METRICS_PORT: "9464", METRICS_HOST: "not_a_host" }, accepted: /an IP address of this machine/ },
  METRICS_TOKEN: [
    { env: { METRICS_TOKEN: "short" }, accepted: /16 or more printable characters/ },
    { env: { METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" }, accepted: /must be set when METRICS_HOST \(0\.0\.0\.0\) is not a loopback address/ },
  ],
  PLATFORM_TIMEOUT_MS: { env: { PLATFORM_TIMEOUT_MS: "10" }, accepted: integerRange },
  REDIS_KEY_PREFIX: { env: { REDIS_KEY_PREFIX: "a b" }, accepted: /1-32 letters, digits/ },
  REDIS_URL: { env: { REDIS_URL: "http://cache.example" }, accepted: /redis:\/\/ or rediss:\/\/ URL/ },
  SHUTDOWN_TIMEOUT_MS: { env: { SHUTDOWN_TIMEOUT_MS: "forever" }, accepted: integerRange },
  STRIPE_SECRET_KEY: [
    { env: { STRIPE_SECRET_KEY: "pk_test_abcdefgh12345678" }, accepted: /a Stripe secret key \(sk_live_\.\.\., sk_test_\.\.\./ },
    { env: { STRIPE_SECRET_KEY: "sk_test_abcdefgh12345678" }, accepted: /STRIPE_WEBHOOK_SECRET are set together/ },
  ],
  STRIPE_WEBHOOK_SECRET: [
    { env: { STRIPE_WEBHOOK_SECRET: "secret" }, accepted: /signing secret \(whsec_\.\.\.\)/ },
    { env: { STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678" }, accepted: /are set together/ },
  ],
  STRIPE_API_URL: [
    { env: { STRIPE_API_URL: "ftp://stripe.example" }, accepted: /http:\/\/ or https:\/\/ URL/ },
    { env: { STRIPE_API_URL: "http://127.0.0.1:12111" }, accepted: /needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET/ },
  ],
  STRIPE_BILLING_WEBHOOK_SECRET: [
    { env: { STRIPE_BILLING_WEBHOOK_SECRET: "secret" }, accepted: /platform webhook endpoint's signing secret \(whsec_\.\.\.\)/ },
    { env: { STRIPE_BILLING_WEBHOOK_SECRET: "whsec_abcdefgh12345678" }, accepted: /are set together \(tier billing\)/ },
    {
      env: { STRIPE_BILLING_WEBHOOK_SECRET: "whsec_abcdefgh12345678", BILLING_STARTER_PRICE: "price_abcd1", BILLING_GROWTH_PRICE: "price_abcd2" },
      accepted: /need STRIPE_SECRET_KEY/,
    },
  ],
  BILLING_STARTER_PRICE: [
    { env: { BILLING_STARTER_PRICE: "19.00" }, accepted: /BILLING_STARTER_PRICE must be a Stripe price id/ },
    {
      env: {
        STRIPE_SECRET_KEY: "sk_test_abcdefgh12345678",
        STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678",
        STRIPE_BILLING_WEBHOOK_SECRET: "whsec_abcdefgh87654321",
        BILLING_STARTER_PRICE: "price_same1",
        BILLING_GROWTH_PRICE: "price_same1",
      },
      accepted: /two different prices/,
    },
  ],
  BILLING_GROWTH_PRICE: { env: { BILLING_GROWTH_PRICE: "prod_abcd" }, accepted: /BILLING_GROWTH_PRICE must be a Stripe price id/ },
  SUBBRIDGE_ENVIRONMENT: [
    { env: { SUBBRIDGE_ENVIRONMENT: "staging" }, accepted: /must be live or test/ },
    {
      env: { SUBBRIDGE_ENVIRONMENT: "test", STRIPE_SECRET_KEY: "sk_live_abcdefgh12345678", STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678" },
      accepted: /refuses a live Stripe key \(sk_live_\/rk_live_\)/,
    },
    { env: { SUBBRIDGE_ENVIRONMENT: "live" }, accepted: /refuses the simulated platforms and Stripe/ },
    // Production takes no test-mode key, restricted or not: a test card would grant real access.
    ...["sk_test_abcdefgh12345678", "rk_test_abcdefgh12345678"].map((key) => ({
      env: {
        SUBBRIDGE_ENVIRONMENT: "live",
        TELEGRAM_API_URL: "https://api.telegram.org",
        STRIPE_SECRET_KEY: key,
        STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678",
      },
      accepted: /SUBBRIDGE_ENVIRONMENT=live refuses a test-mode STRIPE_SECRET_KEY \(sk_test_\/rk_test_\)/,
    })),
    {
      env: {
        DATABASE_URL: "postgres://db.example/app",
        TELEGRAM_API_URL: "https://api.telegram.org",
        STRIPE_SECRET_KEY: "sk_test_abcdefgh12345678",
        STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678",
      },
      accepted: /SUBBRIDGE_ENVIRONMENT=live refuses a test-mode STRIPE_SECRET_KEY/,
    },
  ],
  ROLE: [
    { env: { ROLE: "web" }, accepted: /one of all, api, worker/ },
    { env: { ROLE: "api", WORKER: "on" }, accepted: /runs no background work/ },
    { env: { ROLE: "api", SURFACES: "api,worker" }, accepted: /runs no background work/ },
    { env: { ROLE: "api", SURFACES: "" }, accepted: /would serve nothing/ },
    { env: { ROLE: "worker", SURFACES: "api,mcp" }, accepted: /serves no HTTP surface, but SURFACES names api, mcp/ },
    { env: { ROLE: "worker", WORKER: "off" }, accepted: /would run nothing/ },
  ],
  SURFACES: [
    { env: { SURFACES: "api,nope" }, accepted: /available: api, mcp/ },
    { env: { SURFACES: "", WORKER: "off" }, accepted: /would run nothing/ },
  ],
  TRUST_PROXY: [
    { env: { TRUST_PROXY: "true" }, accepted: /number of proxy hops, or addresses, CIDR ranges/ },
    { env: { TRUST_PROXY: "proxy.example" }, accepted: /number of proxy hops, or addresses, CIDR ranges/ },
  ],
  WEBHOOK_ALLOWED_CIDRS: { env: { WEBHOOK_ALLOWED_CIDRS: "10.0.0.0/99" }, accepted: /CIDR ranges/ },
  WEBHOOK_ALLOW_HTTP: { env: { WEBHOOK_ALLOW_HTTP: "maybe" }, accepted: /on or off/ },
  WEBHOOK_TIMEOUT_MS: { env: { WEBHOOK_TIMEOUT_MS: "1" }, accepted: integerRange },
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: { env: { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: "0" }, accepted: integerRange },
  WEBHOOK_MAX_IN_FLIGHT_PER_TEAM: { env: { WEBHOOK_MAX_IN_FLIGHT_PER_TEAM: "many" }, accepted: integerRange },
  WEBHOOK_MAX_ENDPOINTS_PER_TEAM: { env: { WEBHOOK_MAX_ENDPOINTS_PER_TEAM: "-1" }, accepted: integerRange },
  WORKER: { env: { WORKER: "sometimes" }, accepted: /on or off/ },
  MAIL_CATCHER_PORT: { env: { MAIL_CATCHER_PORT: "mail" }, accepted: /port number/ },
  MAIL_CATCHER_SMTP_PORT: { env: { MAIL_CATCHER_SMTP_PORT: "70000" }, accepted: /port number/ },
  SIMULATED_PLATFORMS_PORT: { env: { SIMULATED_PLATFORMS_PORT: "-1" }, accepted: /port number/ },
  STRIPE_TWIN_PORT: { env: { STRIPE_TWIN_PORT: "4.5" }, accepted: /port number/ },
};

/** Variables whose value is checked elsewhere, or that take any value. */
const checkedElsewhere: Record<string, string> = {
  CONNECTORS_DIR: "read by loadConnectorRegistry before the backends open (tested below)",
  RELEASE: "any text names the release",
  DATA_DIR: "refused when a file stands in its place (tested below)",
};

/** Every variable name config.ts reads: env.NAME, and names handed to its parsers ("NAME", `${SURFACE}_PORT`). */
function variablesReadByConfig(): string[] {
  // ROLE, SURFACES and WORKER are read together in config-role.ts.
  const source = ["src/config.ts", "src/config-role.ts"].map((file) => readFileSync(join(ROOT, file), "utf8")).join("\n");
  const names = new Set<string>();
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]!);
  for (const m of source.matchAll(/\(env, "([A-Z][A-Z0-9_]*)"/g)) names.add(m[1]!);
  for (const s of SURFACES) names.add(`${s.toUpperCase()}_PORT`).add(s === "api" ? "BASE_URL" : `${s.toUpperCase()}_URL`);
  return [...names].sort();
}

describe("configuration errors in words", () => {
  const variables = variablesReadByConfig();

  it("has a bad value for every variable config.ts reads", () => {
    assert.ok(variables.includes("LOG_LEVEL") && variables.includes("HOST") && variables.length > 40, variables.join(" "));
    assert.deepEqual(
      variables.filter((name) => !(name in cases) && !(name in checkedElsewhere)),
      [],
    );
  });

  // Only the variables this config.ts reads (a case may be ready for one another change brings).
  for (const [name, bad] of Object.entries(cases).filter(([n]) => variables.includes(n))) {
    it(`refuses a bad ${name} in one line naming it and what it accepts`, () => {
      for (const { env, accepted } of [bad].flat()) {
        assert.throws(
          () => loadConfig(env),
          (err: unknown) => {
            assert.ok(err instanceof ConfigError, `${JSON.stringify(env)}: ${String(err)}`);
            assert.ok(!err.message.includes("\n"), `one line: ${err.message}`);
            assert.ok(err.message.includes(name), `names ${name}: ${err.message}`);
            assert.match(err.message, accepted);
            return true;
          },
          `${JSON.stringify(env)} is refused`,
        );
      }
    });
  }

  it("refuses a DATA_DIR that is a file", () => {
    const file = join(tempDir("data-dir"), "not-a-folder");
    writeFileSync(file, "");
    assert.throws(
      () => loadConfig({ DATA_DIR: join(file, "data") }),
      (err: Error) => err instanceof ConfigError && /^DATA_DIR must be a folder \(created if missing\).* is a file$/.test(err.message),
    );
    assert.equal(loadConfig({ DATA_DIR: join(tempDir("data-dir"), "new", "data") }).dataDir.endsWith("/new/data"), true, "a missing folder is fine");
  });

  it("names CONNECTORS_DIR when it does not exist", () => {
    assert.throws(() => loadConnectorRegistry("/nonexistent/connectors"), /set CONNECTORS_DIR to the folder holding the connector packages/);
  });

  it("accepts the documented forms", () => {
    const config = loadConfig({
      LOG_LEVEL: "DEBUG",
      HOST: "::",
      METRICS_PORT: "9464",
      METRICS_HOST: "10.1.2.3",
      METRICS_TOKEN: "0123456789abcdef0123",
      HTTP_HEADERS_TIMEOUT_MS: "5000",
      HTTP_MAX_CONNECTIONS: "50",
    });
    assert.equal(config.logLevel, "debug");
    assert.equal(config.host, "::");
    assert.deepEqual(config.metrics, { port: 9464, host: "10.1.2.3", token: "0123456789abcdef0123" });
    assert.equal(config.http.headersTimeoutMs, 5000);
    assert.equal(config.http.maxConnections, 50);
    assert.equal(loadConfig({ HOST: "app.internal" }).host, "app.internal");
    assert.equal(loadConfig({ METRICS_PORT: "off" }).metrics.port, null);
    assert.equal(loadConfig({}).metrics.port, null, "no metrics listener unless asked for");
  });
});
