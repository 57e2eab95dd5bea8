// The account pages in Chromium: sign-up confirmed by the mailed link, sign-out, sign-in (a wrong
// password and an unknown address answered alike, the limit with its message), the team switcher,
// CSRF refusals and the return_to guard. The cookies' flags and the 404 page need no browser:
// pages.test.ts.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, linkFromMail, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, TEST_PASSWORD, uniqueEmail } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { createTeam } from "../../../src/modules/teams/teams.ts";

describe("auth pages: accounts (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    [browser, auth] = await allOrNothing([launchBrowser(), startAuth()]);
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
  });

  it("signs a person up: the mailed link opens the account and a session on its own team", async () => {
    const { context, page } = await freshPage(browser);
    const email = uniqueEmail("signup");
    await page.goto(`${auth.url}/sign-up`);
    await screenshot(page, "sign-up");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Open my account" }).click();
    assert.match(await page.locator(".field-error").innerText(), /at least 8 characters/);
    await screenshot(page, "sign-up-errors");
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByLabel("Team name (optional)").fill("Night Owls");
    await page.getByRole("button", { name: "Open my account" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    await screenshot(page, "sign-up-check-inbox");

    await page.goto(await linkFromMail(email, `${auth.url}/sign-up/confirm`));
    await screenshot(page, "sign-up-confirm");
    await page.getByRole("button", { name: "Confirm and open my account" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    assert.match(
      await page.locator("main").innerText(),
      new RegExp(`Signed in as ${email.replace(/[.+]/g, "\\$&")}, working in the team Night Owls`),
    );
    await screenshot(page, "account-home");

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "sb_session");
    assert.ok(session, "a session cookie");
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Lax");
    assert.equal(cookies.find((c) => c.name === "sb_csrf")?.httpOnly, true);

    // The link works once.
    await page.goto(await linkFromMail(email, `${auth.url}/sign-up/confirm`));
    assert.match(await page.locator("main").innerText(), /already used/);

    await page.goto(`${auth.url}/`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.goto(`${auth.url}/`);
    assert.match(page.url(), /\/sign-in\?return_to=%2F$/);
    await context.close();
  });

  it("answers a sign-up for an address that has an account with the same page, and mails the owner", async () => {
    const creator = await createTestCreator({ label: "signup-taken" });
    const { context, page } = await freshPage(browser);
    await page.goto(`${auth.url}/sign-up`);
    await page.getByLabel("Email").fill(creator.email);
    await page.getByLabel("Password").fill("another password");
    await page.getByRole("button", { name: "Open my account" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    assert.ok(await linkFromMail(creator.email, `${auth.url}/sign-in`));
    await context.close();
  });

  it("signs in, refusing a wrong password and an unknown address with one message", async () => {
    const creator = await createTestCreator({ label: "signin" });
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, "not the password");
    const wrongPassword = await page.getByRole("alert").innerText();
    await screenshot(page, "sign-in-refused");
    await signIn(page, auth.url, uniqueEmail("nobody"), "not the password");
    assert.equal(await page.getByRole("alert").innerText(), wrongPassword);
    assert.doesNotMatch(wrongPassword, /no account|unknown|not found/i);

    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/?from=sign-in");
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    assert.equal(new URL(page.url()).search, "?from=sign-in");
    await context.close();
  });

  it("limits sign-in attempts per address with a clear message and Retry-After", async () => {
    // A clock standing still in the middle of a 15-minute window: the eleven attempts must not
    // straddle two windows (each would then hold fewer than the limit).
    const window = 15 * 60_000;
    const still = new Date(Math.floor(Date.now() / window) * window + window / 2);
    const limited = await startAuth({ now: () => still });
    const creator = await createTestCreator({ label: "signin-limit" });
    const { context, page } = await freshPage(browser);
    for (let i = 0; i < 10; i++) await signIn(page, limited.url, creator.email, `wrong ${i}`);
    const response = page.waitForResponse((r) => r.url().endsWith("/sign-in") && r.request().method() === "POST");
    await signIn(page, limited.url, creator.email, TEST_PASSWORD);
    assert.equal((await response).status(), 429);
    assert.ok(Number((await response).headers()["retry-after"]) > 0);
    assert.match(await page.getByRole("alert").innerText(), /Too many sign-in attempts for this address\. Wait \d+ minutes?, then try again\./);
    await screenshot(page, "sign-in-limited");
    await context.close();
    await limited.close();
  });

  it("switches the team a session acts on, among the creator's teams only", async () => {
    const creator = await createTestCreator({ label: "switcher" });
    const { db } = await testDatabase();
    const actor = { userId: creator.userId, teamId: creator.teamId, projectIds: null, kind: "human" as const, credentialKind: null, requestId: null };
    await db.transaction((trx) => createTeam(createDomainContext(trx, actor, new Date()), { name: "Second Studio" }));
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByLabel("Team").selectOption({ label: "Second Studio" });
    await page.getByRole("button", { name: "Switch" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    assert.match(await page.locator("main").innerText(), /working in the team Second Studio/);
    await screenshot(page, "team-switched");

    // Another creator's team cannot be chosen by editing the form.
    const other = await createTestCreator({ label: "switcher-other" });
    await page
      .locator("#team-switcher option")
      .first()
      .evaluate((option, id) => {
        (option as unknown as { value: string }).value = id;
      }, other.teamId);
    await page.locator("#team-switcher").selectOption({ index: 0 });
    await page.getByRole("button", { name: "Switch" }).click();
    assert.match(await page.getByRole("alert").innerText(), /do not belong to that team/);
    await context.close();
  });

  it("refuses a form without its CSRF token, and never sends sign-in elsewhere", async () => {
    const creator = await createTestCreator({ label: "csrf" });
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    const status = await page.evaluate(async () => {
      const res = await fetch("/sign-out", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });
      return res.status;
    });
    assert.equal(status, 403);
    await page.goto(`${auth.url}/`);
    await page.getByRole("heading", { name: "Your account" }).waitFor(); // still signed in

    await page.goto(`${auth.url}/sign-in?return_to=${encodeURIComponent("https://evil.example/steal")}`);
    assert.equal(new URL(page.url()).origin, auth.url); // already signed in: sent home, not away
    await page.goto(`${auth.url}/sign-in?return_to=${encodeURIComponent("//evil.example/steal")}`);
    assert.equal(new URL(page.url()).origin, auth.url);
    await context.close();
  });
});
