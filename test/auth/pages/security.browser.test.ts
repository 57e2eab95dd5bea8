// Two-factor authentication in Chromium: an authenticator app set up from the security page (the
// key read from the page, codes made with otplib), the second sign-in step (a wrong code refused, a
// right one accepted, a recovery code accepted once, the wrong-code limit), and passkeys with
// Chromium's virtual authenticator (added on the security page, used from the sign-in page without
// an address and as the second step, removed). Each change is made after confirming it is the
// creator (the password, on the security page). WebAuthn refuses an IP address as the relying
// party, so this auth server's address is http://localhost:<port>.
import assert from "node:assert/strict";
import { generate } from "otplib";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createAuthApp } from "../../../src/apps/auth/auth-app.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, TEST_PASSWORD } from "../../helpers/fixtures.ts";
import { DOCS_URL, serveOnFreePort, TEST_APP_KEY, testLogger } from "../../helpers/server.ts";
import { testPlatformEndpoints } from "../../helpers/platforms.ts";

async function startAuthOnLocalhost() {
  const { db } = await testDatabase();
  const kv = await testKv();
  const platforms = await testPlatformEndpoints();
  const running = await serveOnFreePort((url) =>
    createAuthApp({
      db,
      kv,
      appKey: TEST_APP_KEY,
      now: () => new Date(),
      release: "test",
      logger: testLogger,
      authUrl: url.replace("127.0.0.1", "localhost"),
      mcpUrl: "http://127.0.0.1:4001",
      baseUrl: "http://127.0.0.1:4000",
      docsUrl: DOCS_URL,
      platforms,
    }),
  );
  return { url: running.url.replace("127.0.0.1", "localhost"), close: running.close };
}

/** The security page's confirmation (its changes then stay open for 10 minutes). */
async function confirmItIsMe(page: Page): Promise<void> {
  await page.getByLabel("Your password").fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Confirm it is me" }).click();
  await page.getByText(/changes stay open until/).waitFor();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in", exact: true }).waitFor();
}

/** A code from the secret that is surely wrong now (the right one with its last digit changed). */
async function wrongCode(secret: string): Promise<string> {
  const right = await generate({ secret });
  return right.slice(0, 5) + String((Number(right[5]) + 5) % 10);
}

async function withVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}

describe("auth pages: two-factor authentication and passkeys (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuthOnLocalhost>>;
  before(async () => {
    [browser, auth] = await allOrNothing([launchBrowser(), startAuthOnLocalhost()]);
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
  });

  it("sets up an authenticator app, then sign-in asks for a code; recovery codes work once; wrong codes are limited", async () => {
    const creator = await createTestCreator({ label: "totp" });
    const { db } = await testDatabase();
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/security");
    await page.getByRole("heading", { name: "Security" }).waitFor();
    await screenshot(page, "security-confirm");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "security-confirm-390");
    await page.setViewportSize({ width: 1100, height: 800 });
    await confirmItIsMe(page);
    await screenshot(page, "security-start");
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.getByRole("heading", { name: "Set up an authenticator app" }).waitFor();
    const secret = (await page.locator("#totp-secret").innerText()).replace(/\s/g, "");
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.ok(await page.locator("img.qr").evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0), "the QR code renders");
    await screenshot(page, "security-totp-enrolment");

    // The secret is sealed at rest.
    const row = (await db("totp_factors").where({ user_id: creator.userId }).first()) as { secret_sealed: string; enabled_at: Date | null };
    assert.equal(row.enabled_at, null);
    assert.ok(row.secret_sealed.startsWith("v1.") && !row.secret_sealed.includes(secret));

    await page.getByLabel("Code from the app").fill(await wrongCode(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    assert.match(await page.getByRole("alert").innerText(), /does not match/);
    await page.getByLabel("Code from the app").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Save your recovery codes" }).waitFor();
    const codes = await page.locator(".recovery-codes code").allInnerTexts();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    await screenshot(page, "security-recovery-codes");
    const hashes = (await db("recovery_codes").where({ user_id: creator.userId }).pluck("code_hash")) as string[];
    assert.equal(hashes.length, 10);
    assert.ok(hashes.every((h) => /^[0-9a-f]{64}$/.test(h) && !codes.some((c) => h.includes(c))));

    await page.goto(`${auth.url}/security`);
    assert.match(await page.locator("#totp-heading + p").innerText(), /On/);
    assert.match(await page.locator("main").innerText(), /10 of 10 recovery codes unused/);
    await screenshot(page, "security-totp-on");
    await signOut(page);

    // The password is no longer enough.
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/sign-in/two-factor");
    await page.goto(`${auth.url}/`);
    assert.equal(new URL(page.url()).pathname, "/sign-in", "a pending sign-in is not signed in");
    await page.goto(`${auth.url}/sign-in/two-factor`);
    await screenshot(page, "two-factor");
    await page.getByLabel("Authentication code").fill(await wrongCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    assert.match(await page.getByRole("alert").first().innerText(), /not right.*4 attempts left/);
    await screenshot(page, "two-factor-wrong-code");
    // The enrolment's code was from this step or the last: the next step's code is new.
    await page.getByLabel("Authentication code").fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await signOut(page);

    // A recovery code works once.
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByLabel("Authentication code").fill(codes[0]!.toUpperCase());
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await page.goto(`${auth.url}/security`);
    assert.match(await page.locator("main").innerText(), /9 of 10 recovery codes unused/);
    await signOut(page);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByLabel("Authentication code").fill(codes[0]!);
    await page.getByRole("button", { name: "Verify" }).click();
    assert.match(await page.getByRole("alert").first().innerText(), /not right, or it was already used/);

    // Five wrong codes per account in 15 minutes (one was spent above, one just now): then even a right code waits.
    for (let i = 0; i < 3; i++) {
      await page.getByLabel("Authentication code").fill(await wrongCode(secret));
      await page.getByRole("button", { name: "Verify" }).click();
      await page.getByRole("alert").first().waitFor();
    }
    const response = page.waitForResponse((r) => r.url().endsWith("/sign-in/two-factor") && r.request().method() === "POST");
    await page.getByLabel("Authentication code").fill(codes[1]!);
    await page.getByRole("button", { name: "Verify" }).click();
    assert.equal((await response).status(), 429);
    assert.ok(Number((await response).headers()["retry-after"]) > 0);
    assert.match(await page.getByRole("alert").innerText(), /Too many wrong codes for this account\. Wait \d+ minutes?, then try again\./);
    await screenshot(page, "two-factor-limited");
    await context.close();
  });

  it("ends a pending sign-in after five wrong codes", async () => {
    const creator = await createTestCreator({ label: "totp-pending" });
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/security");
    await confirmItIsMe(page);
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const secret = (await page.locator("#totp-secret").innerText()).replace(/\s/g, "");
    await page.getByLabel("Code from the app").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Save your recovery codes" }).waitFor();
    await page.goto(`${auth.url}/security`);
    await signOut(page);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    for (let i = 0; i < 4; i++) {
      await page.getByLabel("Authentication code").fill(await wrongCode(secret));
      await page.getByRole("button", { name: "Verify" }).click();
      await page.getByRole("alert").first().waitFor();
    }
    await page.getByLabel("Authentication code").fill(await wrongCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    assert.match(await page.getByRole("alert").innerText(), /Too many wrong codes for this sign-in\. Sign in again/);
    await page.goto(`${auth.url}/sign-in/two-factor`);
    assert.match(await page.getByRole("alert").innerText(), /Sign in again/);
    await context.close();
  });

  it("turns the authenticator app off only with a current code; each change signs the creator's other browsers out", async () => {
    const creator = await createTestCreator({ label: "totp-off" });
    const other = await freshPage(browser);
    await signIn(other.page, auth.url, creator.email, TEST_PASSWORD);
    await other.page.getByRole("heading", { name: "Your account" }).waitFor();
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/security");
    await confirmItIsMe(page);
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const secret = (await page.locator("#totp-secret").innerText()).replace(/\s/g, "");
    await page.getByLabel("Code from the app").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Save your recovery codes" }).waitFor();
    // The browser signed in before the app was on must sign in again (now with a code); this one stays.
    await other.page.goto(`${auth.url}/`);
    await other.page.getByRole("heading", { name: "Sign in", exact: true }).waitFor();
    await other.context.close();
    await page.getByRole("link", { name: "I saved them: back to security" }).click();
    await page.getByLabel("Current code from the app").fill(await wrongCode(secret));
    await page.getByRole("button", { name: "Turn off the authenticator app" }).click();
    assert.match(await page.getByRole("alert").innerText(), /does not match.*still on/);
    await page.getByLabel("Current code from the app").fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole("button", { name: "Turn off the authenticator app" }).click();
    assert.match(await page.getByRole("status").innerText(), /authenticator app is off/);
    assert.match(await page.locator("main").innerText(), /recovery codes when you set up/);
    await screenshot(page, "security-totp-off");
    await signOut(page);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await context.close();
  });

  it("adds a passkey, signs in with it without an address and as the second step, and removes it", async () => {
    const creator = await createTestCreator({ label: "passkey" });
    const { context, page } = await freshPage(browser);
    await withVirtualAuthenticator(context, page);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/security");
    await page.getByRole("heading", { name: "Security" }).waitFor();

    // The JSON endpoints want the page's CSRF token.
    const refused = await page.evaluate(async () => {
      const res = await fetch("/security/passkeys/options", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string } };
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "invalid_request");
    assert.ok(refused.body.error_description);

    await confirmItIsMe(page);
    await page.getByLabel("Passkey name (optional)").fill("Test laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    // The first second factor comes with recovery codes.
    await page.getByRole("heading", { name: "Save your recovery codes" }).waitFor();
    assert.equal((await page.locator(".recovery-codes code").allInnerTexts()).length, 10);
    await page.goto(`${auth.url}/security`);
    assert.match(await page.locator("table.passkeys").innerText(), /Test laptop/);
    await screenshot(page, "security-passkeys");
    await signOut(page);

    // Straight from the sign-in page: no address, no password.
    await page.goto(`${auth.url}/sign-in?return_to=${encodeURIComponent("/?via=passkey")}`);
    await screenshot(page, "sign-in-with-passkey");
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    assert.equal(new URL(page.url()).search, "?via=passkey");
    assert.match(await page.locator("main").innerText(), new RegExp(`Signed in as ${creator.email.replace(/[.+]/g, "\\$&")}`));
    await signOut(page);

    // After the password, the passkey is the second step.
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    await page.getByRole("button", { name: "Use your passkey" }).waitFor();
    await screenshot(page, "two-factor-passkey");
    await page.getByRole("button", { name: "Use your passkey" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();

    await page.goto(`${auth.url}/security`);
    assert.match(await page.locator("table.passkeys").innerText(), /Test laptop\s+\d{4}-\d\d-\d\d\s+\d{4}-\d\d-\d\d/, "last used is recorded");
    // A new session: signing in (even with the passkey) does not open changes.
    await confirmItIsMe(page);
    await page.getByRole("button", { name: "Remove passkey Test laptop" }).click();
    assert.match(await page.getByRole("status").innerText(), /Passkey removed/);
    assert.match(await page.locator("main").innerText(), /No passkeys yet/);
    await signOut(page);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await context.close();
  });
});
