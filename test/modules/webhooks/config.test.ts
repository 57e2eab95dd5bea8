// The operator's webhook settings: WEBHOOK_ALLOWED_CIDRS, WEBHOOK_ALLOW_HTTP, WEBHOOK_TIMEOUT_MS and the
// caps WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, WEBHOOK_MAX_IN_FLIGHT_PER_TEAM, WEBHOOK_MAX_ENDPOINTS_PER_TEAM.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../../src/config.ts";
import { STRICT_WEBHOOK_NETWORK } from "../../../src/modules/webhooks/address-guard.ts";
import { DEFAULT_WEBHOOK_LIMITS } from "../../../src/modules/webhooks/limits.ts";

describe("webhook configuration", () => {
  it("defaults to https, public addresses only, 10 seconds a request and the default caps", () => {
    assert.deepEqual(loadConfig({}).webhooks, STRICT_WEBHOOK_NETWORK);
    assert.deepEqual(DEFAULT_WEBHOOK_LIMITS, { inFlightPerEndpoint: 16, inFlightPerTeam: 32, endpointsPerTeam: 20 });
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
