// The Linked accounts page in Chromium: the header's link leads there, "Link your Telegram account"
// shows the one-time link into the bot, Start in the bot links the account, and the reloaded page
// lists it as primary; screenshots at desktop width and 390 px (no sideways scrolling).
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import type { Browser } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, TEST_PASSWORD } from "../../helpers/fixtures.ts";
import { ApiClient } from "../../helpers/http.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { botStart } from "../../portal/support.ts";
import { installTelegram } from "../../modules/connectors/support.ts";

describe("auth pages: linked accounts (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let api: RunningApi;
  before(async () => {
    [browser, auth, api] = await allOrNothing([launchBrowser(), startAuth(), startApi()]);
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
  });

  it("links a Telegram account through the bot and lists it", async () => {
    const creator = await createTestCreator({ label: "identities-browser" });
    const { installation, bot } = await installTelegram(new ApiClient(api.url, creator.token), creator.projectIds[0]!);
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/");
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Linked accounts" }).click();
    await page.getByRole("heading", { name: "Linked accounts", exact: true }).waitFor();
    await page.getByRole("button", { name: "Link your Telegram account" }).click();
    await page.getByRole("heading", { name: "Open this link in Telegram" }).waitFor();
    const link = await page.locator("section.minted a").getAttribute("href");
    assert.ok(link?.startsWith(`${installation.bot_url}?start=auth_c-`), String(link));
    await screenshot(page, "identities-link-shown");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "identities-link-shown-390");

    const account = randomInt(10_000_000, 99_999_999);
    const payload = new URL(link!).searchParams.get("start")!;
    assert.match(await botStart(api.url, installation.id, bot.id, account, payload), /now linked/);

    await page.setViewportSize({ width: 1100, height: 800 });
    await page.goto(`${auth.url}/identities`);
    const row = page.locator("table.identities tbody tr");
    assert.equal(await row.count(), 1);
    assert.match(await row.innerText(), new RegExp(`Telegram\\s+Primary[\\s\\S]*Ada Member \\(${account}\\)`));
    await screenshot(page, "identities-linked");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "identities-linked-390");
    await context.close();
  });
});
