// The mail settings: SMTP_URL's schemes, MAIL_FROM's forms and the sender domain Message-IDs use.
import assert from "node:assert/strict";
import { mailConfig } from "../../../src/config-mail.ts";
import { ConfigError } from "../../../src/config-values.ts";

describe("mail configuration", () => {
  it("defaults to no SMTP server and a From on the authorization host", () => {
    const c = mailConfig({}, "https://auth.example.com");
    assert.equal(c.smtpUrl, null);
    assert.equal(c.from, "SubBridge <no-reply@auth.example.com>");
    assert.equal(c.fromDomain, "auth.example.com");
    assert.equal(c.timeoutMs, 10_000);
  });

  it("takes smtp:// and smtps:// URLs, a plain or named From, and a bounded timeout", () => {
    const c = mailConfig(
      { SMTP_URL: "smtps://u:p@mail.example.com:465", MAIL_FROM: "hello@Example.org", SMTP_TIMEOUT_MS: "5000" },
      "http://localhost:4002",
    );
    assert.equal(c.smtpUrl, "smtps://u:p@mail.example.com:465");
    assert.equal(c.fromDomain, "example.org");
    assert.equal(c.timeoutMs, 5000);
    assert.equal(mailConfig({ MAIL_FROM: "Night Owls <owls@example.net>" }, "http://localhost:4002").fromDomain, "example.net");
  });

  it("refuses another scheme, a From that is no address, and an unbounded timeout, naming the variable", () => {
    assert.throws(
      () => mailConfig({ SMTP_URL: "http://mail.example.com" }, "http://localhost:4002"),
      (e: Error) => e instanceof ConfigError && /SMTP_URL/.test(e.message),
    );
    assert.throws(
      () => mailConfig({ MAIL_FROM: "SubBridge" }, "http://localhost:4002"),
      (e: Error) => e instanceof ConfigError && /MAIL_FROM/.test(e.message),
    );
    assert.throws(
      () => mailConfig({ SMTP_TIMEOUT_MS: "0" }, "http://localhost:4002"),
      (e: Error) => e instanceof ConfigError && /SMTP_TIMEOUT_MS/.test(e.message),
    );
  });
});
