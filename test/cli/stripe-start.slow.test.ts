// `npm start` on an embedded database with no Stripe settings runs the Stripe twin on loopback,
// names it in the banner, and registers on it a Connect webhook endpoint pointing at the API's
// route and the platform endpoint of the creators' tier billing; both routes answer (an unsigned
// event is refused in the error envelope).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createStripeClient } from "../../src/modules/payments/stripe/client.ts";
import { simulatedStripeKey } from "../../src/outside/stripe.ts";
import { BILLING_STRIPE_EVENTS } from "../../src/modules/billing/stripe-setup.ts";
import { freePort, startNpm, tempDir } from "../helpers/processes.ts";

describe("npm start with the simulated Stripe", function () {
  this.timeout(300_000);

  it("[embedded] names the twin in the banner; its webhook endpoint points at the API", async () => {
    const appKey = randomBytes(32);
    const apiPort = await freePort();
    const env = {
      DATA_DIR: tempDir("stripe-start"),
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      SURFACES: "api",
      WORKER: "off",
      API_PORT: String(apiPort),
      APP_KEY: appKey.toString("hex"),
      DATABASE_URL: "",
      STRIPE_SECRET_KEY: "",
      STRIPE_WEBHOOK_SECRET: "",
      STRIPE_API_URL: "",
    };
    const started = await startNpm(env, /Payments\s+Stripe simulated on http:\/\/127\.0\.0\.1:\d+; set STRIPE_SECRET_KEY for real Stripe\n/);
    try {
      const twinUrl = new URL(/Payments\s+Stripe simulated on (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output())![1]!);
      const client = createStripeClient({
        secretKey: simulatedStripeKey(appKey),
        host: twinUrl.hostname,
        port: Number(twinUrl.port),
        protocol: "http",
      });
      const endpoints = (await client.webhookEndpoints.list()).data;
      // The Connect endpoint, and the platform endpoint of the creators' own tier billing.
      assert.deepEqual(endpoints.map((e) => [e.url, e.enabled_events]).sort(), [
        [`http://localhost:${apiPort}/billing/stripe/events`, [...BILLING_STRIPE_EVENTS]],
        [`http://localhost:${apiPort}/payments/stripe/events`, ["*"]],
      ]);
      for (const path of ["/payments/stripe/events", "/billing/stripe/events"]) {
        const unsigned = await fetch(`http://127.0.0.1:${apiPort}${path}`, { method: "POST", body: "{}" });
        assert.equal(unsigned.status, 400, path);
        assert.equal(((await unsigned.json()) as { error: { code: string } }).error.code, "PROVIDER_SIGNATURE_INVALID");
      }
    } finally {
      assert.equal(await started.stop(), 0);
    }
  });
});
