// The Stripe twin's hosted checkout page in Chromium, as a member completes it: a declined card is
// shown in the form, 4242 pays and the browser lands on success_url with the session id; the page
// loads nothing from outside and breaks no CSP rule. Screenshots at desktop width and 390 px under
// test-artifacts/screenshots/<backend>/stripe-checkout-*.png.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { Browser } from "playwright-core";
import Stripe from "stripe";
import { startStripeTwin, TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { freshPage, launchBrowser, screenshot } from "../../helpers/browser.ts";
import { allOrNothing, listenOnLoopback } from "../../helpers/open-resources.ts";

describe("Stripe twin: hosted checkout (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let twin: StripeTwin;
  let stripe: Stripe;
  let app: { port: number; close(): Promise<void> };

  before(async () => {
    // The creator's site the checkout returns to.
    const site = createServer((req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>Thanks</title><h1>Thanks</h1><p>${req.url}</p>`),
    );
    [browser, twin, app] = await allOrNothing([
      launchBrowser(),
      startStripeTwin({ merchantName: "Night Owls Club" }),
      listenOnLoopback(site, "checkout return site"),
    ]);
    stripe = new Stripe(twin.secretKey, { ...twin.clientOptions, maxNetworkRetries: 0, telemetry: false });
  });
  after(async () => {
    await browser?.close();
    await twin?.close();
    await app?.close();
  });

  it("shows the plan and a card form, reports a declined card, and pays with 4242 back to success_url", async () => {
    const product = await stripe.products.create({ name: "Night Owl monthly" });
    const price = await stripe.prices.create({ product: product.id, unit_amount: 500, currency: "usd", recurring: { interval: "month" } });
    const back = `http://127.0.0.1:${app.port}`;
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: `${back}/done?session={CHECKOUT_SESSION_ID}`,
      cancel_url: `${back}/plans`,
    });
    const { context, page } = await freshPage(browser);
    const problems: string[] = [];
    // The declined card's answer is a 402, which Chromium logs; any other error (a CSP violation) is a problem.
    page.on("console", (message) => void (message.type() === "error" && !/status of 402/.test(message.text()) && problems.push(message.text())));
    page.on(
      "request",
      (request) => void (!request.url().startsWith(twin.url) && !request.url().startsWith(back) && problems.push(`outside request ${request.url()}`)),
    );

    await page.goto(session.url!);
    await page.getByRole("heading", { name: "Night Owl monthly" }).waitFor();
    assert.match(await page.locator("main").innerText(), /\$5\.00 per month/);
    await screenshot(page, "stripe-checkout-desktop");

    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByLabel("Email").fill("owl@example.com");
    await page.getByLabel("Card number").fill(TEST_CARDS.declined);
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 34");
    await page.getByLabel("CVC").fill("123");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.getByRole("alert").filter({ hasText: "Your card was declined." }).waitFor();
    assert.equal(await page.getByLabel("Card number").getAttribute("aria-invalid"), "true");
    await screenshot(page, "stripe-checkout-declined-390");

    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.waitForURL(`${back}/done?session=${session.id}`);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["subscription"] });
    assert.deepEqual([done.status, done.payment_status, (done.subscription as Stripe.Subscription).status], ["complete", "paid", "active"]);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
