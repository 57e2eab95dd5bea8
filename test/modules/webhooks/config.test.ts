// The operator's webhook settings: WEBHOOK_ALLOWED_CIDRS, WEBHOOK_ALLOW_HTTP, WEBHOOK_TIMEOUT_MS.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../../src/config.ts";
import { STRICT_WEBHOOK_NETWORK } from "../../../src/modules/webhooks/address-guard.ts";

describe("webhook configuration", () => {
  it("defaults to https, public addresses only and 10 seconds a request", () => {
    assert.deepEqual(loadConfig({}).webhooks, STRICT_WEBHOOK_NETWORK);
  });

  it("reads exempt ranges, the http allowance and the time-out", () => {
    const config = loadConfig({ WEBHOOK_ALLOWED_CIDRS: " 127.0.0.0/8, ::1/128 ", WEBHOOK_ALLOW_HTTP: "on", WEBHOOK_TIMEOUT_MS: "2500" });
    assert.deepEqual(config.webhooks, { allowedCidrs: ["127.0.0.0/8", "::1/128"], allowHttp: true, timeoutMs: 2500 });
  });

  it("refuses bad values naming the variable", () => {
    for (const [name, value] of [
      ["WEBHOOK_ALLOWED_CIDRS", "127.0.0.1"],
      ["WEBHOOK_ALLOWED_CIDRS", "10.0.0.0/33"],
      ["WEBHOOK_ALLOW_HTTP", "yes"],
      ["WEBHOOK_TIMEOUT_MS", "0"],
      ["WEBHOOK_TIMEOUT_MS", "soon"],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.startsWith(name),
        `${name}=${value}`,
      );
    }
  });
});
