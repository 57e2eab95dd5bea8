// The operator's webhook settings: WEBHOOK_ALLOWED_CIDRS, WEBHOOK_ALLOW_HTTP, WEBHOOK_TIMEOUT_MS and the
// caps WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, WEBHOOK_MAX_IN_FLIGHT_PER_TEAM, WEBHOOK_MAX_ENDPOINTS_PER_TEAM.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../../src/config.ts";
import { checkWebhookUrl, STRICT_WEBHOOK_NETWORK } from "../../../src/modules/webhooks/address-guard.ts";
import { DEFAULT_WEBHOOK_LIMITS } from "../../../src/modules/webhooks/limits.ts";

/** A production start: real platforms and a live Stripe key. */
const LIVE = {
  SUBBRIDGE_ENVIRONMENT: "live",
  TELEGRAM_API_URL: "https://api.telegram.org",
  STRIPE_SECRET_KEY: "sk_live_abcdefgh12345678",
  STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678",
};

describe("webhook configuration", () => {
  it("defaults live to https, public addresses only, 10 seconds a request and the default caps", () => {
    assert.deepEqual(loadConfig(LIVE).webhooks, STRICT_WEBHOOK_NETWORK);
    assert.deepEqual(DEFAULT_WEBHOOK_LIMITS, { inFlightPerEndpoint: 16, inFlightPerTeam: 32, endpointsPerTeam: 20 });
  });

  it("defaults the test environment to loopback receivers over http, unless the operator sets either variable", () => {
    for (const env of [{}, { SUBBRIDGE_ENVIRONMENT: "test", DATABASE_URL: "postgres://db.example/subbridge" }]) {
      assert.deepEqual(loadConfig(env).webhooks, { ...STRICT_WEBHOOK_NETWORK, allowedCidrs: ["127.0.0.0/8", "::1/128"], allowHttp: true });
    }
    // Set, even to nothing, the operator's word holds: a shared sandbox can keep the strict guard.
    assert.deepEqual(loadConfig({ WEBHOOK_ALLOWED_CIDRS: "", WEBHOOK_ALLOW_HTTP: "off" }).webhooks, STRICT_WEBHOOK_NETWORK);
    assert.deepEqual(loadConfig({ WEBHOOK_ALLOWED_CIDRS: "10.0.0.0/8" }).webhooks.allowedCidrs, ["10.0.0.0/8"]);
  });

  it("names the settings that lift a refusal", async () => {
    const live = loadConfig(LIVE).webhooks;
    const local = await checkWebhookUrl("http://127.0.0.1:9000/hook", live);
    assert.ok(!local.ok && /WEBHOOK_ALLOW_HTTP=on/.test(local.message), JSON.stringify(local));
    const loopback = await checkWebhookUrl("https://127.0.0.1:9000/hook", live);
    assert.ok(!loopback.ok && /public hosts only.*WEBHOOK_ALLOWED_CIDRS/.test(loopback.message), JSON.stringify(loopback));
    const sandbox = await checkWebhookUrl("http://127.0.0.1:9000/hook", loadConfig({}).webhooks);
    assert.ok(sandbox.ok, JSON.stringify(sandbox));
  });

  it("reads exempt ranges, the http allowance, the time-out and the caps", () => {
    const config = loadConfig({
      WEBHOOK_ALLOWED_CIDRS: " 127.0.0.0/8, ::1/128 ",
      WEBHOOK_ALLOW_HTTP: "on",
      WEBHOOK_TIMEOUT_MS: "2500",
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: "2",
      WEBHOOK_MAX_IN_FLIGHT_PER_TEAM: "5",
      WEBHOOK_MAX_ENDPOINTS_PER_TEAM: "100",
    });
    assert.deepEqual(config.webhooks, {
      allowedCidrs: ["127.0.0.0/8", "::1/128"],
      allowHttp: true,
      timeoutMs: 2500,
      limits: { inFlightPerEndpoint: 2, inFlightPerTeam: 5, endpointsPerTeam: 100 },
    });
  });

  it("refuses bad values naming the variable", () => {
    for (const [name, value] of [
      ["WEBHOOK_ALLOWED_CIDRS", "127.0.0.1"],
      ["WEBHOOK_ALLOWED_CIDRS", "10.0.0.0/33"],
      ["WEBHOOK_ALLOW_HTTP", "yes"],
      ["WEBHOOK_TIMEOUT_MS", "0"],
      ["WEBHOOK_TIMEOUT_MS", "soon"],
      ["WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT", "0"],
      ["WEBHOOK_MAX_IN_FLIGHT_PER_TEAM", "1.5"],
      ["WEBHOOK_MAX_ENDPOINTS_PER_TEAM", "many"],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.startsWith(name),
        `${name}=${value}`,
      );
    }
  });
});
