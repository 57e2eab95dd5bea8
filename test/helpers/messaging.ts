// Helpers of the tests of what the service says to people (issue 34): a local SMTP receiver (the
// mail catcher's smtp-server, messages parsed with mailparser, no page), reading the mail to an
// address as a person would (both parts, the product's name, From, the link), and the simulated
// Telegram's page driven as a Telegram user (a message to a bot, Start pressed on a start link).
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { startMailCatcher, type CaughtMail, type MailCatcher } from "../../src/modules/mail/catcher.ts";
import { PRODUCT_NAME } from "../../src/modules/mail/render.ts";
import { smtpSender } from "../../src/modules/mail/smtp.ts";
import { sendDueMail } from "../../src/workers/mail/worker.ts";
import { testDatabase } from "./backends.ts";
import { testLogger } from "./server.ts";

export type { CaughtMail };

/** The From the in-process tests send as (MAIL_FROM of a deployment). */
export const TEST_MAIL_FROM = "SubBridge <no-reply@mail.subbridge.test>";

/** An SMTP server of the test's own on loopback: what it receives is parsed with mailparser and kept in memory. */
export function startMailReceiver(): Promise<MailCatcher> {
  return startMailCatcher({ page: null });
}

/** The messages the receiver got for `to`, oldest first, optionally only those whose subject matches. */
export function mailTo(receiver: MailCatcher, to: string, subject?: RegExp): CaughtMail[] {
  return receiver.messages().filter((m) => m.to.includes(to) && (!subject || subject.test(m.subject)));
}

/**
 * The mail worker's run as npm start does it, in-process: sends the outbox's due messages to `to`
 * through SMTP to the receiver, as `from`; answers the newest message to `to` matching `subject`.
 */
export async function sendMailTo(receiver: MailCatcher, to: string, subject: RegExp, from = TEST_MAIL_FROM): Promise<CaughtMail> {
  const { db } = await testDatabase();
  const sender = smtpSender({ smtpUrl: receiver.smtpUrl, from, timeoutMs: 5_000 });
  try {
    await sendDueMail({
      db,
      sender,
      logger: testLogger,
      messageIdDomain: /@([^>]+)/.exec(from)![1]!,
      timeoutMs: 5_000,
      recipients: [to],
      now: new Date(),
    });
  } finally {
    sender.close();
  }
  const mail = mailTo(receiver, to, subject).at(-1);
  assert.ok(mail, `no message to ${to} with a subject like ${subject}; received: ${JSON.stringify(mailTo(receiver, to).map((m) => m.subject))}`);
  return mail;
}

/**
 * Waits for a message to `to` whose subject matches, sent by a worker of another process (npm
 * start's): the receiver is looked at every 100 ms until `timeoutMs`; there is no function to call.
 */
export async function waitForMail(receiver: MailCatcher, to: string, subject: RegExp, timeoutMs = 30_000): Promise<CaughtMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = mailTo(receiver, to, subject).at(-1);
    if (mail) return mail;
    if (Date.now() > deadline) {
      const got = receiver.messages().map((m) => `${m.to.join(",")}: ${m.subject}`);
      throw new Error(`no message to ${to} with a subject like ${subject} within ${timeoutMs} ms; received: ${JSON.stringify(got)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Checks that a message is a real email as the issue asks (a plain-text and an HTML part, the
 * product's name, From the configured MAIL_FROM) and answers its link starting with `prefix`: the
 * HTML part's anchor, which the text part carries too.
 */
export function linkInMail(mail: CaughtMail, options: { from: string; prefix: string }): string {
  assert.ok(mail.text.trim(), "a plain-text part");
  const html = mail.html ?? "";
  assert.ok(html.trim(), "an HTML part");
  assert.ok(mail.text.includes(PRODUCT_NAME) && html.includes(PRODUCT_NAME), `the product's name in both parts: ${mail.text}`);
  assert.equal(mail.from.replace(/"/g, ""), options.from, "From is MAIL_FROM");
  assert.ok(mail.messageId, "a Message-ID");
  const hrefs = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
  const link = hrefs.find((href) => href.startsWith(options.prefix));
  assert.ok(link, `an HTML link starting with ${options.prefix}; the links: ${JSON.stringify(hrefs)}`);
  assert.ok(mail.text.includes(link), `the text part carries the same link ${link}`);
  return link;
}

/** A Telegram user as the simulated page names them. */
export interface SimUser {
  id: number;
  firstName: string;
}

/** The bot's section on the simulated Telegram's page (open at `simUrl`). */
export function simBot(page: Page, botUsername: string): Locator {
  return page.getByRole("region", { name: `@${botUsername}` });
}

/**
 * Sends `text` to the bot as `user` from the simulated Telegram's page, as a person types it in the
 * app; answers the bot's messages to that user sent in reply (their text, in order).
 */
export async function sendOnSimTelegram(page: Page, simUrl: string, botUsername: string, user: SimUser, text: string): Promise<string[]> {
  await page.goto(simUrl);
  const bot = simBot(page, botUsername);
  const before = await botMessagesTo(page, botUsername, user);
  await bot.getByLabel("User id").fill(String(user.id));
  await bot.getByLabel("First name").fill(user.firstName);
  await bot.getByLabel("Message").fill(text);
  await bot.getByRole("button", { name: `Send to @${botUsername}` }).click();
  await page
    .getByRole("status")
    .filter({ hasText: `${user.firstName} sent "${text}".` })
    .waitFor();
  return (await botMessagesTo(page, botUsername, user)).slice(before.length);
}

/**
 * Presses Start on a bot's start link (https://t.me/<bot>?start=<payload>) as `user`: the Telegram
 * app sends the bot "/start <payload>", which is what the simulated page's form sends.
 */
export async function pressStartOnSimTelegram(page: Page, simUrl: string, user: SimUser, startLink: string): Promise<string[]> {
  const link = new URL(startLink);
  const payload = link.searchParams.get("start");
  assert.ok(payload, `a start link: ${startLink}`);
  return sendOnSimTelegram(page, simUrl, link.pathname.slice(1), user, `/start ${payload}`);
}

/** What the bot sent `user` in their private chat, as the simulated page shows it (oldest first). */
export async function botMessagesTo(page: Page, botUsername: string, user: SimUser): Promise<string[]> {
  const chat = simBot(page, botUsername).locator(`h3:text-is("Chat with ${user.firstName} (${user.id})") + ol`);
  if ((await chat.count()) === 0) return [];
  return chat.locator("li.bot .text").allInnerTexts();
}
