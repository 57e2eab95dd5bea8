// Mailed links in Chromium as a person receives them (issue 34): an owner invites an address over
// REST, the mail worker sends the invitation through SMTP to the test's own receiver (smtp-server,
// parsed with postal-mime), and Chromium follows its link; the invitee opens an account (confirmed
// by the mailed confirmation, also over SMTP), accepts, and is on the team's roster. A sign-up on
// its own: the confirmation mail's link confirms the account and signs the person in.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, screenshot } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, TEST_PASSWORD, uniqueEmail, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { ApiClient } from "../../helpers/http.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { linkInMail, sendMailTo, startMailReceiver, TEST_MAIL_FROM } from "../../helpers/messaging.ts";
import type { MailCatcher } from "../../../src/simulators/mail-catcher.ts";

describe("mailed links in Chromium: an invitation and a sign-up received over SMTP", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let api: RunningApi;
  let receiver: MailCatcher;
  let owner: TestCreator;
  before(async () => {
    [browser, auth, api, receiver, owner] = await allOrNothing([
      launchBrowser(),
      startAuth(),
      startApi(),
      startMailReceiver(),
      createTestCreator({ label: "mail-inviting-owner" }),
    ]);
    // The API mails invitation links on its auth_url: here, the authorization server this test runs (read per request).
    api.deps.authUrl = auth.url;
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
    await receiver?.close();
  });

  it("an invitee follows the mailed invitation, opens an account through the mailed confirmation, accepts and is a member", async () => {
    const { db } = await testDatabase();
    const teamName = ((await db("teams").where({ id: owner.teamId }).first("name")) as { name: string }).name;
    const email = uniqueEmail("mail-invitee");
    const ownerApi = new ApiClient(api.url, owner.token);
    const invited = await ownerApi.post(`/v1/teams/${owner.teamId}/members`, { email, role: "admin" });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));

    const invitation = await sendMailTo(receiver, email, /invited to join/);
    assert.equal(invitation.subject, `You're invited to join ${teamName} on SubBridge`);
    const link = linkInMail(invitation, { from: TEST_MAIL_FROM, prefix: `${auth.url}/invitations/accept?token=` });

    const { context, page } = await freshPage(browser);
    await page.goto(link);
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    await page.getByRole("link", { name: "Open an account" }).click();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Open my account" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();

    const confirmation = await sendMailTo(receiver, email, /^Confirm your SubBridge account$/);
    await page.goto(linkInMail(confirmation, { from: TEST_MAIL_FROM, prefix: `${auth.url}/sign-up/confirm?token=` }));
    await page.getByRole("button", { name: "Confirm and open my account" }).click();
    // The confirmation keeps where the sign-up came from: back on the invitation, signed in.
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    await page.getByRole("button", { name: `Accept and join ${teamName}` }).click();
    await page.getByRole("heading", { name: `Welcome to ${teamName}` }).waitFor();
    await screenshot(page, "mail-invitation-accepted");

    const user = (await db("users").where({ email }).first("id")) as { id: string };
    const roster = (await ownerApi.get(`/v1/teams/${owner.teamId}/members`)).body.data as { user_id: string; email?: string; role: string }[];
    assert.deepEqual(
      roster.filter((m) => m.user_id === user.id).map((m) => [m.email, m.role]),
      [[email, "admin"]],
    );
    await context.close();
  });

  it("a sign-up's mailed confirmation link confirms the account and signs the person in", async () => {
    const email = uniqueEmail("mail-sign-up");
    const { context, page } = await freshPage(browser);
    await page.goto(`${auth.url}/sign-up`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Open my account" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    const { db } = await testDatabase();
    assert.equal(await db("users").where({ email }).first("id"), undefined, "no account before the link is followed");

    const confirmation = await sendMailTo(receiver, email, /^Confirm your SubBridge account$/);
    await page.goto(linkInMail(confirmation, { from: TEST_MAIL_FROM, prefix: `${auth.url}/sign-up/confirm?token=` }));
    await page.getByRole("button", { name: "Confirm and open my account" }).click();
    await page.getByText("Signed in as").waitFor();
    assert.match(await page.locator("main").innerText(), new RegExp(`Signed in as ${email.replace(/[.+]/g, "\\$&")}`));
    await screenshot(page, "mail-sign-up-confirmed");
    assert.ok(await db("users").where({ email }).first("id"), "the account is open");
    await context.close();
  });
});
