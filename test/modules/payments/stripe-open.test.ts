// Which Stripe the service runs with (openStripe, from loadConfig): the twin on an embedded start
// with no Stripe settings, with a Connect endpoint on it pointing at the API's route; real Stripe
// (or STRIPE_API_URL's server) with the key and secret given; none on PostgreSQL without a key.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { loadConfig } from "../../../src/config.ts";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { openStripe, simulatedStripeKey } from "../../../src/outside/stripe.ts";

const appKey = randomBytes(32);

describe("payments: opening Stripe for the service", () => {
  it("runs the twin on an embedded start with no Stripe settings, its endpoint pointing at the API", async () => {
    const config = loadConfig({});
    assert.equal(config.stripe.simulated, true);
    const opened = await openStripe(config.stripe, "http://localhost:4000/", appKey);
    try {
      assert.match(opened.description, /^Stripe simulated on http:\/\/127\.0\.0\.1:\d+; set STRIPE_SECRET_KEY for real Stripe$/);
      const endpoints = (await opened.payments!.client.webhookEndpoints.list()).data;
      assert.deepEqual(endpoints.map((e) => e.url).sort(), [
        "http://localhost:4000/billing/stripe/events",
        "http://localhost:4000/payments/stripe/events",
      ]);
      assert.match(opened.payments!.webhookSecret, /^whsec_/);
      // The creators' tier billing: the platform endpoint's own secret and the tiers' prices at their list amounts.
      const billing = opened.payments!.billing!;
      assert.match(billing.webhookSecret, /^whsec_/);
      assert.notEqual(billing.webhookSecret, opened.payments!.webhookSecret);
      const starter = await opened.payments!.client.prices.retrieve(billing.prices.starter);
      assert.deepEqual([starter.unit_amount, starter.currency, starter.recurring?.interval], [1900, "usd", "month"]);
      // The twin's key is derived from APP_KEY: an operator's own client reaches it.
      const twinUrl = new URL(/on (http:\S+);/.exec(opened.description)![1]!);
      const own = createStripeClient({ secretKey: simulatedStripeKey(appKey), host: twinUrl.hostname, port: Number(twinUrl.port), protocol: "http" });
      assert.equal((await own.webhookEndpoints.list()).data.length, 2);
    } finally {
      await opened.close();
    }
  });

  it("has no Stripe on PostgreSQL without a key, and never the twin", async () => {
    const config = loadConfig({ DATABASE_URL: "postgres://db.example/app" });
    assert.deepEqual(config.stripe, { secretKey: null, webhookSecret: null, apiUrl: null, simulated: false, billing: null });
    const opened = await openStripe(config.stripe, "https://api.example", appKey);
    assert.equal(opened.payments, null);
    assert.match(opened.description, /payments by Stripe are unavailable/);
  });

  it("uses the key and secret given, at STRIPE_API_URL when set", async () => {
    const env = { STRIPE_SECRET_KEY: "sk_test_abcdefgh12345678", STRIPE_WEBHOOK_SECRET: "whsec_abcdefgh12345678" };
    const real = await openStripe(loadConfig(env).stripe, "https://api.example", appKey);
    assert.equal(real.description, "Stripe (api.stripe.com)");
    assert.equal(real.payments!.webhookSecret, "whsec_abcdefgh12345678");
    assert.equal(real.payments!.billing, null);
    const billed = loadConfig({
      ...env,
      STRIPE_BILLING_WEBHOOK_SECRET: "whsec_billing12345678",
      BILLING_STARTER_PRICE: "price_starter1",
      BILLING_GROWTH_PRICE: "price_growth1",
    });
    const withTiers = await openStripe(billed.stripe, "https://api.example", appKey);
    assert.deepEqual(withTiers.payments!.billing, {
      webhookSecret: "whsec_billing12345678",
      prices: { starter: "price_starter1", growth: "price_growth1" },
    });
    const elsewhere = await openStripe(loadConfig({ ...env, STRIPE_API_URL: "http://127.0.0.1:12111" }).stripe, "https://api.example", appKey);
    assert.equal(elsewhere.description, "Stripe-compatible server at http://127.0.0.1:12111");
    assert.equal(elsewhere.payments!.client.getApiField("port"), 12111);
  });
});
