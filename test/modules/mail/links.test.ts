// A sign-up on the authorization host, mailed by the worker through SMTP, parsed as the receiver
// sees it: the confirmation link in its HTML part opens the confirmation page, and confirming
// through it opens the account.
import assert from "node:assert/strict";
import { startAuth } from "../../helpers/auth.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { TEST_PASSWORD, uniqueEmail } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testLogger } from "../../helpers/server.ts";
import { startMailCatcher } from "../../../src/simulators/mail-catcher.ts";
import { smtpSender } from "../../../src/modules/mail/smtp.ts";
import { sendDueMail } from "../../../src/workers/mail/worker.ts";
import { findCreatorByEmail } from "../../../src/modules/account/creators.ts";

describe("mailed links", () => {
  it("a sign-up's confirmation link, as received over SMTP, confirms the account", async () => {
    const auth = await startAuth();
    const catcher = await startMailCatcher();
    const sender = smtpSender({ smtpUrl: catcher.smtpUrl, from: "SubBridge <no-reply@auth.test>", timeoutMs: 5_000 });
    try {
      const { db } = await testDatabase();
      const email = uniqueEmail("mailed-link");
      const browser = new FormBrowser(auth.url);
      assert.equal((await browser.post("/sign-up", { email, password: TEST_PASSWORD }, "/sign-up")).status, 200);
      await sendDueMail({ db, sender, logger: testLogger, messageIdDomain: "auth.test", timeoutMs: 5_000, recipients: [email], now: new Date() });
      const [mail] = catcher.messages().filter((m) => m.to.includes(email));
      assert.ok(mail?.html, "an HTML part");
      const href = /<a href="([^"]+)"/.exec(mail.html)![1]!.replace(/&amp;/g, "&");
      assert.ok(href.startsWith(`${auth.url}/sign-up/confirm?token=`), href);
      assert.ok(mail.text.includes(href), "the same link in the text part");

      const page = await browser.get(href.slice(auth.url.length));
      assert.equal(page.status, 200);
      const form = await page.text();
      assert.match(form, /Confirm and open my account/);
      const token = /name="token" value="([^"]+)"/.exec(form)![1]!;
      const confirmed = await browser.post("/sign-up/confirm", { token }, href.slice(auth.url.length));
      assert.equal(confirmed.status, 302);
      assert.ok(await findCreatorByEmail(db, email), "the account is open");
    } finally {
      sender.close();
      await catcher.close();
      await auth.close();
    }
  });
});
