// What npm start runs for mail (src/outside/mail.ts), as the banner names it: the catcher in
// a sandbox with no SMTP_URL (its page listing what the worker sent it), the configured server
// without its credentials, nothing on a live start with no SMTP_URL or where WORKER=off. The clock
// is years in the past so that no other test's queued mail is ever due here.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { escape as escapeHtml } from "html-escaper";
import { testDatabase } from "../helpers/backends.ts";
import { testLogger } from "../helpers/server.ts";
import { mailConfig } from "../../src/config-mail.ts";
import { queueMailAt } from "../../src/modules/mail/outbox.ts";
import { mailState } from "../../src/modules/mail/queue.ts";
import { startMail } from "../../src/outside/mail.ts";
import { loadConfig } from "../../src/config.ts";
import { freePort } from "../helpers/processes.ts";

const T0 = new Date("2000-01-01T00:00:00Z");
const clock = () => T0;
const simulatorPorts = loadConfig({}).simulatorPorts;

describe("mail at start", () => {
  it("runs the catcher in a sandbox with no SMTP_URL: the worker sends to it and its page lists and shows the message", async () => {
    const { db } = await testDatabase();
    const to = `${randomUUID()}@example.test`;
    await queueMailAt(
      db,
      { to, subject: "Hello <there>", body: "Open http://auth.test/x?a=1&b=2 now.", links: ["http://auth.test/x?a=1&b=2"] },
      new Date(T0.getTime() - 1000),
    );
    const mail = await startMail(
      { worker: true, environment: "test", mail: mailConfig({}, "http://auth.test"), simulatorPorts },
      db,
      testLogger,
      clock,
    );
    try {
      const pageUrl = /^caught on (http:\/\/127\.0\.0\.1:\d+); set SMTP_URL to send$/.exec(mail.description)?.[1];
      assert.ok(pageUrl, mail.description);
      let list = "";
      for (let i = 0; i < 100 && !list.includes(to); i++) {
        await new Promise((r) => setTimeout(r, 50));
        list = await (await fetch(pageUrl)).text();
      }
      assert.ok(list.includes(to), "the message is listed");
      assert.ok(list.includes("Hello &lt;there&gt;"), "its subject escaped");
      const number = new RegExp(`<td>${to.replace(/[.]/g, "\\.")}</td><td><a href="/messages/(\\d+)">`).exec(list)![1];
      const shown = await (await fetch(`${pageUrl}/messages/${number}`)).text();
      // The message's own link is clickable in the text part and in the HTML part (framed, so escaped once more).
      assert.ok(shown.includes('<a href="http://auth.test/x?a=1&amp;b=2">'), "the link clickable");
      assert.ok(shown.includes(escapeHtml('<a href="http://auth.test/x?a=1&amp;b=2">')), "the link clickable in the HTML part");
      assert.equal((await fetch(`${pageUrl}/messages/999999`)).status, 404);
      const rows = await db("mail_outbox").where({ to_address: to }).pluck("id");
      // The catcher lists the message as it receives it, a moment before the worker records the send.
      let status = (await mailState(db, rows[0]))?.status;
      for (let i = 0; i < 100 && status !== "sent"; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await mailState(db, rows[0]))?.status;
      }
      assert.equal(status, "sent");
    } finally {
      await mail.stop();
    }
  });

  it("names the configured server without its credentials, and says when nothing sends", async () => {
    const { db } = await testDatabase();
    const configured = await startMail(
      {
        worker: true,
        environment: "live",
        mail: mailConfig({ SMTP_URL: "smtp://ada:s3cret@127.0.0.1:2525" }, "https://auth.example.com"),
        simulatorPorts,
      },
      db,
      testLogger,
      clock,
    );
    await configured.stop();
    assert.equal(configured.description, "sent through smtp://127.0.0.1:2525 as SubBridge <no-reply@auth.example.com>");
    const live = await startMail(
      { worker: true, environment: "live", mail: mailConfig({}, "https://auth.example.com"), simulatorPorts },
      db,
      testLogger,
      clock,
    );
    assert.match(live.description, /^not sent: set SMTP_URL/);
    const off = await startMail(
      { worker: false, environment: "test", mail: mailConfig({}, "http://auth.test"), simulatorPorts },
      db,
      testLogger,
      clock,
    );
    assert.match(off.description, /WORKER=off/);
  });

  it("listens where MAIL_CATCHER_PORT and MAIL_CATCHER_SMTP_PORT say, and refuses to start when that port is taken", async () => {
    const { db } = await testDatabase();
    const [page, smtp] = [await freePort(), await freePort()];
    const env = { MAIL_CATCHER_PORT: String(page), MAIL_CATCHER_SMTP_PORT: String(smtp) };
    const config = {
      worker: true,
      environment: "test" as const,
      mail: mailConfig({}, "http://auth.test"),
      simulatorPorts: loadConfig(env).simulatorPorts,
    };
    const mail = await startMail(config, db, testLogger, clock);
    try {
      assert.equal(mail.description, `caught on http://127.0.0.1:${page}; set SMTP_URL to send`);
      assert.deepEqual(mail.listeners, [
        { name: "mail page", url: `http://127.0.0.1:${page}`, variable: "MAIL_CATCHER_PORT" },
        { name: "mail SMTP", url: `smtp://127.0.0.1:${smtp}`, variable: "MAIL_CATCHER_SMTP_PORT" },
      ]);
      // A configured port is the operator's word: a second start does not drift to another one.
      await assert.rejects(startMail(config, db, testLogger, clock), (err: NodeJS.ErrnoException) => err.code === "EADDRINUSE");
    } finally {
      await mail.stop();
    }
  });
});
