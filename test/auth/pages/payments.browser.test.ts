// The payments page in Chromium (issue 33, item 1): a creator signs in, presses Connect Stripe,
// completes the Stripe twin's onboarding page and comes back to an enabled Stripe method; then
// enables Telegram Stars. The browser follows the connect form's redirect to the onboarding page
// (the page's CSP form-action names it) with no CSP error. Screenshots at desktop width and 390 px
// under test-artifacts/screenshots/<backend>/payments-*.png (screenshot() also refuses sideways
// scrolling). The refunds pages: a project's payments and a refund's confirmation, refunded through
// the twin (screenshots payments-refund-*.png).
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { createTestCreator, TEST_PASSWORD } from "../../helpers/fixtures.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { seedInstallation } from "../../helpers/platforms.ts";
import { startApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { startStripeTwin, TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { openStripeShop } from "../../modules/payments/stripe-shop.ts";

describe("auth pages: payments (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let twin: StripeTwin;
  let api: Awaited<ReturnType<typeof startApi>>;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    twin = await startStripeTwin({ merchantName: "SubBridge" });
    api = await startApi({ stripeTwin: twin });
    [browser, auth] = await allOrNothing([launchBrowser(), startAuth({ stripe: api.deps.stripe! })]);
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
    await twin?.close();
  });

  it("connects Stripe through the onboarding page and back, then enables Telegram Stars", async () => {
    const creator = await createTestCreator({ label: "pay-browser" });
    const [projectId] = creator.projectIds;
    await seedInstallation(creator.teamId, projectId!);
    const { context, page } = await freshPage(browser);
    const problems: string[] = [];
    // Any error (a CSP violation, a failed load) is a problem, except the browser's own favicon request (no page names one).
    page.on("console", (message) => {
      const at = message.location().url;
      if (message.type() === "error" && !at.endsWith("/favicon.ico")) problems.push(`${message.text()} (${at})`);
    });

    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/payments");
    await page.waitForURL(`${auth.url}/payments`);
    await page.getByRole("heading", { name: `Project 1 of ${creator.email}` }).waitFor();
    assert.equal(await page.getByLabel("Currencies to take").inputValue(), "USD");
    await screenshot(page, "payments-desktop");

    await page.getByLabel("Currencies to take").fill("USD, EUR");
    await page.getByRole("button", { name: "Connect Stripe" }).click();
    await page.waitForURL((url) => url.href.startsWith(`${twin.url}/setup/e/acct_`));
    await page.getByRole("heading", { name: "Set up payments" }).waitFor();
    assert.match(await page.locator("body").innerText(), new RegExp(creator.email.replace(/[.+]/g, "\\$&")));

    await page.getByRole("button", { name: "Agree and submit" }).click();
    await page.waitForURL(`${auth.url}/payments?done=stripe-connected`);
    await page.getByText("Stripe is connected").waitFor();
    const stripe = page.locator("li.payment-method", { hasText: "Stripe" });
    assert.match(await stripe.innerText(), /On[\s\S]*USD, EUR/);
    await screenshot(page, "payments-connected-desktop");

    await page.getByRole("button", { name: "Enable Telegram Stars" }).click();
    await page.waitForURL(`${auth.url}/payments?done=stars-enabled`);
    assert.match(await page.locator("li.payment-method", { hasText: "Telegram Stars" }).innerText(), /XTR/);
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "payments-390");

    const { db } = await testDatabase();
    const methods = (await db("payment_methods").where({ project_id: projectId, enabled: true }).orderBy("provider").pluck("provider")) as string[];
    assert.deepEqual(
      methods.filter((m) => m !== "access_codes"),
      ["stripe", "telegram_stars"],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("lists a project's payments and refunds one from its confirmation page", async () => {
    const creator = await createTestCreator({ label: "refund-browser" });
    const shop = await openStripeShop(creator, twin, api.deps.stripe!);
    for (const name of ["Ada Lovelace", "Grace Hopper"]) {
      const { sessionId } = await shop.checkoutFor(name);
      await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    }
    await twin.settled();
    const { context, page } = await freshPage(browser);
    const problems: string[] = [];
    page.on("console", (message) => {
      const at = message.location().url;
      if (message.type() === "error" && !at.endsWith("/favicon.ico")) problems.push(`${message.text()} (${at})`);
    });
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/payments");
    await page.waitForURL(`${auth.url}/payments`);
    await page.getByRole("link", { name: "Recent payments and refunds" }).click();
    await page.locator("li.payment", { hasText: "Grace Hopper" }).waitFor();
    assert.equal(await page.locator("li.payment").count(), 2);
    await screenshot(page, "payments-refund-list-desktop");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "payments-refund-list-390");

    await page.getByRole("link", { name: "Refund Ada Lovelace's payment of 5.00 USD" }).click();
    await page.getByText("refunding all of it ends their access now").waitFor();
    await screenshot(page, "payments-refund-confirm-390");
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "payments-refund-confirm-desktop");
    await page.getByLabel("Amount to refund (USD)").fill("1.50");
    await page.getByRole("button", { name: "Refund" }).click();
    await page.getByText("Stripe is refunding the payment").waitFor();
    await twin.settled();
    await page.reload();
    assert.match(await page.locator("li.payment", { hasText: "Ada Lovelace" }).innerText(), /1\.50 USD refunded/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
