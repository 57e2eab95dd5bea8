// The subscriber portal in Chromium: a project's page with a published plan, a superseded handle's
// 404, the sign-in through the bot's /start auth_<token>, the account page after redeeming an
// access code, and cancelling that subscription through its confirmation page. Screenshots under test-artifacts/screenshots/<backend>/portal-*.png.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import type { Browser } from "playwright-core";
import { freshPage, launchBrowser, screenshot } from "../helpers/browser.ts";
import { allOrNothing } from "../helpers/open-resources.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { asDomain, codesFor } from "../modules/subscriptions/commerce.ts";
import { changeHandle } from "../../src/modules/projects/handles.ts";
import { projectsTable } from "../../src/modules/projects/tables.ts";
import { botStart, confirmationPath, projectWithPlan, startPortal, type PortalProjectFixture } from "./support.ts";

describe("subscriber portal (Chromium)", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let browser: Browser;
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  before(async () => {
    [browser, portal] = await allOrNothing([launchBrowser(), startPortal()]);
    fixture = await projectWithPlan(suite);
  });
  after(async () => {
    await browser?.close();
    await portal?.close();
  });

  it("shows the portal of a project with a published plan", async () => {
    const { context, page } = await freshPage(browser);
    await page.goto(`${portal.url}/${fixture.handle}?plan=${fixture.plan.planId}`);
    await page.getByRole("heading", { name: "Night Owls Club" }).waitFor();
    await page.getByRole("heading", { name: "Night Owl monthly" }).waitFor();
    assert.match(await page.locator("main").innerText(), /\$5\.00 every month/);
    const cta = page.getByRole("link", { name: "Open in Telegram" });
    assert.equal(await cta.getAttribute("href"), `${fixture.installation.bot_url}?start=project_${fixture.projectId}`);
    await screenshot(page, "portal-project");
    await context.close();
  });

  it("answers a superseded handle with the 404 page", async () => {
    const next = `renamed-${randomInt(100000, 999999)}`;
    const old = fixture.handle;
    await asDomain(suite.creator, async (ctx) => {
      await changeHandle(ctx, { id: fixture.projectId, handle: old }, next);
      await projectsTable.rows(ctx).where({ id: fixture.projectId }).update({ handle: next });
    });
    const { context, page } = await freshPage(browser);
    try {
      const res = await page.goto(`${portal.url}/${old}`);
      assert.equal(res?.status(), 404);
      await page.getByRole("heading", { name: "Not found" }).waitFor();
      await screenshot(page, "portal-superseded-handle");
    } finally {
      await asDomain(suite.creator, async (ctx) => {
        await changeHandle(ctx, { id: fixture.projectId, handle: next }, old);
        await projectsTable.rows(ctx).where({ id: fixture.projectId }).update({ handle: old });
      });
      await context.close();
    }
  });

  it("signs a member in through the bot and shows the subscription after an access code", async () => {
    const { context, page } = await freshPage(browser);
    await page.goto(`${portal.url}/${fixture.handle}`);
    await page.getByRole("button", { name: "Sign in with Telegram" }).click();
    await page.waitForLoadState();
    if (process.env.DEBUG_PORTAL) console.log(page.url(), await page.locator("body").innerText());
    await page.getByRole("heading", { name: "Sign in with Telegram" }).waitFor();
    await screenshot(page, "portal-sign-in");
    const link = await page.getByRole("link", { name: "Open Telegram" }).getAttribute("href");
    const payload = new URL(link!).searchParams.get("start")!;
    assert.match(payload, /^auth_[A-Za-z0-9]{40}$/);
    // The member presses Start in Telegram: the bot receives /start auth_<token> and answers with a link
    // whose page names this browser; the member confirms there (on their phone: another browser).
    const reply = await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, randomInt(1_000_000, 9_999_999), payload);
    assert.match(reply, /Someone asked to sign in to the portal as you from Chrome on Linux/);
    const phone = await freshPage(browser);
    await phone.page.goto(`${portal.url}${confirmationPath(reply)}`);
    await phone.page.getByRole("heading", { name: "Confirm a sign-in" }).waitFor();
    assert.match(await phone.page.locator("main").innerText(), /Browser\s+Chrome on Linux\s+Asked at\s+\d\d:\d\d UTC/);
    await screenshot(phone.page, "portal-sign-in-confirm");
    await phone.page.setViewportSize({ width: 390, height: 800 });
    await screenshot(phone.page, "portal-sign-in-confirm-390");
    await phone.page.getByRole("button", { name: "Yes, sign in Chrome on Linux" }).click();
    await phone.page.getByText("Confirmed. Go back to Chrome on Linux and press Continue there.").waitFor();
    await phone.context.close();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Your membership" }).waitFor();

    const [code] = await codesFor(suite.creator, fixture.plan);
    await page.getByRole("textbox", { name: "Access code" }).fill(code!);
    await page.getByRole("button", { name: "Redeem" }).click();
    await page.getByText("Your access code worked: welcome!").waitFor();
    const main = await page.locator("main").innerText();
    assert.match(main, /Night Owl monthly\s+Active/);
    assert.match(main, /VIP channel/);
    assert.match(main, /Signed print/);
    await screenshot(page, "portal-account");
    const cookie = (await context.cookies()).find((c) => c.name === "sb_portal");
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, "Lax");

    // The member cancels: the confirmation page says what happens before its button.
    await page.getByRole("link", { name: "Cancel subscription" }).click();
    await page.getByRole("heading", { name: "Cancel your subscription" }).waitFor();
    const terms = await page.locator("main").innerText();
    assert.match(terms, /Nothing is charged for it, and it does not continue after its period\./);
    assert.match(terms, /You keep your access until \d{1,2} [A-Z][a-z]+ \d{4}; then it ends\./);
    await screenshot(page, "portal-cancel-confirm");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "portal-cancel-confirm-390");
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page.getByText(/Your subscription is cancelled\./).waitFor();
    await screenshot(page, "portal-cancelled-390");
    await page.getByRole("link", { name: "Back to your membership" }).click();
    assert.match(await page.locator("main").innerText(), /Night Owl monthly\s+Cancelled/);
    assert.equal(await page.getByRole("link", { name: "Cancel subscription" }).count(), 0);
    await context.close();
  });
});
