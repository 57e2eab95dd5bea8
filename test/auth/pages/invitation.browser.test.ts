// The invitation page in Chromium: an owner invites through the REST API, the invitee follows the
// mailed link, opens an account (or signs in) and accepts; the membership and team.member.joined
// follow, and the session works in the joined team. Another account, a used, withdrawn, expired or
// unknown link, and a member already in the team each get a readable page.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, linkFromMail, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { createTestCreator, joinTeamWithToken, TEST_PASSWORD, uniqueEmail, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { ApiClient } from "../../helpers/http.ts";
import { AUTH_URL, startApi, type RunningApi } from "../../helpers/server.ts";

describe("auth pages: accepting a team invitation (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let api: RunningApi;
  let owner: TestCreator;
  let ownerApi: ApiClient;
  let teamName: string;
  before(async () => {
    [browser, auth, api, owner] = await allOrNothing([launchBrowser(), startAuth(), startApi(), createTestCreator({ label: "inviting-owner" })]);
    ownerApi = new ApiClient(api.url, owner.token);
    const { db } = await testDatabase();
    teamName = ((await db("teams").where({ id: owner.teamId }).first("name")) as { name: string }).name;
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
  });

  /** Invites `email` through the REST API as the owner; returns the invitation's id and the mailed link, on this auth server. */
  async function invite(email: string, role = "member"): Promise<{ id: string; link: string }> {
    const res = await ownerApi.post(`/v1/teams/${owner.teamId}/members`, { email, role });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    // The API mails links on its configured auth_url; the same path and token on the running one.
    const mailed = new URL(await linkFromMail(email, `${AUTH_URL}/invitations/accept`));
    return { id: res.body.data.id, link: `${auth.url}${mailed.pathname}${mailed.search}` };
  }

  async function rosterEntry(userId: string) {
    const roster = (await ownerApi.get(`/v1/teams/${owner.teamId}/members`)).body.data as { user_id: string; email?: string; role: string }[];
    return roster.find((m) => m.user_id === userId);
  }

  const mainText = (page: Page) => page.locator("main").innerText();

  it("a new address: Open an account, confirm by mail, come back, accept; the membership and its event exist", async () => {
    const email = uniqueEmail("invited-new");
    const { id, link } = await invite(email, "admin");
    const { context, page } = await freshPage(browser);

    await page.goto(link);
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    const offered = await mainText(page);
    assert.match(offered, new RegExp(`Team\\s+${teamName}`));
    assert.match(offered, /Role\s+Admin/i);
    assert.ok(offered.includes(email), "the invited address is shown");
    assert.equal(await page.getByRole("button", { name: /Accept/ }).count(), 0, "nothing to accept before signing in");
    await screenshot(page, "invitation-signed-out");

    await page.getByRole("link", { name: "Open an account" }).click();
    await page.getByRole("heading", { name: "Open an account" }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Open my account" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();

    await page.goto(await linkFromMail(email, `${auth.url}/sign-up/confirm`));
    await page.getByRole("button", { name: "Confirm and open my account" }).click();
    // The sign-up kept return_to: the confirmation lands back on the invitation, signed in.
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/invitations/accept");
    await screenshot(page, "invitation-signed-in");

    await page.getByRole("button", { name: `Accept and join ${teamName}` }).click();
    await page.getByRole("heading", { name: `Welcome to ${teamName}` }).waitFor();
    assert.match(await page.getByRole("status").innerText(), new RegExp(`You joined the team ${teamName} as Admin`, "i"));
    assert.equal(await page.locator("#team-switcher option:checked").innerText(), teamName, "the session works in the joined team");
    await screenshot(page, "invitation-accepted");

    const { db } = await testDatabase();
    const user = (await db("users").where({ email }).first("id", "current_team_id")) as { id: string; current_team_id: string };
    assert.equal(user.current_team_id, owner.teamId, "the next sign-in starts in the joined team too");
    const member = await rosterEntry(user.id);
    assert.equal(member?.role, "admin");
    assert.equal(member?.email, email);
    const [event] = (await eventsOf(owner.teamId, "team.member.joined")).filter((e) => e.data.invitation_id === id);
    assert.ok(event, "team.member.joined was emitted");
    assertValidEvent(event);
    assert.deepEqual(event.data.member, { user_id: user.id, email, role: "admin" });

    await page.goto(`${auth.url}/`);
    assert.match(await mainText(page), new RegExp(`working in the team ${teamName}`));

    // The link is spent: opened again, it says so in words.
    const again = await page.goto(link);
    assert.equal(again?.status(), 410);
    await page.getByRole("heading", { name: "Invitation no longer open" }).waitFor();
    assert.match(await page.getByRole("alert").innerText(), /already used or withdrawn/);
    await screenshot(page, "invitation-used");
    await context.close();
  });

  it("an existing creator signs in from the invitation and accepts", async () => {
    const invitee = await createTestCreator({ label: "invited-existing" });
    const { link } = await invite(invitee.email);
    const { context, page } = await freshPage(browser);
    await page.goto(link);
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill(invitee.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    await page.getByRole("button", { name: `Accept and join ${teamName}` }).click();
    await page.getByRole("heading", { name: `Welcome to ${teamName}` }).waitFor();
    assert.equal((await rosterEntry(invitee.userId))?.role, "member");
    // Their own team is still theirs, one switch away.
    assert.equal(await page.locator("#team-switcher option").count(), 2);
    await context.close();
  });

  it("refuses another account without naming the invited address, and lets it sign out and come back", async () => {
    const email = uniqueEmail("invited-elsewhere");
    const { link } = await invite(email);
    const other = await createTestCreator({ label: "wrong-account" });
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, other.email, TEST_PASSWORD);
    const response = await page.goto(link);
    assert.equal(response?.status(), 403);
    await page.getByRole("heading", { name: "Invitation for another address" }).waitFor();
    assert.match(await page.getByRole("alert").innerText(), /sent to another address/);
    assert.ok(!(await mainText(page)).includes(email), "the invited address is not shown to another account");
    assert.equal(await page.getByRole("button", { name: /Accept/ }).count(), 0);
    await screenshot(page, "invitation-wrong-account");

    await page.getByRole("button", { name: "Sign out and use the invited address" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const returnTo = new URL(page.url()).searchParams.get("return_to");
    assert.equal(returnTo, new URL(link).pathname + new URL(link).search);
    await page.goto(link);
    await page.getByRole("link", { name: "Open an account" }).waitFor(); // signed out now
    await context.close();
  });

  it("answers unknown, expired and withdrawn links, and a member already in the team, with pages", async () => {
    const { context, page } = await freshPage(browser);
    const unknown = await page.goto(`${auth.url}/invitations/accept?token=not-a-real-token`);
    assert.equal(unknown?.status(), 404);
    assert.match(unknown!.headers()["content-type"]!, /text\/html/);
    await page.getByRole("heading", { name: "Invitation not found" }).waitFor();
    await screenshot(page, "invitation-unknown");
    assert.equal((await page.goto(`${auth.url}/invitations/accept`))?.status(), 404, "no token at all");

    const { db } = await testDatabase();
    const expiring = await invite(uniqueEmail("invited-expired"));
    await db("team_invitations")
      .where({ id: expiring.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    assert.equal((await page.goto(expiring.link))?.status(), 410);
    await page.getByRole("heading", { name: "Invitation expired" }).waitFor();
    assert.match(await page.getByRole("alert").innerText(), /expired; ask for a new one/);
    await screenshot(page, "invitation-expired");

    const withdrawn = await invite(uniqueEmail("invited-withdrawn"));
    assert.equal((await ownerApi.delete(`/v1/teams/${owner.teamId}/invitations/${withdrawn.id}`)).status, 204);
    assert.equal((await page.goto(withdrawn.link))?.status(), 410);
    await page.getByRole("heading", { name: "Invitation no longer open" }).waitFor();

    // A person who joined meanwhile (another way) is told so instead of being offered Accept.
    const joiner = await createTestCreator({ label: "invited-already" });
    const pending = await invite(joiner.email);
    await joinTeamWithToken(owner, joiner, ["team:view"], "member");
    await signIn(page, auth.url, joiner.email, TEST_PASSWORD);
    assert.equal((await page.goto(pending.link))?.status(), 409);
    await page.getByRole("heading", { name: "Already in this team" }).waitFor();
    await screenshot(page, "invitation-already-member");
    await context.close();
  });

  it("accepts only a POST with its CSRF token", async () => {
    const invitee = await createTestCreator({ label: "invited-csrf" });
    const { link } = await invite(invitee.email);
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, invitee.email, TEST_PASSWORD, new URL(link).pathname + new URL(link).search);
    await page.getByRole("heading", { name: `Join ${teamName}` }).waitFor();
    const token = new URL(link).searchParams.get("token")!;
    const status = await page.evaluate(async (secret) => {
      const body = new URLSearchParams({ token: secret, intent: "accept" }).toString();
      const res = await fetch("/invitations/accept", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
      return res.status;
    }, token);
    assert.equal(status, 403);
    assert.equal(await rosterEntry(invitee.userId), undefined, "no membership without the form's token");
    await context.close();
  });
});
