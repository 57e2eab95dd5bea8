// The billing page in Chromium (issue 33, item 5): a Free owner opens Billing from the account page,
// chooses "Upgrade to Starter", pays with 4242 on the Stripe twin's hosted page, comes back to the
// billing page and sees Starter with its price and renewal date; the page then offers the plan
// change and the cancellation. Screenshots at desktop width and 390 px under
// test-artifacts/screenshots/<backend>/billing-*.png.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { setUpSimulatedBilling } from "../../../src/modules/billing/stripe-setup.ts";
import { startStripeTwin, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { StripePayments } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { createTestCreator, TEST_PASSWORD } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";

describe("billing page: upgrading the owner's tier (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let twin: StripeTwin;
  let api: RunningApi;
  let auth: Awaited<ReturnType<typeof startAuth>>;

  before(async () => {
    twin = await startStripeTwin({ merchantName: "SubBridge" });
    api = await startApi({ stripeTwin: twin });
    const stripe = api.deps.stripe as StripePayments;
    stripe.billing = await setUpSimulatedBilling(stripe.client, api.url);
    auth = await startAuth({ stripe });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
    await twin?.close();
  });

  it("upgrades Free to Starter through the hosted page with 4242 and shows Starter", async () => {
    const creator = await createTestCreator({ tier: "free", label: "billing-browser" });
    const { context, page } = await freshPage(browser);
    const problems: string[] = [];
    // Chromium asks the twin for /favicon.ico, which it does not serve; any other error (a CSP violation) is a problem.
    page.on(
      "console",
      (message) =>
        void (
          message.type() === "error" &&
          !message.location().url.endsWith("/favicon.ico") &&
          problems.push(`${message.text()} ${message.location().url}`)
        ),
    );
    page.on("response", (r) => void (r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`)));

    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/");
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Billing" }).click();
    await page.getByRole("heading", { name: "Your tier: Free" }).waitFor();
    assert.match(await page.locator("main").innerText(), /\$19\.00 a month[\s\S]*\$49\.00 a month/);
    await screenshot(page, "billing-free-desktop");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "billing-free-390");
    await page.setViewportSize({ width: 1100, height: 800 });

    await page.getByRole("button", { name: "Upgrade to Starter" }).click();
    await page.getByRole("heading", { name: "SubBridge Starter" }).waitFor();
    assert.match(await page.locator("main").innerText(), /\$19\.00 per month/);
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 34");
    await page.getByLabel("CVC").fill("123");
    await page.getByRole("button", { name: "Subscribe" }).click();

    await page.waitForURL(/\/billing\?team=.*&done=paid$/);
    await page.getByRole("heading", { name: "Your tier: Starter" }).waitFor();
    const text = await page.locator("main").innerText();
    assert.match(text, /Payment received/);
    assert.match(text, /Starter, \$19\.00 a month, renews on \d{4}-\d{2}-\d{2}/);
    assert.ok(await page.getByRole("button", { name: "Change plan to Growth" }).isVisible());
    assert.ok(await page.getByRole("button", { name: "Cancel plan" }).isVisible());
    await screenshot(page, "billing-starter-desktop");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "billing-starter-390");

    const { db } = await testDatabase();
    assert.equal(((await db("users").where({ id: creator.userId }).first("tier")) as { tier: string }).tier, "starter");
    assert.deepEqual(problems, []);
    await context.close();
  });
});
