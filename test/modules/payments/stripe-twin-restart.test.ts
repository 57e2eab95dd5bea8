// The Stripe twin of an embedded start remembers, as Stripe does (issue 43, item 4): with a state
// file, a twin started again knows the connected accounts, products, prices, customers,
// subscriptions, test clocks, events and idempotency keys of the one before, serves on the same
// port, and takes the next checkout on a connected account the first one made; openStripe started
// twice on one DATA_DIR keeps one Connect endpoint and one billing endpoint. A twin without a file
// (every other test) forgets, and an unreadable file is set aside instead of failing the start.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type Stripe from "stripe";
import { loadConfig } from "../../../src/config.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { openStripe, STRIPE_TWIN_FILE } from "../../../src/outside/stripe.ts";
import { tempDir } from "../../helpers/processes.ts";

const clientOf = (twin: StripeTwin) => createStripeClient({ secretKey: twin.secretKey, ...twin.clientOptions });

describe("Stripe twin: state kept across restarts", function () {
  this.timeout(60_000);
  const secretKey = `sk_test_${randomBytes(16).toString("hex")}`;

  it("knows the last start's objects, serves on its port and takes a checkout on an account it connected", async () => {
    const stateFile = join(tempDir("stripe-twin-state"), STRIPE_TWIN_FILE);
    const first = await startStripeTwin({ secretKey, stateFile });
    const before = clientOf(first);
    const account = await before.accounts.create({ type: "express", email: "creator@example.com" }, { idempotencyKey: "connect-1" });
    await first.completeOnboarding(account.id);
    const on = { stripeAccount: account.id };
    const product = await before.products.create({ name: "Night Owl" }, on);
    const price = await before.prices.create({ product: product.id, unit_amount: 900, currency: "usd", recurring: { interval: "month" } }, on);
    const clock = await before.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) }, on);
    const customer = await before.customers.create({ email: "member@example.com", test_clock: clock.id }, on);
    const session = await before.checkout.sessions.create(
      { mode: "subscription", line_items: [{ price: price.id, quantity: 1 }], success_url: "http://localhost/ok", customer: customer.id },
      on,
    );
    await first.completeCheckout(session.id);
    const subscription = (await before.checkout.sessions.retrieve(session.id, {}, on)).subscription as string;
    await first.close();
    assert.ok(existsSync(stateFile), "the state is written when the twin stops");

    const again = await startStripeTwin({ secretKey, stateFile });
    try {
      assert.equal(again.port, first.port, "a restart serves where the last start did");
      const after = clientOf(again);
      assert.equal((await after.accounts.retrieve(account.id)).charges_enabled, true);
      assert.equal((await after.products.retrieve(product.id, {}, on)).name, "Night Owl");
      assert.equal((await after.prices.retrieve(price.id, {}, on)).unit_amount, 900);
      assert.equal(((await after.customers.retrieve(customer.id, {}, on)) as Stripe.Customer).email, "member@example.com");
      assert.equal((await after.subscriptions.retrieve(subscription, {}, on)).status, "active");
      assert.equal((await after.testHelpers.testClocks.retrieve(clock.id, {}, on)).frozen_time, clock.frozen_time);
      assert.equal((await after.checkout.sessions.listLineItems(session.id, {}, on)).data[0]?.price?.id, price.id);
      assert.ok(
        (await after.events.list({ type: "checkout.session.completed" }, on)).data.some(
          (e) => (e.data.object as Stripe.Checkout.Session).id === session.id,
        ),
      );
      // Stripe's idempotency: the same key answers the account made before the restart.
      assert.equal((await after.accounts.create({ type: "express", email: "creator@example.com" }, { idempotencyKey: "connect-1" })).id, account.id);

      // The next member's checkout on the connected account is taken (a forgetful twin refused it: account_invalid).
      const next = await after.checkout.sessions.create(
        { mode: "subscription", line_items: [{ price: price.id, quantity: 1 }], success_url: "http://localhost/ok" },
        on,
      );
      assert.equal(await again.completeCheckout(next.id), "http://localhost/ok");
      assert.equal((await after.checkout.sessions.retrieve(next.id, {}, on)).payment_status, "paid");
    } finally {
      await again.close();
    }
  });

  it("keeps one Connect and one billing endpoint across openStripe's restarts on one DATA_DIR, and the accounts", async () => {
    const dataDir = tempDir("stripe-open-restart");
    const appKey = randomBytes(32);
    const config = loadConfig({}).stripe;
    const first = await openStripe(config, "http://localhost:4000", appKey, dataDir);
    const account = await first.payments!.client.accounts.create({ type: "express" });
    await first.close();
    const second = await openStripe(config, "http://localhost:4000", appKey, dataDir);
    try {
      const client = second.payments!.client;
      const endpoints = (await client.webhookEndpoints.list()).data.map((e) => e.url).sort();
      assert.deepEqual(endpoints, ["http://localhost:4000/billing/stripe/events", "http://localhost:4000/payments/stripe/events"]);
      assert.equal((await client.accounts.retrieve(account.id)).id, account.id);
      assert.equal(second.description, first.description, "the same address");
      // The tiers' prices were found by their lookup keys, not made again.
      assert.equal((await client.prices.list({ limit: 100 })).data.length, 2);
    } finally {
      await second.close();
    }
  });

  it("forgets without a state file, and sets an unreadable file aside", async () => {
    const plain = await startStripeTwin({ secretKey });
    const account = await clientOf(plain).accounts.create({ type: "express" });
    await plain.close();
    const fresh = await startStripeTwin({ secretKey });
    await assert.rejects(clientOf(fresh).accounts.retrieve(account.id), { code: "resource_missing" });
    await fresh.close();

    const stateFile = join(tempDir("stripe-twin-unreadable"), STRIPE_TWIN_FILE);
    writeFileSync(stateFile, "{not json");
    const twin = await startStripeTwin({ secretKey, stateFile });
    await twin.close();
    assert.equal(readFileSync(`${stateFile}.unreadable`, "utf8"), "{not json");
  });
});
