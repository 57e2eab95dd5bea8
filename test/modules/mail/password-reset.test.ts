// Password reset, as a creator does it: "Forgot password?" on the sign-in page, the mailed link
// (received over SMTP) opens the new-password form, the new password works and the old one does
// not, every session of the account ends, and the link works once. An unknown address mails nothing.
import assert from "node:assert/strict";
import { startAuth } from "../../helpers/auth.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { createTestCreator, TEST_PASSWORD, uniqueEmail } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testLogger } from "../../helpers/server.ts";
import { startMailCatcher, type MailCatcher } from "../../../src/simulators/mail-catcher.ts";
import { smtpSender, type MailSender } from "../../../src/modules/mail/smtp.ts";
import { sendDueMail } from "../../../src/workers/mail/worker.ts";
import { checkPassword } from "../../../src/modules/account/sign-in.ts";
import { unscoped } from "../../../src/db/tenant.ts";
import { purgeExpiredAccountRows } from "../../../src/modules/account/jobs.ts";

describe("password reset for creators", () => {
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let catcher: MailCatcher;
  let sender: MailSender;
  before(async () => {
    auth = await startAuth();
    catcher = await startMailCatcher();
    sender = smtpSender({ smtpUrl: catcher.smtpUrl, from: "SubBridge <no-reply@auth.test>", timeoutMs: 5_000 });
  });
  after(async () => {
    sender.close();
    await catcher.close();
    await auth.close();
  });

  async function deliver(email: string) {
    const { db } = await testDatabase();
    await sendDueMail({ db, sender, logger: testLogger, messageIdDomain: "auth.test", timeoutMs: 5_000, recipients: [email], now: new Date() });
    return catcher.messages().filter((m) => m.to.includes(email));
  }

  it("mails a one-time link that sets a new password and ends every session", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator();
    const sessions = () => unscoped(db, "the test reads the creator's sessions")("auth_sessions").where({ user_id: creator.userId });
    // A browser signed in before the reset.
    const before = new FormBrowser(auth.url);
    assert.equal((await before.post("/sign-in", { email: creator.email, password: TEST_PASSWORD }, "/sign-in")).status, 302);
    assert.equal((await sessions()).length, 1);

    const browser = new FormBrowser(auth.url);
    assert.match(await (await browser.get("/sign-in")).text(), /<a href="\/password-reset">Forgot password\?<\/a>/);
    const asked = await browser.post("/password-reset", { email: creator.email }, "/password-reset");
    assert.equal(asked.status, 200);
    // The sign-in above also mailed its security alert: the reset is the one to follow.
    const mail = (await deliver(creator.email)).find((m) => m.subject === "Reset your SubBridge password");
    assert.ok(mail, "the reset mail arrived");
    const href = /<a href="([^"]+)"/.exec(mail.html ?? "")![1]!.replace(/&amp;/g, "&");
    assert.ok(href.startsWith(`${auth.url}/password-reset/confirm?token=`), href);
    const path = href.slice(auth.url.length);

    // A password the rules refuse leaves the link usable.
    assert.equal(
      (await browser.post("/password-reset/confirm", { token: new URL(href).searchParams.get("token")!, password: "short" }, path)).status,
      422,
    );
    const form = await (await browser.get(path)).text();
    const token = /name="token" value="([^"]+)"/.exec(form)![1]!;
    const done = await browser.post("/password-reset/confirm", { token, password: "a brand new password" }, path);
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Password changed/);

    assert.equal(await checkPassword(db, creator.email, TEST_PASSWORD), null);
    assert.equal(await checkPassword(db, creator.email, "a brand new password"), creator.userId);
    assert.equal((await sessions()).length, 0, "every session ended");
    assert.notEqual((await before.get("/")).status, 200, "the old browser is signed out");
    // Once only.
    assert.equal((await browser.get(path)).status, 400);
  });

  it("mails nothing for an address without an account, and answers the same", async () => {
    const email = uniqueEmail("no-account");
    const browser = new FormBrowser(auth.url);
    const asked = await browser.post("/password-reset", { email }, "/password-reset");
    assert.equal(asked.status, 200);
    assert.match(await asked.text(), /If .* has a SubBridge account, we sent it a reset link/);
    assert.equal((await deliver(email)).length, 0);
  });

  it("account.purge-expired deletes a reset a day after its link expired", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator();
    const resets = unscoped(db, "the test writes the creator's resets");
    // Years in the past, so that no other test's rows are due here.
    const now = new Date("2001-01-02T00:00:00Z");
    const row = (token_hash: string, expiresAt: number) => ({
      token_hash,
      user_id: creator.userId,
      expires_at: new Date(expiresAt),
      used_at: null,
      created_at: new Date(expiresAt - 3600_000),
    });
    const old = `old-${creator.userId}`;
    const recent = `recent-${creator.userId}`;
    await resets("password_resets").insert([row(old, now.getTime() - 25 * 3600_000), row(recent, now.getTime() - 3600_000)]);
    assert.ok((await purgeExpiredAccountRows.run({ db, now })).changed >= 1);
    assert.deepEqual(await resets("password_resets").whereIn("token_hash", [old, recent]).pluck("token_hash"), [recent]);
  });
});
