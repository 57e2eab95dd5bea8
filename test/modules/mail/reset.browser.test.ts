// Password reset in Chromium, through the local mail catcher's page as a newcomer on `npm start`
// uses it: "Forgot password?" on the sign-in page, the message listed on the catcher's page, its
// link clicked, a new password chosen, and a sign-in with it.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testLogger } from "../../helpers/server.ts";
import { startMailCatcher, type MailCatcher } from "../../../src/simulators/mail-catcher.ts";
import { smtpSender, type MailSender } from "../../../src/modules/mail/smtp.ts";
import { sendDueMail } from "../../../src/workers/mail/worker.ts";

describe("password reset through the mail catcher (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let catcher: MailCatcher;
  let sender: MailSender;
  before(async () => {
    [browser, auth, catcher] = await allOrNothing([launchBrowser(), startAuth(), startMailCatcher({ page: { host: "127.0.0.1", port: 0 } })]);
    sender = smtpSender({ smtpUrl: catcher.smtpUrl, from: "SubBridge <no-reply@auth.test>", timeoutMs: 5_000 });
  });
  after(async () => {
    sender?.close();
    await browser?.close();
    await auth?.close();
    await catcher?.close();
  });

  it("a creator resets a forgotten password from the mailed link and signs in with the new one", async () => {
    const creator = await createTestCreator();
    const { db } = await testDatabase();
    const { page } = await freshPage(browser);
    await page.goto(`${auth.url}/sign-in`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByLabel("Email").fill(creator.email);
    await page.getByRole("button", { name: "Mail me a reset link" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    await sendDueMail({
      db,
      sender,
      logger: testLogger,
      messageIdDomain: "auth.test",
      timeoutMs: 5_000,
      recipients: [creator.email],
      now: new Date(),
    });

    await page.goto(catcher.pageUrl!);
    await screenshot(page, "mail-catcher-list");
    await page.getByRole("link", { name: "Reset your SubBridge password" }).first().click();
    // The HTML part renders in its frame, its link there too (the screenshot waits for it).
    await page
      .frameLocator('iframe[title="HTML part"]')
      .getByRole("link", { name: /password-reset\/confirm/ })
      .waitFor();
    await screenshot(page, "mail-catcher-message");
    await page.locator("pre a").first().click();
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByRole("heading", { name: "Password changed" }).waitFor();

    const fresh = await freshPage(browser);
    await signIn(fresh.page, auth.url, creator.email, "a brand new password");
    await fresh.page.getByText("Signed in as").waitFor();
    assert.match(await fresh.page.locator("main").innerText(), new RegExp(`Signed in as ${creator.email.replace(/[.+]/g, "\\$&")}`));
  });
});
