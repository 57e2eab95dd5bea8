// mail:list: the outbox as the operator reads it (what the mail worker has not sent yet, e.g. while
// SMTP is down, so a sign-up's confirmation link can still reach a newcomer this way).
import assert from "node:assert/strict";
import { runNpm, tempDir } from "../helpers/processes.ts";
import { testDatabase } from "../helpers/backends.ts";
import { uniqueEmail } from "../helpers/fixtures.ts";
import { migrate, openConfiguredDatabase } from "../../src/db/database.ts";
import { requestSignUp } from "../../src/modules/account/sign-ups.ts";

describe("operator CLI: mail:list", function () {
  this.timeout(120_000);

  it("prints the messages waiting for an address, a sign-up's confirmation link among them", async () => {
    const databaseUrl = (await testDatabase()).databaseUrl;
    const env: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: tempDir("cli-mail") };
    const email = uniqueEmail("cli-mail");
    const opened = await openConfiguredDatabase({ url: databaseUrl, dataDir: env.DATA_DIR ?? "", mode: "share" });
    try {
      await migrate(opened.db);
      const links = { confirmUrl: (s: string) => `http://auth.test/sign-up/confirm?token=${s}`, signInUrl: "http://auth.test/sign-in" };
      await requestSignUp(opened.db, { email, password: "long enough password" }, links, new Date());
    } finally {
      await opened.close();
    }
    const res = await runNpm("cli", ["mail:list", "--email", email], env);
    assert.equal(res.code, 0, res.stderr);
    const mail = JSON.parse(res.stdout) as { to: string; subject: string; body: string }[];
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.to, email);
    assert.equal(mail[0]!.subject, "Confirm your SubBridge account");
    assert.match(mail[0]!.body, /http:\/\/auth\.test\/sign-up\/confirm\?token=\S{40}/);
  });
});
