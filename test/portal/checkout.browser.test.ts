// A member pays for a plan from the portal in Chromium (issue 33): the plan page asks a visitor to
// sign in first, the sign-in through the bot comes back to the plan, the card form with a coupon
// sends the browser to the Stripe twin's hosted page, 4242 4242 4242 4242 pays there, and the
// portal's success page (waiting for the report, no script) turns from "Confirming your payment" to
// "You're in" once the twin's signed event reached the API. Screenshots at desktop width and 390 px
// under test-artifacts/screenshots/<backend>/portal-checkout-*.png.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { createCoupon } from "../../src/modules/coupons/coupons.ts";
import { createPaymentMethod } from "../../src/modules/payment-methods/payment-methods.ts";
import { sealStripeCredentials } from "../../src/modules/payments/providers.ts";
import { startStripeTwin, type StripeTwin } from "../../src/simulators/stripe/index.ts";
import { createConnectedAccount } from "../../src/modules/payments/stripe/index.ts";
import type { StripePayments } from "../../src/modules/payments/stripe/stripe-payments.ts";
import { freshPage, launchBrowser, screenshot } from "../helpers/browser.ts";
import { testDatabase } from "../helpers/backends.ts";
import { allOrNothing } from "../helpers/open-resources.ts";
import { TEST_APP_KEY, type StartOptions } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { asDomain } from "../modules/subscriptions/commerce.ts";
import { botStart, confirmationPath, projectWithPlan, startPortal, type PortalProjectFixture } from "./support.ts";

describe("subscriber portal: paying for a plan (Chromium)", function () {
  this.timeout(150_000);
  let twin: StripeTwin;
  const apiOptions: StartOptions = {};
  before(async () => {
    twin = await startStripeTwin({ merchantName: "Night Owls Club" });
    apiOptions.stripeTwin = twin;
  });
  const suite = useApiWithCreator({ api: apiOptions, creator: { tier: "growth" } });
  let browser: Browser;
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  before(async () => {
    [browser, portal] = await allOrNothing([launchBrowser(), startPortal({ stripe: suite.api.deps.stripe as StripePayments })]);
    fixture = await projectWithPlan(suite);
    const stripe = suite.api.deps.stripe as StripePayments;
    const account = await createConnectedAccount(stripe.client, { email: "creator@example.com", country: "US" });
    await twin.completeOnboarding(account);
    await asDomain(suite.creator, async (ctx) => {
      await createPaymentMethod(ctx, fixture.projectId, {
        provider: "stripe",
        mode: "test",
        currencies: ["USD"],
        billing_cycles: ["month"],
        sealedCredentials: sealStripeCredentials(TEST_APP_KEY, fixture.projectId, { account }),
      });
      await createCoupon(ctx, fixture.projectId, { code: "OWL20", percent_off: 20 });
    });
  });
  after(async () => {
    await browser?.close();
    await portal?.close();
    await twin?.close();
  });

  it("signs in from the plan, pays with 4242 on Stripe's page and lands on the success page that turns to You're in", async () => {
    const { context, page } = await freshPage(browser);
    const problems: string[] = [];
    // Any failed request but the refused coupon's 422 (and a browser's own favicon probe) is a problem; so is any other console error (a CSP violation).
    page.on("response", (res) => {
      const expected = (res.status() === 422 && res.url().endsWith("/checkout")) || res.url().endsWith("/favicon.ico");
      if (res.status() >= 400 && !expected) problems.push(`${res.status()} ${res.url()}`);
    });
    page.on(
      "console",
      (message) => void (message.type() === "error" && !/^Failed to load resource/.test(message.text()) && problems.push(message.text())),
    );
    const planUrl = `${portal.url}/${fixture.handle}?plan=${fixture.plan.planId}`;
    await page.goto(planUrl);
    await page.getByRole("link", { name: "Sign in to pay by card" }).waitFor();
    await screenshot(page, "portal-checkout-plan-guest");
    await page.getByRole("link", { name: "Sign in to pay by card" }).click();
    await page.getByRole("button", { name: "Sign in with Telegram" }).click();
    await page.getByRole("heading", { name: "Sign in with Telegram" }).waitFor();
    const payload = new URL((await page.getByRole("link", { name: "Open Telegram" }).getAttribute("href"))!).searchParams.get("start")!;
    const reply = await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, randomInt(1_000_000, 9_999_999), payload);
    const phone = await freshPage(browser);
    await phone.page.goto(`${portal.url}${confirmationPath(reply)}`);
    await phone.page.getByRole("button", { name: /^Yes, sign in/ }).click();
    await phone.page.getByText(/^Confirmed\./).waitFor();
    await phone.context.close();
    await page.getByRole("button", { name: "Continue" }).click();

    // Back on the plan, signed in: the card form with its coupon field.
    await page.waitForURL(planUrl);
    const coupon = page.getByRole("textbox", { name: /Coupon code/ });
    await coupon.fill("OWL2O");
    await page.getByRole("button", { name: "Pay by card" }).click();
    await page.getByRole("alert").filter({ hasText: "That coupon code is not valid here" }).waitFor();
    await screenshot(page, "portal-checkout-coupon-refused");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "portal-checkout-coupon-refused-390");
    await page.setViewportSize({ width: 1100, height: 800 });
    await page.getByRole("textbox", { name: /Coupon code/ }).fill("OWL20");
    await page.getByRole("button", { name: "Pay by card" }).click();

    // Stripe's hosted page (the twin), at the discounted price.
    await page.waitForURL(`${twin.url}/c/pay/**`);
    await page.getByRole("heading", { name: "Night Owl monthly" }).waitFor();
    assert.match(await page.locator("main").innerText(), /\$4\.00/);
    await page.getByLabel("Email").fill("owl@example.com");
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 34");
    await page.getByLabel("CVC").fill("123");
    await page.getByRole("button", { name: "Subscribe" }).click();

    // The success page: it waits for the twin's event to be applied, then says You're in.
    await page.waitForURL(new RegExp(`^${portal.url}/${fixture.handle}/checkout/[0-9a-f-]{36}`));
    await page.getByRole("heading", { name: "You're in" }).waitFor({ timeout: 30_000 });
    const main = await page.locator("main").innerText();
    assert.match(main, /Night Owl monthly/);
    assert.match(main, /Next charge\s+\$5\.00 every month, from \d{4}-\d\d-\d\d until you cancel\./);
    assert.equal(
      await page.getByRole("link", { name: "Open in Telegram" }).getAttribute("href"),
      `${fixture.installation.bot_url}?start=project_${fixture.projectId}`,
    );
    await screenshot(page, "portal-checkout-success");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "portal-checkout-success-390");

    const { db } = await testDatabase();
    const checkout = await db("payment_checkouts")
      .where({ id: new URL(page.url()).pathname.split("/").pop() })
      .first();
    const payment = await db("transactions").where({ subscription_id: checkout.subscription_id, kind: "payment" }).first();
    assert.equal(Number(payment.amount_minor), 400);
    assert.deepEqual(problems, []);
    await context.close();
  });

  /** A new member signed in through the bot from the plan's page, back on it; their Telegram user id. */
  async function signedInOnPlan(page: Page): Promise<number> {
    await page.goto(`${portal.url}/${fixture.handle}?plan=${fixture.plan.planId}`);
    await page.getByRole("link", { name: "Sign in to pay by card" }).click();
    await page.getByRole("button", { name: "Sign in with Telegram" }).click();
    const payload = new URL((await page.getByRole("link", { name: "Open Telegram" }).getAttribute("href"))!).searchParams.get("start")!;
    const userId = randomInt(1_000_000, 9_999_999);
    const reply = await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, userId, payload);
    const phone = await freshPage(browser);
    await phone.page.goto(`${portal.url}${confirmationPath(reply)}`);
    await phone.page.getByRole("button", { name: /^Yes, sign in/ }).click();
    await phone.page.getByText(/^Confirmed\./).waitFor();
    await phone.context.close();
    await page.getByRole("button", { name: "Continue" }).click();
    return userId;
  }

  it("shows the confirming page while the provider's report is on its way (desktop and 390 px)", async () => {
    // The page as it looks before the report: a checkout of this member still open.
    const { context, page } = await freshPage(browser);
    await signedInOnPlan(page);
    await page.getByRole("button", { name: "Pay by card" }).click();
    await page.waitForURL(`${twin.url}/c/pay/**`);
    const { db } = await testDatabase();
    const checkout = await db("payment_checkouts")
      .where({ provider_checkout_id: new URL(page.url()).pathname.split("/").pop() })
      .first();
    await page.goto(`${portal.url}/${fixture.handle}/checkout/${checkout.id}`);
    await page.getByRole("heading", { name: "Confirming your payment" }).waitFor();
    await screenshot(page, "portal-checkout-confirming");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "portal-checkout-confirming-390");
    await context.close();
  });

  it("tells a member who has had the community's free trial that a plan's trial is not offered again (desktop and 390 px)", async () => {
    const { db } = await testDatabase();
    const { context, page } = await freshPage(browser);
    await db("plans").where({ id: fixture.plan.planId }).update({ trial_days: 7 });
    try {
      const userId = await signedInOnPlan(page);
      const member = await db("members")
        .where({ project_id: fixture.projectId, external_user_id: String(userId) })
        .first();
      const ago = (days: number) => new Date(Date.now() - days * 86_400_000);
      await db("subscriptions").insert({
        id: randomUUID(),
        team_id: suite.creator.teamId,
        project_id: fixture.projectId,
        member_id: member.id,
        plan_id: fixture.plan.planId,
        status: "expired",
        source: "stripe",
        started_at: ago(20),
        trial_ends_at: ago(13),
        ends_at: ago(13),
        canceled_at: ago(15),
        expired_at: ago(13),
        created_at: ago(20),
        updated_at: ago(13),
      });
      await page.reload();
      await page.getByText("You have had this community's free trial: $5.00 every month, paid from the first day").waitFor();
      await screenshot(page, "portal-plan-trial-used");
      await page.setViewportSize({ width: 390, height: 800 });
      await screenshot(page, "portal-plan-trial-used-390");
    } finally {
      await db("plans").where({ id: fixture.plan.planId }).update({ trial_days: 0 });
      await context.close();
    }
  });
});
