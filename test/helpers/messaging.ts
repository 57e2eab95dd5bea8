// Helpers of the tests of what the service says to people (issue 34): a local SMTP receiver (the
// mail catcher's smtp-server, messages parsed with postal-mime, no page), reading the mail to an
// address as a person would (both parts, the product's name, From, the link), and the simulated
// Telegram's page driven as a Telegram user (a message to a bot, Start pressed on a start link).
import assert from "node:assert/strict";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { Browser, Locator, Page } from "playwright-core";
import { startMailCatcher, type CaughtMail, type MailCatcher } from "../../src/simulators/mail-catcher.ts";
import { PRODUCT_NAME } from "../../src/modules/mail/render.ts";
import { smtpSender } from "../../src/modules/mail/smtp.ts";
import { sendDueMail } from "../../src/workers/mail/worker.ts";
import { testDatabase } from "./backends.ts";
import { testLogger } from "./server.ts";
import { freshPage, signIn } from "./browser.ts";
import { FIRST_START_READY, freePort, startNpm, tempDir, type StartedProcess } from "./processes.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_CREDENTIALS_FILE } from "../../src/first-start.ts";

export type { CaughtMail };

/** The From the in-process tests send as (MAIL_FROM of a deployment). */
export const TEST_MAIL_FROM = "SubBridge <no-reply@mail.subbridge.test>";

/** An SMTP server of the test's own on loopback: what it receives is parsed with postal-mime and kept in memory. */
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

/** `npm start` on an empty embedded database, sending its mail over SMTP to a receiver of the test's own. */
export interface StartWithMail {
  started: StartedProcess;
  receiver: MailCatcher;
  /** MAIL_FROM as set: every message's From. */
  mailFrom: string;
  authUrl: string;
  portalUrl: string;
  /** The simulated Telegram's page, as the banner names it. */
  simUrl: string;
  demo: { email: string; password: string; token: string; teamId: string; projectId: string };
  /** A REST call with the demo token; fails the test on a status of 300 or more; answers the JSON body. */
  api(method: string, path: string, body?: unknown): Promise<any>;
  /** Stops npm start (asserting a clean exit) and the receiver. */
  stop(): Promise<void>;
}

/** The first start of `npm start` as issue 34's check runs it: SMTP_URL names an SMTP server of the checker's own, MAIL_FROM is set. */
export async function startWithMailReceiver(label: string, extraEnv: Record<string, string> = {}): Promise<StartWithMail> {
  const receiver = await startMailReceiver();
  const mailFrom = "SubBridge <no-reply@checker.test>";
  const dataDir = tempDir(label);
  const ports = { API_PORT: 0, MCP_PORT: 0, AUTH_PORT: 0, SITE_PORT: 0, DOCS_PORT: 0, PORTAL_PORT: 0, DASHBOARD_PORT: 0 };
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  const env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    SMTP_URL: receiver.smtpUrl,
    MAIL_FROM: mailFrom,
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    ...extraEnv,
  };
  let started: StartedProcess;
  try {
    started = await startNpm(env, FIRST_START_READY);
  } catch (err) {
    await receiver.close();
    throw err;
  }
  const out = started.output();
  const simUrl = /\(a Telegram user's view: (http:\/\/127\.0\.0\.1:\d+\/_sim\/telegram);/.exec(out)?.[1];
  assert.ok(simUrl, `the banner names the simulated Telegram's page:\n${out}`);
  const secrets = readFileSync(join(dataDir, DEMO_CREDENTIALS_FILE), "utf8");
  const demo = {
    email: "demo@subbridge.local",
    password: /creator\s+demo@subbridge\.local \(password (\S+)\)/.exec(secrets)![1]!,
    token: /token\s+(sbt_test_\d+_[A-Za-z0-9]+)/.exec(secrets)![1]!,
    teamId: /team\s+([0-9a-f-]{36})/.exec(secrets)![1]!,
    projectId: /project\s+([0-9a-f-]{36})/.exec(secrets)![1]!,
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://localhost:${ports.API_PORT}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${demo.token}`,
        ...(body !== undefined ? { "content-type": "application/json", "idempotency-key": randomUUID() } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = res.status === 204 ? null : ((await res.json()) as any);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    started,
    receiver,
    mailFrom,
    authUrl: `http://localhost:${ports.AUTH_PORT}`,
    portalUrl: `http://localhost:${ports.PORTAL_PORT}`,
    simUrl,
    demo,
    api,
    async stop() {
      const code = await started.stop();
      await receiver.close();
      assert.equal(code, 0, "npm start exits cleanly on SIGTERM");
    },
  };
}

/** Installs Telegram on the demo project with a new bot of the simulated platform (any well-formed token names one there). */
export async function installSimTelegram(
  running: StartWithMail,
): Promise<{ id: string; bot_url: string; platform_account_id: string; platform_account_name: string }> {
  const botId = randomInt(1_000_000_000, 9_000_000_000);
  const bot_token = `${botId}:${randomBytes(27).toString("base64url")}`;
  return (await running.api("POST", `/projects/${running.demo.projectId}/connectors/telegram`, { fields: { bot_token } })).data;
}

/**
 * A creator links a Telegram account as a person does it: signed in on the authorization host,
 * "Link your Telegram account" on /identities, then Start pressed on the link as `user` on the
 * simulated Telegram's page; answers the bot's reply there.
 */
export async function linkTelegramOnSim(
  browser: Browser,
  at: { authUrl: string; simUrl: string },
  creator: { email: string; password: string },
  user: SimUser,
): Promise<string> {
  const { context, page } = await freshPage(browser);
  try {
    await signIn(page, at.authUrl, creator.email, creator.password, "/identities");
    await page.getByRole("button", { name: "Link your Telegram account" }).click();
    const link = await page.locator("section.minted a").getAttribute("href");
    assert.ok(link, "the page shows the one-time link");
    return (await pressStartOnSimTelegram(page, at.simUrl, user, link)).join("\n");
  } finally {
    await context.close();
  }
}

/**
 * A person invited to `running`'s demo team opens an account from the invitation mail and joins, as
 * the walk-through does it in Chromium: the invitation's link, "Open an account", the confirmation
 * mail's link, "Accept and join". `onStep` sees the page after the invitation opens and after joining.
 * Answers the two mails.
 */
export async function joinFromInvitationMail(
  browser: Browser,
  running: StartWithMail,
  invitee: { email: string; password: string },
  onStep: (page: Page, step: "invitation" | "joined") => Promise<unknown> = async () => undefined,
): Promise<{ invitation: CaughtMail; confirmation: CaughtMail }> {
  const { authUrl, receiver, mailFrom } = running;
  const teamName = (await running.api("GET", "/teams/current")).data.name as string;
  const invitation = await waitForMail(receiver, invitee.email, /invited to join/);
  const { context, page } = await freshPage(browser);
  try {
    await page.goto(linkInMail(invitation, { from: mailFrom, prefix: `${authUrl}/invitations/accept?token=` }));
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    await onStep(page, "invitation");
    await page.getByRole("link", { name: "Open an account" }).click();
    await page.getByLabel("Email").fill(invitee.email);
    await page.getByLabel("Password").fill(invitee.password);
    await page.getByRole("button", { name: "Open my account" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    const confirmation = await waitForMail(receiver, invitee.email, /^Confirm your SubBridge account$/);
    await page.goto(linkInMail(confirmation, { from: mailFrom, prefix: `${authUrl}/sign-up/confirm?token=` }));
    await page.getByRole("button", { name: "Confirm and open my account" }).click();
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    await page.getByRole("button", { name: `Accept and join ${teamName}` }).click();
    await page.getByRole("heading", { name: `Welcome to ${teamName}` }).waitFor();
    await onStep(page, "joined");
    return { invitation, confirmation };
  } finally {
    await context.close();
  }
}
