// Issue 34's "How it will be checked", the mail part, on `npm start` as the checker runs it: SMTP_URL
// names an SMTP server of the test's own (smtp-server, messages parsed with postal-mime) and
// MAIL_FROM is set. The demo creator invites an address over REST; the invitation arrives as a real
// email (both parts, the product's name, From = MAIL_FROM) and Chromium follows its link; the
// invitee opens an account, whose confirmation mail arrives too and confirms it; they accept and
// are on the roster. Then they forget their password: the reset mail's link sets a new one, and
// they sign in with it. The demo creator links a Telegram account on the simulated platform's page.
// A member then writes to the bot: npm start's bot message worker brings the support alert to that
// account, and the creator's reply over REST reaches the member in the chat. Last, the bot is removed
// from the project's gated chat on the simulated page: the recovery alert arrives by mail and on the
// linked account. Screenshots under
// test-artifacts/screenshots/embedded/messaging-*.png.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import type { Browser } from "playwright-core";
import { freshPage, launchBrowser, screenshot, signIn } from "../helpers/browser.ts";
import { uniqueEmail } from "../helpers/fixtures.ts";
import {
  botMessagesTo,
  installSimTelegram,
  joinFromInvitationMail,
  linkInMail,
  linkTelegramOnSim,
  sendOnSimTelegram,
  startWithMailReceiver,
  waitForMail,
  type SimUser,
  type StartWithMail,
} from "../helpers/messaging.ts";

describe("issue 34's walk-through on npm start: mail over SMTP, its links in Chromium", function () {
  this.timeout(300_000);
  let running: StartWithMail;
  let browser: Browser;

  after(async () => {
    await browser?.close();
    await running?.stop();
  });

  it("[embedded] an invitation, a sign-up confirmation and a password reset arrive as real mail whose links work; the demo creator links a Telegram account on the simulated platform, gets a member's support message there and replies, and hears by mail and bot that the bot was removed from its chat", async () => {
    [running, browser] = await Promise.all([startWithMailReceiver("messaging-walkthrough"), launchBrowser()]);
    const { authUrl, receiver, mailFrom, demo, api } = running;
    assert.match(running.started.output(), new RegExp(`Mail\\s+sent through smtp://127\\.0\\.0\\.1:\\d+ as ${mailFrom}`));
    const teamName = (await api("GET", "/teams/current")).data.name as string;

    // The invitation, sent by npm start's mail worker.
    const email = uniqueEmail("walkthrough-invitee");
    await api("POST", `/teams/${demo.teamId}/members`, { email, role: "member" });
    const { invitation, confirmation } = await joinFromInvitationMail(browser, running, { email, password: "a walkthrough password" }, (page, step) =>
      screenshot(page, step === "invitation" ? "messaging-1-invitation" : "messaging-2-joined"),
    );
    const roster = (await api("GET", `/teams/${demo.teamId}/members`)).data as { email?: string; role: string }[];
    assert.deepEqual(
      roster.filter((m) => m.email === email).map((m) => m.role),
      ["member"],
    );

    // The password reset, from the sign-in page.
    const forgetful = await freshPage(browser);
    await forgetful.page.goto(`${authUrl}/sign-in`);
    await forgetful.page.getByRole("link", { name: "Forgot password?" }).click();
    await forgetful.page.getByLabel("Email").fill(email);
    await forgetful.page.getByRole("button", { name: "Mail me a reset link" }).click();
    await forgetful.page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    const reset = await waitForMail(receiver, email, /^Reset your SubBridge password$/);
    await forgetful.page.goto(linkInMail(reset, { from: mailFrom, prefix: `${authUrl}/password-reset/confirm?token=` }));
    await forgetful.page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await forgetful.page.getByLabel("New password").fill("a brand new password");
    await forgetful.page.getByRole("button", { name: "Set the new password" }).click();
    await forgetful.page.getByRole("heading", { name: "Password changed" }).waitFor();
    await screenshot(forgetful.page, "messaging-3-password-changed");
    await forgetful.context.close();

    const again = await freshPage(browser);
    await signIn(again.page, authUrl, email, "a brand new password");
    await again.page.getByText("Signed in as").waitFor();
    assert.match(await again.page.locator("main").innerText(), new RegExp(`working in the team ${teamName}`));
    await again.context.close();

    // The demo creator links a Telegram account through the simulated platform: primary, and the routing written down.
    const installation = await installSimTelegram(running);
    const ada = { id: randomInt(100_000_000, 999_999_999), firstName: "Ada" };
    assert.match(await linkTelegramOnSim(browser, running, demo, ada), /now linked to your SubBridge account as your primary account/);
    const identities = (await api("GET", "/me/identities")).data as { connector: string; account_id: string; is_primary: boolean }[];
    assert.deepEqual(
      identities.map((i) => [i.connector, i.account_id, i.is_primary]),
      [["telegram", String(ada.id), true]],
    );

    // A member writes to the bot: a support alert reaches the linked account through the bot message worker.
    const sim = await freshPage(browser);
    const botName = installation.platform_account_name;
    const bob: SimUser = { id: randomInt(100_000_000, 999_999_999), firstName: "Bob" };
    await sendOnSimTelegram(sim.page, running.simUrl, botName, bob, "Hello, where is my invite?");
    const until = async (user: SimUser, pattern: RegExp) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        await sim.page.goto(running.simUrl);
        const texts = await botMessagesTo(sim.page, botName, user);
        if (texts.some((t) => pattern.test(t))) return texts;
        assert.ok(Date.now() < deadline, `no message matching ${pattern} to ${user.firstName}: ${texts.join(" | ")}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const alerts = await until(ada, /Support: Bob/);
    assert.ok(
      alerts.some((t) => t.includes("Hello, where is my invite?")),
      alerts.join(" | "),
    );

    // The creator replies over REST; the reply reaches the member in the same chat.
    const conversations = (await api("GET", `/projects/${demo.projectId}/support/conversations`)).data as { id: string }[];
    assert.equal(conversations.length, 1);
    await api("POST", `/projects/${demo.projectId}/support/conversations/${conversations[0]!.id}/messages`, {
      body: "Hi Bob, it is on its way.",
    });
    await until(bob, /Hi Bob, it is on its way\./);
    await screenshot(sim.page, "messaging-4-support-reply");

    // The bot is removed from the project's gated chat: Telegram's my_chat_member update probes at once, and the
    // recovery alert reaches the creator by email (critical) and on the linked account.
    const chat = `-100${randomInt(1_000_000_000, 9_999_999_999)}`;
    await api("POST", `/projects/${demo.projectId}/resources`, { connector: "telegram", kind: "channel", title: "VIP channel", platform_ref: chat });
    const removal = await fetch(`${new URL(running.simUrl).origin}/_sim/telegram/bot-status`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ bot: installation.platform_account_id, chat, status: "kicked" }).toString(),
      redirect: "manual",
    });
    assert.equal(removal.status, 303);
    const recovery = await waitForMail(receiver, demo.email, /installation lost|places the bot cannot manage/);
    assert.match(recovery.text, /VIP channel/);
    await until(ada, /installation lost|places the bot cannot manage/);
    const [setting] = (await api("GET", `/projects/${demo.projectId}/recovery-settings`)).data as { status: string; probes: { enabled: boolean } }[];
    assert.deepEqual([setting!.status, setting!.probes.enabled], ["lost", true]);
    await screenshot(sim.page, "messaging-5-recovery-alert");
    await sim.context.close();

    // Each message arrived once: nothing was sent twice (alerts of the account's own, like a new sign-in's, may come besides).
    for (const subject of [invitation.subject, confirmation.subject, reset.subject])
      assert.equal(receiver.messages().filter((m) => m.to.includes(email) && m.subject === subject).length, 1, subject);
  });
});
