// The agent-registration claim page in Chromium: the named creator signs in (coming back to the
// claim URL), sees the agent's name, abilities and team, types the code; the agent's next poll
// collects the token, which is listed on the tokens page. Another account is refused without the
// address being named; 5 wrong codes end the registration; the code alone finds the registration
// when the URL does not name it, and shows it (name, abilities) before the creator confirms.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { freshPage, launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, TEST_PASSWORD } from "../../helpers/fixtures.ts";
import { CLAIM_GRANT, wrongCode, type Registered } from "../../helpers/agent-registration.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TestClock } from "../../helpers/clock.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { createTeam } from "../../../src/modules/teams/teams.ts";

describe("auth pages: agent registration claim (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  // The agent polls at most every 5 seconds (slow_down): the test moves this clock between polls.
  // It starts just after an hour begins (limits' windows follow it, their counters real time).
  const clock = new TestClock(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_000);
  let api: RunningApi;
  before(async () => {
    // Each registration comes from its own address (X-Test-Ip), so the per-address limit never mixes tests.
    [browser, auth, api] = await allOrNothing([
      launchBrowser(),
      startAuth({ now: clock.now, clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") }),
      startApi(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
  });

  async function register(email: string, clientName: string, scope?: string): Promise<Registered> {
    const res = await fetch(`${auth.url}/agent/identity`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-ip": `10.13.${randomBytes(1)[0]}.${randomBytes(1)[0]}` },
      body: JSON.stringify({ type: "service_auth", login_hint: email, client_name: clientName, ...(scope ? { scope } : {}) }),
    });
    const body = (await res.json()) as Registered;
    assert.equal(res.status, 200, JSON.stringify(body));
    return body;
  }

  const poll = (claimToken: string) =>
    fetch(`${auth.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: claimToken }).toString(),
    });

  it("lets the named creator confirm on the team they work in; the agent's poll collects the token, listed on the tokens page", async () => {
    const creator = await createTestCreator({ label: "claim-ok" });
    const { db } = await testDatabase();
    const actor = { userId: creator.userId, teamId: creator.teamId, projectIds: null, kind: "human" as const, credentialKind: null, requestId: null };
    const second = await db.transaction((trx) => createTeam(createDomainContext(trx, actor, new Date()), { name: "Agents Studio" }));
    const reg = await register(creator.email, "Release bot", "project:view-any team:view");
    assert.equal((await poll(reg.claim_token)).status, 400);

    const { context, page } = await freshPage(browser);
    await page.goto(reg.claim_url);
    assert.match(page.url(), /\/sign-in\?return_to=/);
    await page.getByLabel("Email").fill(creator.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Connect an agent" }).waitFor();
    assert.equal(page.url(), reg.claim_url);
    const main = await page.locator("main").innerText();
    assert.match(main, /Release bot/);
    assert.match(main, /project:view-any/);
    assert.match(main, /team:view/);
    assert.match(main, /Asked for \(2\)/);
    assert.match(main, /It will get\s+All 2/);
    assert.doesNotMatch(main, /Dropped/);
    assert.match(main, /tokens page/);

    // The team: the session's, changed with the team switcher (which comes back to this page).
    await page.locator("#team-switcher").selectOption({ label: "Agents Studio" });
    await page.getByRole("button", { name: "Switch" }).click();
    await page.getByRole("heading", { name: "Connect an agent" }).waitFor();
    assert.equal(page.url(), reg.claim_url);
    assert.match(await page.locator("dl.claim").innerText(), /Team\s+Agents Studio/);
    await screenshot(page, "claim-page");

    await page.getByLabel("Code").fill("12");
    await page.getByRole("button", { name: "Confirm and connect the agent" }).click();
    assert.match(await page.locator(".field-error").innerText(), /6 digits/);

    await page.getByLabel("Code").fill(reg.claim.user_code);
    await page.getByRole("button", { name: "Confirm and connect the agent" }).click();
    await page.getByRole("heading", { name: "Agent connected" }).waitFor();
    assert.match(await page.getByRole("status").first().innerText(), /You confirmed Release bot/);
    await screenshot(page, "claim-confirmed");

    clock.advance(5_000);
    const collected = await poll(reg.claim_token);
    const grant = (await collected.json()) as { access_token: string; scope: string; registration_id: string };
    assert.equal(collected.status, 200, JSON.stringify(grant));
    assert.equal(grant.scope, "project:view-any team:view");
    const me = await fetch(`${api.url}/v1/tokens`, { headers: { authorization: `Bearer ${grant.access_token}` } });
    assert.equal(me.status, 403, "the token carries exactly its two abilities");
    const projects = await fetch(`${api.url}/v1/projects`, { headers: { authorization: `Bearer ${grant.access_token}` } });
    assert.equal(projects.status, 200);
    const stored = (await db("personal_access_tokens").where({ user_id: creator.userId, kind: "agent_registration" }).first("team_id")) as {
      team_id: string;
    };
    assert.equal(stored.team_id, second.id, "the token acts on the team the creator confirmed in");

    // Opening the link again says it is confirmed.
    await page.goto(reg.claim_url);
    assert.match(await page.locator("main .notice").innerText(), /already confirmed/);

    await page.getByRole("link", { name: "Tokens" }).first().click();
    const row = page.locator("table.tokens tr", { hasText: "Release bot" });
    assert.match(await row.innerText(), /Release bot\s+Agent registration\s+Agents Studio\s+2/);
    await screenshot(page, "claim-token-listed");
    await context.close();
  });

  it("refuses another signed-in account without naming the address", async () => {
    const named = await createTestCreator({ label: "claim-named" });
    const other = await createTestCreator({ label: "claim-other" });
    const reg = await register(named.email, "Someone else's bot");
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, other.email, TEST_PASSWORD, new URL(reg.claim_url).pathname + new URL(reg.claim_url).search);
    await page.getByRole("heading", { name: "Not allowed" }).waitFor();
    const text = await page.locator("main").innerText();
    assert.match(text, /made for another account/);
    assert.ok(!text.includes(named.email), "the named address is not shown");
    assert.ok(!(await page.content()).includes(named.email.split("@")[0]!));
    await screenshot(page, "claim-wrong-account");

    // By the code alone, the other account finds nothing either (and the code is not spent on them).
    await page.goto(`${auth.url}/agent/claim`);
    await page.getByLabel("Code").fill(reg.claim.user_code);
    await page.getByRole("button", { name: "Show the agent" }).click();
    assert.match(await page.getByRole("alert").innerText(), /No open agent registration for your account/);
    assert.ok(!(await page.content()).includes(named.email));
    await context.close();
  });

  it("ends the registration after 5 wrong codes", async () => {
    const creator = await createTestCreator({ label: "claim-wrong" });
    const reg = await register(creator.email, "Guessing bot");
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, new URL(reg.claim_url).pathname + new URL(reg.claim_url).search);
    await page.getByRole("heading", { name: "Connect an agent" }).waitFor();
    const bad = wrongCode(reg.claim.user_code);
    for (let i = 1; i <= 4; i++) {
      await page.getByLabel("Code").fill(bad);
      await page.getByRole("button", { name: "Confirm and connect the agent" }).click();
      assert.match(await page.locator(".field-error").innerText(), /That code is not right/);
    }
    await screenshot(page, "claim-wrong-code");
    await page.getByLabel("Code").fill(bad);
    await page.getByRole("button", { name: "Confirm and connect the agent" }).click();
    assert.match(await page.getByRole("alert").innerText(), /5 wrong codes ended this registration/);
    await screenshot(page, "claim-ended");
    // Even the right code no longer works, and the agent's poll says it is over.
    await page.goto(reg.claim_url);
    assert.match(await page.getByRole("alert").innerText(), /has ended/);
    const res = await poll(reg.claim_token);
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, "expired_token");
    await context.close();
  });

  it("finds the registration by the code alone when the URL does not name it", async () => {
    const creator = await createTestCreator({ label: "claim-code" });
    const reg = await register(creator.email, "Code-only bot");
    const { context, page } = await freshPage(browser);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/agent/claim");
    await page.getByRole("heading", { name: "Connect an agent" }).waitFor();
    await screenshot(page, "claim-by-code");
    await page.getByLabel("Code").fill(reg.claim.user_code);
    await page.getByRole("button", { name: "Show the agent" }).click();
    // The code found it; nothing is confirmed until the person has seen the agent and its abilities.
    await page.getByRole("button", { name: "Confirm and connect the agent" }).waitFor();
    const shown = await page.locator("dl.claim").innerText();
    assert.match(shown, /Agent\s+Code-only bot/);
    assert.match(shown, /Asked for \(\d+\)[\s\S]*team:view/);
    await screenshot(page, "claim-by-code-shown");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "claim-by-code-shown-390");
    await page.setViewportSize({ width: 1100, height: 800 });
    const { db } = await testDatabase();
    assert.equal((await db("agent_registrations").where({ id: reg.registration_id }).first("state")).state, "registered");
    await page.getByRole("button", { name: "Confirm and connect the agent" }).click();
    await page.getByRole("heading", { name: "Agent connected" }).waitFor();
    assert.match(await page.locator("main").innerText(), /Code-only bot/);
    await context.close();
  });
});
