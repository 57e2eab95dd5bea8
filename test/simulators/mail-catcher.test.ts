// The mail catcher outlives its senders: a client whose connection is reset in the middle of a
// message (a worker killed mid-send) loses that message only; the catcher, and the process that runs
// it (npm start, the chaos tests), go on catching the next ones.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { createTransport } from "nodemailer";
import { startMailCatcher } from "../../src/simulators/mail-catcher.ts";

/** Opens an SMTP session and stops inside DATA, with the envelope given: a send in flight. */
async function midMessage(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.setEncoding("utf8");
  let seen = "";
  const until = (code: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!seen.split("\r\n").some((line) => line.startsWith(code))) return;
        socket.off("data", onData);
        seen = "";
        resolve();
      };
      const onData = (chunk: string) => ((seen += chunk), check());
      socket.on("data", onData);
      socket.once("error", reject);
      check();
    });
  await until("220");
  for (const [line, code] of [
    ["EHLO sender.test", "250 "],
    ["MAIL FROM:<sender@example.test>", "250"],
    ["RCPT TO:<member@example.test>", "250"],
    ["DATA", "354"],
  ] as const) {
    socket.write(`${line}\r\n`);
    await until(code);
  }
  socket.write("Subject: cut off\r\n\r\nhalf a bo");
  return socket;
}

describe("mail catcher", () => {
  it("goes on catching after senders are reset in the middle of their messages", async () => {
    const catcher = await startMailCatcher({ page: null });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    // Mocha's own handler is set aside for the test's span, so an error the catcher leaves unheard is counted here.
    const mochaHandlers = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", onUncaught);
    try {
      const port = Number(new URL(catcher.smtpUrl).port);
      const senders = await Promise.all([midMessage(port), midMessage(port), midMessage(port)]);
      // The half bodies reach the catcher first; a reset that overtakes them is not an error mid-message.
      await new Promise((r) => setTimeout(r, 100));
      for (const socket of senders) socket.resetAndDestroy();
      await new Promise((r) => setTimeout(r, 200));
      const mailer = createTransport({ url: catcher.smtpUrl });
      await mailer.sendMail({ from: "sender@example.test", to: "member@example.test", subject: "after", text: "whole" });
      mailer.close();
      assert.deepEqual(uncaught, []);
      assert.deepEqual(
        catcher.messages().map((m) => m.subject),
        ["after"],
        "the cut-off messages are not caught; the next one is",
      );
    } finally {
      process.off("uncaughtException", onUncaught);
      for (const handler of mochaHandlers) process.on("uncaughtException", handler);
      await catcher.close();
    }
  });
});
