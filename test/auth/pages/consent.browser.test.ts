// The OAuth consent page in Chromium: a signed-out creator is sent through sign-in and back to the
// same authorize URL; the page names the app, where it returns, the team (switchable) and what
// mcp:use grants; Deny answers access_denied with the state, Approve a code that redeems with the
// PKCE verifier for the team shown (the answer reaches a loopback, an IPv6 loopback and a
// private-use scheme past the page's CSP form-action); an untrusted client or redirect URI is a
// readable 400 page; a creator in no team is told to join one; the POST is checked again
// (tampered fields, CSRF).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, joinTeamWithToken, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { exchangeCode, newVerifier, registerClient } from "../../helpers/oauth.ts";
import { startOAuthCallback, type OAuthCallback } from "../../helpers/oauth-callback.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { createTeam } from "../../../src/modules/teams/teams.ts";
import { s256 } from "../../../src/modules/oauth/authorization.ts";
import { generate } from "otplib";
import { confirmTotpEnrolment, pendingTotpEnrolment, startTotpEnrolment } from "../../../src/modules/account/totp.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";

const CLIENT_NAME = "Claude Desktop (test)";

describe("auth pages: OAuth consent (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let callback: OAuthCallback;
  let clientId: string;
  let creator: TestCreator;
  let secondTeamId: string;
  before(async () => {
    [browser, auth, callback] = await allOrNothing([launchBrowser(), startAuth(), startOAuthCallback()]);
    const registered = await registerClient(auth, { client_name: CLIENT_NAME, redirect_uris: [callback.url] });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    clientId = registered.body.client_id;
    creator = await createTestCreator({ label: "consent" });
    const { db } = await testDatabase();
    const actor = { userId: creator.userId, teamId: creator.teamId, projectIds: null, kind: "human" as const, credentialKind: null, requestId: null };
    secondTeamId = (await db.transaction((trx) => createTeam(createDomainContext(trx, actor, new Date()), { name: "Second Studio" }))).id;
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await callback?.close();
  });

  const authorizeUrl = (verifier: string, overrides: Record<string, string> = {}) =>
    `${auth.url}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: callback.url,
      scope: "mcp:use",
      state: "state-42",
      code_challenge: s256(verifier),
      code_challenge_method: "S256",
      ...overrides,
    })}`;
  /** Clicks a button and returns the query the client's redirect URI received. */
  const answer = async (page: Page, button: string) => {
    const [params] = await Promise.all([callback.next(), page.getByRole("button", { name: button }).click()]);
    return params;
  };
  const codesOf = async (id: string) => (await (await testDatabase()).db("oauth_authorization_codes").where({ client_id: id })).length;

  it("signs a signed-out creator in, back to the consent page; Deny sends access_denied with the state and grants nothing", async () => {
    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    await page.goto(authorizeUrl(verifier));
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill(creator.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
    assert.equal(page.url(), authorizeUrl(verifier), "sign-in returned to the same authorize URL");

    const text = await page.locator("main").innerText();
    assert.match(text, new RegExp(`Sends you back to\\s+${new URL(callback.url).host.replace(/\./g, "\\.")}`));
    assert.match(text, /act as you \(.+\) on the team .+, with every ability \(you own it\), and nothing more/);
    assert.match(text, /MCP server only/);
    assert.match(text, /lasts 1 hour/);
    assert.match(text, /30 days\s+from its last use/);
    assert.match(text, /did not check it/);
    assert.equal(await page.getByLabel("Team").inputValue(), creator.teamId, "the team switcher shows the team the page names");
    await screenshot(page, "consent");

    const params = await answer(page, "Deny");
    assert.equal(params.get("error"), "access_denied");
    assert.equal(params.get("state"), "state-42");
    assert.equal(params.get("code"), null);
    assert.equal(await codesOf(clientId), 0, "nothing is granted without approval");
    await context.close();
  });

  it("asks a creator with an authenticator app for a code before the consent page", async () => {
    const guarded = await createTestCreator({ label: "consent-2fa" });
    const { db } = await testDatabase();
    const now = new Date();
    const owner = { db, userId: guarded.userId, teamId: guarded.teamId, requestId: null, appKey: TEST_APP_KEY, now };
    await startTotpEnrolment(owner);
    const { secret } = (await pendingTotpEnrolment(owner, guarded.email))!;
    // Enrolled with the previous step's code, so the code typed below (this step's) is a later one.
    assert.ok(await confirmTotpEnrolment(owner, await generate({ secret, epoch: Math.floor(now.getTime() / 1000) - 30 })));

    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    await page.goto(authorizeUrl(verifier));
    await page.getByLabel("Email").fill(guarded.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Two-factor authentication" }).waitFor();
    assert.equal(await codesOf(clientId), 0);
    await page.getByLabel("Authentication code").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
    assert.equal(page.url(), authorizeUrl(verifier), "the second step returned to the same authorize URL");
    await context.close();
  });

  it("approves for the team picked with the switcher: the code and state reach the app, and the code redeems with the PKCE verifier", async () => {
    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, new URL(authorizeUrl(verifier)).pathname + new URL(authorizeUrl(verifier)).search);
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
    await page.getByLabel("Team").selectOption({ label: "Second Studio" });
    await page.getByRole("button", { name: "Switch" }).click();
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
    assert.match(await page.locator(".consent-facts").innerText(), /Team\s+Second Studio/);
    await screenshot(page, "consent-team-switched");

    const params = await answer(page, "Approve");
    assert.equal(params.get("state"), "state-42");
    const code = params.get("code");
    assert.ok(code, "a code");
    const res = await exchangeCode(auth, clientId, code, verifier, callback.url);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.token_type, "Bearer");
    const [, , id] = (res.body.access_token as string).split("_");
    const { db } = await testDatabase();
    const row = await db("oauth_access_tokens").where({ id }).first("team_id", "user_id");
    assert.deepEqual({ team: row.team_id, user: row.user_id }, { team: secondTeamId, user: creator.userId });
    assert.equal((await exchangeCode(auth, clientId, code, verifier, callback.url)).status, 400, "the code works once");
    await context.close();
  });

  it("sends the answer on to an app on a private-use scheme or on [::1], named as such: the page's form-action lets the redirect through", async () => {
    // A native client listening on the IPv6 loopback (Chromium takes no IPv6 literal as a CSP source).
    const arrived: URLSearchParams[] = [];
    const waiting: ((params: URLSearchParams) => void)[] = [];
    const ipv6 = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Done</title>");
      const params = new URL(req.url ?? "/", "http://[::1]").searchParams;
      const take = waiting.shift();
      if (take) take(params);
      else arrived.push(params);
    });
    await new Promise<void>((resolve) => ipv6.listen(0, "::1", resolve));
    const nextOnIpv6 = () => (arrived.length ? Promise.resolve(arrived.shift()!) : new Promise<URLSearchParams>((resolve) => waiting.push(resolve)));
    const { context, page } = await freshPage(browser);
    try {
      const vscode = "vscode://github.com/cb";
      const loopback = `http://[::1]:${(ipv6.address() as AddressInfo).port}/callback`;
      const registered = await registerClient(auth, { client_name: CLIENT_NAME, redirect_uris: [vscode, loopback] });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      const native = registered.body.client_id as string;
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/.test(message.text())) violations.push(message.text());
      });

      const verifier = newVerifier();
      const toLoopback = authorizeUrl(verifier, { client_id: native, redirect_uri: loopback });
      await signIn(page, auth.url, creator.email, TEST_PASSWORD, new URL(toLoopback).pathname + new URL(toLoopback).search);
      await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
      const [params] = await Promise.all([nextOnIpv6(), page.getByRole("button", { name: "Deny" }).click()]);
      assert.equal(params.get("error"), "access_denied");
      assert.equal(params.get("state"), "state-42");

      // Last: headless Chromium hands vscode: to no app, so the request for it is the answer reaching the app.
      await page.goto(authorizeUrl(verifier, { client_id: native, redirect_uri: vscode }));
      await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
      const facts = await page.locator(".consent-facts").innerText();
      assert.match(facts, /Sends you back to\s+vscode:\/\/github\.com\/cb\s+An app on this device that opens vscode: addresses, not a website\./);
      await screenshot(page, "consent-private-use-scheme");
      const [request] = await Promise.all([
        page.waitForRequest((r) => r.url().startsWith("vscode:")),
        page.getByRole("button", { name: "Approve" }).click(),
      ]);
      const sent = new URL(request.url());
      assert.equal(sent.searchParams.get("state"), "state-42");
      const code = sent.searchParams.get("code");
      assert.ok(code, "a code");
      assert.equal((await exchangeCode(auth, native, code, verifier, vscode)).status, 200);
      assert.deepEqual(violations, [], "no form was blocked by the page's CSP");
    } finally {
      await context.close();
      ipv6.closeAllConnections();
      await new Promise((resolve) => ipv6.close(resolve));
    }
  });

  it("shows an untrusted client or redirect URI as a readable 400 page, and sends the other faults to the app", async () => {
    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    const untrusted: Record<string, string>[] = [{ client_id: "sbc_unknown" }, { redirect_uri: "http://127.0.0.1:1/elsewhere" }];
    for (const overrides of untrusted) {
      const response = await page.goto(authorizeUrl(verifier, overrides));
      assert.equal(response?.status(), 400);
      assert.equal(new URL(page.url()).origin, auth.url, "never sent to an untrusted address");
      await page.getByRole("heading", { name: "This app cannot be connected" }).waitFor();
      assert.match(await page.getByRole("alert").innerText(), /cannot trust, so nothing was connected/);
      assert.doesNotMatch(await page.content(), /"error"\s*:/, "no JSON on a page");
    }
    await screenshot(page, "consent-invalid-redirect-uri");
    await page.goto(authorizeUrl(verifier, { client_id: "sbc_unknown" }));
    await screenshot(page, "consent-invalid-client");

    const [params] = await Promise.all([callback.next(), page.goto(authorizeUrl(verifier, { code_challenge_method: "plain" }))]);
    assert.equal(params.get("error"), "invalid_request");
    assert.equal(params.get("state"), "state-42");
    await context.close();
  });

  it("names a member's role: the app gets what that role grants on the team", async () => {
    const member = await createTestCreator({ label: "consent-member" });
    await joinTeamWithToken(creator, member, ["team:view"], "member");
    const { db } = await testDatabase();
    await db("users").where({ id: member.userId }).update({ current_team_id: creator.teamId });
    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    await signIn(page, auth.url, member.email, TEST_PASSWORD, new URL(authorizeUrl(verifier)).pathname + new URL(authorizeUrl(verifier)).search);
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
    assert.match(await page.locator(".consent-grants").innerText(), /with every ability your role there \(Member\) grants, and nothing more/);
    await context.close();
  });

  it("tells a creator who belongs to no team to join one; cancelling tells the app access_denied", async () => {
    const loner = await createTestCreator({ label: "consent-loner" });
    const { db } = await testDatabase();
    // The team changes hands: its former owner now belongs to no team.
    await db("teams").where({ id: loner.teamId }).update({ owner_user_id: creator.userId });
    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    await signIn(page, auth.url, loner.email, TEST_PASSWORD, new URL(authorizeUrl(verifier)).pathname + new URL(authorizeUrl(verifier)).search);
    await page.getByRole("heading", { name: "Join a team first" }).waitFor();
    assert.match(await page.getByRole("alert").innerText(), /belongs to no team/);
    assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 0);
    await screenshot(page, "consent-no-team");
    const params = await answer(page, "Cancel and tell the app");
    assert.equal(params.get("error"), "access_denied");
    assert.equal(params.get("state"), "state-42");
    await context.close();
  });

  it("checks the form again on POST: a tampered redirect URI or team is refused, a form without its CSRF token too", async () => {
    const { context, page } = await freshPage(browser);
    const verifier = newVerifier();
    const before = await codesOf(clientId);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, new URL(authorizeUrl(verifier)).pathname + new URL(authorizeUrl(verifier)).search);
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();

    await page.locator('.consent-actions input[name="redirect_uri"]').evaluate((input) => {
      (input as unknown as { value: string }).value = "http://127.0.0.1:1/elsewhere";
    });
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "This app cannot be connected" }).waitFor();
    assert.equal(new URL(page.url()).origin, auth.url);

    const stranger = await createTestCreator({ label: "consent-stranger" });
    await page.goto(authorizeUrl(verifier));
    await page.locator('.consent-actions input[name="team_id"]').evaluate((input, id) => {
      (input as unknown as { value: string }).value = id;
    }, stranger.teamId);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Join a team first" }).waitFor();
    assert.match(await page.getByRole("alert").innerText(), /do not belong to the team/);

    await page.goto(authorizeUrl(verifier));
    const status = await page.evaluate(
      async (body) => {
        const res = await fetch("/oauth/authorize", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
        return res.status;
      },
      new URL(authorizeUrl(verifier)).search.slice(1) + "&decision=approve",
    );
    assert.equal(status, 403);
    assert.equal(await codesOf(clientId), before, "no code was issued");
    await context.close();
  });
});
