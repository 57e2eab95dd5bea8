// What the portal tests share: the portal surface in-process beside the suite's API, a project with
// Telegram installed and a published plan, a browser-like HTTP client (cookies, CSRF tokens), and
// the Telegram update that carries a member's /start.
import { randomInt } from "node:crypto";
import { createPortalApp } from "../../src/apps/portal/portal-app.ts";
import { updatesSecret } from "../../src/modules/connectors/bot/session.ts";
import { testDatabase, testKv } from "../helpers/backends.ts";
import { DOCS_URL, repositoryConnectorRegistry, serveOnFreePort, TEST_APP_KEY, testLogger } from "../helpers/server.ts";
import { testPlatform, testPlatformEndpoints } from "../helpers/platforms.ts";
import type { ApiSuite } from "../helpers/suite.ts";
import { FormBrowser } from "../helpers/form-browser.ts";
import type { StripePayments } from "../../src/modules/payments/stripe/stripe-payments.ts";
import { installTelegram } from "../modules/connectors/support.ts";
import { seedPlan, type SeededPlan } from "../modules/subscriptions/commerce.ts";

/** The portal in-process; `stripe` is the platform's Stripe it reaches (none unless given). */
export async function startPortal(options: { stripe?: StripePayments | null; confirmWaitMs?: number; telegramSimulatorPage?: string } = {}) {
  const { db } = await testDatabase();
  const kv = await testKv();
  const platforms = {
    ...(await testPlatformEndpoints()),
    ...(options.telegramSimulatorPage ? { telegramSimulatorPage: options.telegramSimulatorPage } : {}),
  };
  return serveOnFreePort((url) =>
    createPortalApp({
      db,
      kv,
      appKey: TEST_APP_KEY,
      now: () => new Date(),
      release: "test",
      logger: testLogger,
      portalUrl: url,
      docsUrl: DOCS_URL,
      connectors: repositoryConnectorRegistry(),
      platforms,
      // Each PortalBrowser comes from its own address (the per-IP action budget is per browser here).
      clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1"),
      ...(options.stripe ? { stripe: options.stripe } : {}),
      // A checkout's page waits this long for its confirmation: long enough for the twin's report, short for a page that stays open.
      confirmWaitMs: options.confirmWaitMs ?? 1_500,
    }),
  );
}

export interface PortalProjectFixture {
  projectId: string;
  handle: string;
  installation: { id: string; bot_url: string };
  bot: { id: number };
  plan: SeededPlan;
}

/** The suite creator's first project with Telegram installed and a published plan (a channel and a perk). */
export async function projectWithPlan(suite: ApiSuite): Promise<PortalProjectFixture> {
  const projectId = suite.creator.projectIds[0]!;
  const { installation, bot } = await installTelegram(suite.client, projectId);
  const plan = await seedPlan(suite.creator, {
    resources: [
      { mode: "bearer_link", title: "VIP channel" },
      { mode: "creator_task", title: "Signed print" },
    ],
  });
  const { db } = await testDatabase();
  await db("projects")
    .where({ id: projectId })
    .update({ name: "Night Owls Club", description: "Late-night writing sessions and a members' channel." });
  await db("plans").where({ id: plan.planId }).update({ name: "Night Owl monthly" });
  const { handle } = await db("projects").where({ id: projectId }).first("handle");
  return { projectId, handle, installation, bot, plan };
}

/** Telegram delivering a private `/start <payload>` from `userId` to the installation's bot; answers what the bot replied. */
export function botStart(apiUrl: string, installationId: string, botId: number, userId: number, payload: string): Promise<string> {
  return botMessage(apiUrl, installationId, botId, userId, `/start ${payload}`);
}

/** Telegram delivering a private message `text` from `userId` to the installation's bot; answers what the bot replied. */
export async function botMessage(apiUrl: string, installationId: string, botId: number, userId: number, text: string): Promise<string> {
  const mark = (await testPlatform()).calls.length;
  const res = await fetch(`${apiUrl}/connectors/telegram/${installationId}/updates`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, installationId) },
    body: JSON.stringify({
      update_id: randomInt(1, 1e9),
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: userId, type: "private" },
        from: { id: userId, is_bot: false, first_name: "Ada", last_name: "Member" },
        text,
      },
    }),
  });
  if (res.status !== 200) throw new Error(`the updates endpoint answered ${res.status}`);
  const calls = (await testPlatform()).calls.slice(mark).filter((c) => c.bot === String(botId) && c.name === "sendMessage");
  return calls.map((c) => String(c.params.text)).join("\n");
}

/** The path of the confirmation link in the bot's answer to /start auth_<token> (its host is the API's PORTAL_URL). */
export function confirmationPath(reply: string): string {
  const link = /https?:\/\/\S+(\/[a-z0-9-]+\/sign-in\/confirm\/[A-Za-z0-9_-]+)/.exec(reply);
  if (!link) throw new Error(`no confirmation link in the bot's answer: ${reply}`);
  return link[1]!;
}

/** A browser without JavaScript on the portal (cookies, CSRF tokens): the pages' shared form client. */
export { FormBrowser as PortalBrowser };

/** The member opens the bot's confirmation link (on their phone, say) and confirms; answers the confirmation page. */
export async function confirmInBot(portalUrl: string, reply: string): Promise<string> {
  const phone = new FormBrowser(portalUrl);
  const path = confirmationPath(reply);
  const done = await phone.post(path, {}, path);
  const page = await done.text();
  if (done.status !== 200 || !/Confirmed\. Go back to/.test(page)) throw new Error(`the confirmation failed (${done.status}): ${page.slice(0, 500)}`);
  return page;
}

/**
 * A fresh browser signed in to the fixture's portal as Telegram account `userId` through the
 * handoff (started with `returnTo` when given); answers it with the handoff's waiting page, its
 * token and where Continue sent it.
 */
export async function signInThroughBot(
  portalUrl: string,
  apiUrl: string,
  fixture: PortalProjectFixture,
  userId: number,
  returnTo?: string,
): Promise<{ browser: FormBrowser; waiting: string; token: string; landed: string }> {
  const browser = new FormBrowser(portalUrl);
  const started = await browser.post(
    `/${fixture.handle}/sign-in`,
    { installation: fixture.installation.id, ...(returnTo !== undefined ? { return_to: returnTo } : {}) },
    `/${fixture.handle}`,
  );
  if (started.status !== 303) throw new Error(`the sign-in did not start (${started.status})`);
  const waiting = started.headers.get("location")!;
  const page = await (await browser.get(waiting)).text();
  const token = /start=auth_([A-Za-z0-9]+)/.exec(page)![1]!;
  await confirmInBot(portalUrl, await botStart(apiUrl, fixture.installation.id, fixture.bot.id, userId, `auth_${token}`));
  const done = await browser.post(waiting, {}, waiting);
  if (done.status !== 303) throw new Error(`Continue answered ${done.status}`);
  return { browser, waiting, token, landed: done.headers.get("location")! };
}

/** A fresh browser signed in to the fixture's portal as the Telegram account `userId`: the handoff, confirmed through the bot's link. */
export async function signedInAs(portalUrl: string, apiUrl: string, fixture: PortalProjectFixture, userId: number): Promise<FormBrowser> {
  const { browser, landed } = await signInThroughBot(portalUrl, apiUrl, fixture, userId);
  if (landed !== `/${fixture.handle}/account`) throw new Error(`sign-in did not complete: sent to ${landed}`);
  return browser;
}
