// The Linked accounts page in Chromium: the header's link leads there, "Link your Telegram account"
// shows the one-time link into the bot, Start in the bot links the account, and the reloaded page
// lists it as primary; screenshots at desktop width and 390 px (no sideways scrolling).
// Then the same through the simulated Telegram page (issue 34, item 2): Start pressed on the page's
// link as a Telegram user; the routing written down and the bot's admin link answering that account only.
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
import { pressStartOnSimTelegram, sendOnSimTelegram, type SimUser } from "../../helpers/messaging.ts";
import { testPlatform } from "../../helpers/platforms.ts";
import { asDomain } from "../../modules/subscriptions/commerce.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";

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

  it("Start on the page's link links the account as primary; the routing and the bot's admin link follow", async () => {
    const creator = await createTestCreator({ label: "identity-link-sim" });
    const client = new ApiClient(api.url, creator.token);
    const { installation } = await installTelegram(client, creator.projectIds[0]!);
    const simUrl = `${(await testPlatform()).url}/_sim/telegram`;
    const { member } = await asDomain(creator, (ctx) =>
      findOrCreateMember(ctx, creator.projectIds[0]!, { connectorKey: "telegram", externalUserId: "4242", displayName: "Bea Member" }),
    );
    const ada: SimUser = { id: randomInt(10_000_000, 99_999_999), firstName: "Ada" };
    const stranger: SimUser = { id: ada.id + 1, firstName: "Cy" };
    const admin = `${installation.bot_url}?start=-check_-4242`;

    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/identities");
    await page.getByRole("heading", { name: "Linked accounts", exact: true }).waitFor();
    await page.getByRole("button", { name: "Link your Telegram account" }).click();
    const link = (await page.locator("section.minted a").getAttribute("href"))!;
    assert.ok(link.startsWith(`${installation.bot_url}?start=auth_c-`), link);
    await screenshot(page, "identity-link-made");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "identity-link-made-390");
    await page.setViewportSize({ width: 1100, height: 800 });

    // Not linked yet: the admin link opens the bot's home screen, as for anyone.
    const phone = await freshPage(browser);
    assert.doesNotMatch((await pressStartOnSimTelegram(phone.page, simUrl, ada, admin)).join("\n"), /Bea Member/);
    const linked = await pressStartOnSimTelegram(phone.page, simUrl, ada, link);
    assert.match(linked.join("\n"), /now linked to your SubBridge account as your primary account/);
    await screenshot(phone.page, "identity-link-sim-telegram");

    await page.goto(`${auth.url}/identities`);
    const rows = page.locator("table.identities tbody tr");
    assert.equal(await rows.count(), 1);
    assert.match(await rows.innerText(), new RegExp(`Telegram\\s+Primary[\\s\\S]*Ada \\(${ada.id}\\)`));
    await screenshot(page, "identity-link-listed");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "identity-link-listed-390");

    // The first account writes the default routing down (rule 5): that account for every class, email for the critical ones.
    const destinations = async () =>
      ((await client.get("/v1/me/alert-destinations")).body.data as { kind: string; target: string; classes: string[] | null }[]).map((d) => [
        d.kind,
        d.target,
        d.classes,
      ]);
    const routed: unknown[] = [
      ["connector_identity", String(ada.id), null],
      ["email", creator.email, ["recovery", "billing", "security"]],
    ];
    assert.deepEqual(await destinations(), routed);
    const identities = (await client.get("/v1/me/identities")).body.data as { account_id: string; is_primary: boolean }[];
    assert.deepEqual(
      identities.map((i) => [i.account_id, i.is_primary]),
      [[String(ada.id), true]],
    );

    // The admin link now answers the linked account, and still only it.
    assert.match((await pressStartOnSimTelegram(phone.page, simUrl, ada, admin)).join("\n"), new RegExp(`^Bea Member: ${member.status}`));
    assert.doesNotMatch((await pressStartOnSimTelegram(phone.page, simUrl, stranger, admin)).join("\n"), /Bea Member/);

    // A second account, linked by the message the page gives: added for every class.
    await page.setViewportSize({ width: 1100, height: 800 });
    await page.getByRole("button", { name: "Link your Telegram account" }).click();
    const message = (await page.locator("section.minted code").last().innerText()).trim();
    assert.match(message, /^\/start auth_c-/);
    const second: SimUser = { id: ada.id + 2, firstName: "Ada2" };
    assert.match((await sendOnSimTelegram(phone.page, simUrl, installation.platform_account_name, second, message)).join("\n"), /now linked/);
    assert.deepEqual(await destinations(), [...routed, ["connector_identity", String(second.id), null]]);
    await page.goto(`${auth.url}/identities`);
    assert.equal(await rows.count(), 2);
    await screenshot(page, "identity-link-two");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "identity-link-two-390");
    await phone.context.close();
    await context.close();
  });
});
