// The tokens page in Chromium: mint with chosen abilities on a chosen team and project (the team
// chosen first, without JavaScript's help), the token shown once and copied by the button, the
// token working on the REST API with exactly those abilities, deletion refused by REST on the next
// call (auth and API share the credential cache), a member bounded by their role, and an agent
// registration's token listed under its client name with its badge.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase, testKv } from "../../helpers/backends.ts";
import { launchBrowser, screenshot, signIn } from "../../helpers/browser.ts";
import { allOrNothing } from "../../helpers/open-resources.ts";
import { createTestCreator, TEST_PASSWORD } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { CLAIM_GRANT } from "../../helpers/agent-registration.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { createTeam } from "../../../src/modules/teams/teams.ts";
import { createProject } from "../../../src/modules/projects/projects.ts";
import { confirmAgentRegistration } from "../../../src/modules/agent-registrations/confirmation.ts";

describe("auth pages: tokens (Chromium)", function () {
  this.timeout(120_000);
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let api: RunningApi;
  before(async () => {
    // The API and the authorization server share the credential cache, as they do in production.
    const shared = `tokens-${randomBytes(4).toString("hex")}`;
    [browser, auth, api] = await allOrNothing([
      launchBrowser(),
      testKv({ shared }).then((kv) => startAuth({ kv, clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") })),
      startApi({ sharedKv: shared }),
    ]);
  });
  after(async () => {
    await browser?.close();
    await auth?.close();
    await api?.close();
  });

  const rest = async (token: string, path: string) => {
    const res = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as any };
  };

  async function clipboardPage(): Promise<{ page: Page; close: () => Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: auth.url });
    return { page: await context.newPage(), close: () => context.close() };
  }

  it("mints a token with the chosen abilities on a chosen team and project, shows it once, copies it, and deletes it", async () => {
    const creator = await createTestCreator({ label: "tokens-mint" });
    const { db } = await testDatabase();
    const actor = { userId: creator.userId, teamId: creator.teamId, projectIds: null, kind: "human" as const, credentialKind: null, requestId: null };
    const second = await db.transaction((trx) => createTeam(createDomainContext(trx, actor, new Date()), { name: "Second Studio" }));
    const secondActor = { ...actor, teamId: second.id };
    const chosen = await db.transaction((trx) => createProject(createDomainContext(trx, secondActor, new Date()), { name: "Night Market" }));
    await db.transaction((trx) => createProject(createDomainContext(trx, secondActor, new Date()), { name: "Day Market" }));

    const { page, close } = await clipboardPage();
    await page.goto(`${auth.url}/tokens`);
    assert.match(page.url(), /\/sign-in\?return_to=%2Ftokens$/);
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/tokens");
    await page.getByRole("heading", { name: "Tokens", exact: true }).waitFor();
    await screenshot(page, "tokens-page");
    // The fixture's own token is listed on the creator's first team.
    assert.match(await page.locator("table.tokens").innerText(), /Operator token/);

    // Step one: the team (a GET form, so its projects are listed without JavaScript).
    await page.locator("#mint-team").selectOption({ label: "Second Studio" });
    await page.getByRole("button", { name: "Choose this team" }).click();
    await page.waitForURL(/\/tokens\?team=/);
    assert.equal(new URL(page.url()).searchParams.get("team"), second.id);
    assert.match(await page.locator("form.mint").innerText(), /The token will act on the team Second Studio/);
    await screenshot(page, "tokens-team-chosen");

    // A form without a name or an ability is refused with readable messages, nothing minted.
    await page.getByRole("button", { name: "Mint token" }).click();
    assert.match(await page.locator("#field-name-error").innerText(), /Give the token a name/);
    assert.match(await page.locator("#abilities-error").innerText(), /Tick at least one ability/);
    assert.match(await page.getByRole("alert").innerText(), /The token was not minted\. See the form\./);
    await screenshot(page, "tokens-mint-refused");

    await page.getByLabel("Name").fill("Market reporter");
    await page.getByLabel("Night Market").check();
    await page.getByLabel("project:view-any", { exact: true }).check();
    await page.getByLabel("token:view-any", { exact: true }).check();
    const minted = page.waitForResponse((r) => r.url() === `${auth.url}/tokens` && r.request().method() === "POST");
    await page.getByRole("button", { name: "Mint token" }).click();
    assert.equal((await minted).status(), 201);
    await page.getByRole("heading", { name: "Your new token “Market reporter”" }).waitFor();
    const token = await page.getByLabel("Token", { exact: true }).inputValue();
    assert.match(token, /^sbt_live_\d+_[A-Za-z0-9]+$/);
    assert.equal(await page.getByLabel("Token", { exact: true }).getAttribute("readonly"), "");
    await page.getByRole("button", { name: "Copy token" }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), token);
    await screenshot(page, "tokens-minted");
    const row = page.locator("table.tokens tr", { hasText: "Market reporter" });
    assert.match(await row.innerText(), /Second Studio\s+2\s+Night Market\s+\S+ \S+ UTC\s+Never\s+Delete/);

    // Shown once: the page again holds no secret.
    await page.goto(`${auth.url}/tokens`);
    assert.equal(await page.locator("#new-token").count(), 0);
    assert.ok(!(await page.content()).includes(token));

    // On REST: exactly those abilities, on that team, restricted to that project.
    const projects = await rest(token, "/v1/projects");
    assert.equal(projects.status, 200, JSON.stringify(projects.body));
    assert.deepEqual(
      projects.body.data.map((p: { id: string }) => p.id),
      [chosen.id],
    );
    const tokens = await rest(token, "/v1/tokens");
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    const self = tokens.body.data.find((t: { name: string }) => t.name === "Market reporter");
    assert.deepEqual(self.abilities, ["project:view-any", "token:view-any"]);
    assert.deepEqual(self.scopes, [`scope:team:${second.id}`, `scope:project:${chosen.id}`]);
    const refused = await rest(token, `/v1/projects/${chosen.id}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, "TOKEN_MISSING_ABILITY");

    // A delete without the form's CSRF token is refused and changes nothing.
    const tokenId = token.split("_")[2]!;
    const forged = await page.request.post(`${auth.url}/tokens/${tokenId}/delete`, { form: { team_id: second.id } });
    assert.equal(forged.status(), 403);
    assert.equal((await rest(token, "/v1/projects")).status, 200);

    // Delete: a confirm step, then the next REST call is refused.
    await page.locator("table.tokens tr", { hasText: "Market reporter" }).getByRole("link", { name: "Delete Market reporter" }).click();
    await page.getByRole("heading", { name: "Delete a token" }).waitFor();
    await screenshot(page, "tokens-delete-confirm");
    await page.getByRole("button", { name: "Delete token" }).click();
    await page.getByText("The token was deleted.").waitFor();
    assert.equal(await page.locator("table.tokens tr", { hasText: "Market reporter" }).count(), 0);
    await screenshot(page, "tokens-deleted");
    const after = await rest(token, "/v1/projects");
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, "AUTHENTICATION_REQUIRED");
    await close();
  });

  it("bounds a member's token by their role: abilities it does not grant are not offered and are refused", async () => {
    const owner = await createTestCreator({ label: "tokens-owner" });
    const member = await createTestCreator({ label: "tokens-member" });
    const { db } = await testDatabase();
    const role = (await db("roles").where({ team_id: owner.teamId, code: "member" }).first("id")) as { id: string };
    await db("team_members").insert({ id: randomUUID(), team_id: owner.teamId, user_id: member.userId, role_id: role.id, created_at: new Date() });

    const { page, close } = await clipboardPage();
    await signIn(page, auth.url, member.email, TEST_PASSWORD, `/tokens?team=${owner.teamId}`);
    await page.getByRole("heading", { name: "Tokens", exact: true }).waitFor();
    assert.equal(await page.getByLabel("project:view-any", { exact: true }).isDisabled(), false);
    assert.equal(await page.locator('input[name="ability"][value="project:delete"]').isDisabled(), true);
    assert.match(await page.locator("label", { hasText: "project:delete" }).innerText(), /not granted by your role/);
    assert.equal(await page.locator('input[name="ability"][value="token:create"]').count(), 0, "token:create is never offered");
    await screenshot(page, "tokens-member");

    // A form that sends an ability the role does not grant anyway is refused.
    await page.getByLabel("Name").fill("Too wide");
    await page.locator('input[name="ability"][value="project:delete"]').evaluate((el) => {
      // The page would never send it: a hand-made form does.
      const input = el as unknown as { disabled: boolean; checked: boolean };
      input.disabled = false;
      input.checked = true;
    });
    await page.getByRole("button", { name: "Mint token" }).click();
    assert.match(await page.locator("#abilities-error").innerText(), /does not grant project:delete/);
    assert.equal(await page.locator("#new-token").count(), 0);
    const count = await db("personal_access_tokens").where({ user_id: member.userId, name: "Too wide" }).count({ n: "*" }).first();
    assert.equal(Number(count?.n), 0);
    await close();
  });

  it("lists an agent registration's token under its client name, marked as such", async () => {
    const creator = await createTestCreator({ label: "tokens-agent" });
    const res = await fetch(`${auth.url}/agent/identity`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-ip": `10.12.${randomBytes(1)[0]}.${randomBytes(1)[0]}` },
      body: JSON.stringify({ type: "service_auth", login_hint: creator.email, client_name: "Release bot", scope: "project:view-any team:view" }),
    });
    const reg = (await res.json()) as { registration_id: string; claim_token: string; claim: { user_code: string } };
    assert.equal(res.status, 200, JSON.stringify(reg));
    const { db } = await testDatabase();
    await confirmAgentRegistration(db, {
      registrationId: reg.registration_id,
      code: reg.claim.user_code,
      userId: creator.userId,
      teamId: creator.teamId,
      now: new Date(),
    });
    const poll = await fetch(`${auth.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: reg.claim_token }).toString(),
    });
    assert.equal(poll.status, 200, await poll.clone().text());

    const { page, close } = await clipboardPage();
    await signIn(page, auth.url, creator.email, TEST_PASSWORD, "/tokens");
    const row = page.locator("table.tokens tr", { hasText: "Release bot" });
    await row.waitFor();
    assert.match(await row.locator("th").innerText(), /Release bot\s+Agent registration/);
    assert.match(await row.innerText(), /\s2\s+All projects/);
    await screenshot(page, "tokens-agent-registration");
    await close();
  });
});
