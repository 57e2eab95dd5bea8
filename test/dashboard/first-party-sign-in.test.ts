// The dashboard's sign-in (issue 44): the deployment's first-party OAuth client is approved without
// a consent page while the host's session lives, its token works on the REST API as the creator
// (the activity log says human), an MCP client's token still does not, and the purge keeps the
// client. The dashboard surface serves its configuration and the app's pages.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAuth } from "../helpers/auth.ts";
import { testDatabase } from "../helpers/backends.ts";
import { createTestCreator, TEST_PASSWORD } from "../helpers/fixtures.ts";
import { FormBrowser } from "../helpers/form-browser.ts";
import { connectOAuth, newVerifier, tokenRequest } from "../helpers/oauth.ts";
import { serveOnFreePort, startApi, testLogger } from "../helpers/server.ts";
import { s256 } from "../../src/modules/oauth/authorization.ts";
import { DASHBOARD_CLIENT_ID, registerDashboardClient } from "../../src/modules/oauth/first-party.ts";
import { purgeExpiredGrants } from "../../src/modules/oauth/jobs.ts";
import { createDashboardApp } from "../../src/apps/dashboard/dashboard-app.ts";

const DASHBOARD_URL = "http://127.0.0.1:4999";
const REDIRECT = `${DASHBOARD_URL}/callback`;

describe("dashboard: first-party sign-in", () => {
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let api: Awaited<ReturnType<typeof startApi>>;

  before(async () => {
    const { db } = await testDatabase();
    await registerDashboardClient(db, DASHBOARD_URL, new Date());
    auth = await startAuth({ dashboardUrl: DASHBOARD_URL });
    api = await startApi();
  });
  after(async () => {
    await auth?.close();
    await api?.close();
  });

  async function signedIn() {
    const creator = await createTestCreator({ projects: 1 });
    const browser = new FormBrowser(auth.url);
    assert.equal((await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD }, "/sign-in")).status, 302);
    return { creator, browser };
  }

  async function dashboardTokens(browser: FormBrowser) {
    const verifier = newVerifier();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: DASHBOARD_CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: "mcp:use",
      state: "s1",
      code_challenge: s256(verifier),
      code_challenge_method: "S256",
    });
    const res = await browser.get(`/oauth/authorize?${query}`);
    assert.equal(res.status, 302, "no consent page: straight back to the dashboard");
    const back = new URL(res.headers.get("location")!);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get("state"), "s1");
    const exchanged = await tokenRequest(auth, {
      grant_type: "authorization_code",
      client_id: DASHBOARD_CLIENT_ID,
      code: back.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
    assert.equal(exchanged.headers.get("access-control-allow-origin"), "*", "a page on the dashboard's origin reads the answer");
    return exchanged.body as { access_token: string; refresh_token: string };
  }

  it("issues a code without a consent page, and its token works on REST as the creator (actor human)", async () => {
    const { creator, browser } = await signedIn();
    const tokens = await dashboardTokens(browser);
    const headers = { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() };
    const created = await fetch(`${api.url}/v1/projects`, { method: "POST", headers, body: JSON.stringify({ name: "From the dashboard" }) });
    assert.equal(created.status, 201, await created.clone().text());
    const project = ((await created.json()) as { data: { id: string; team_id: string } }).data;
    assert.equal(project.team_id, creator.teamId);
    const log = await fetch(`${api.url}/v1/activity?subject_type=project&subject_id=${project.id}`, {
      headers: { authorization: headers.authorization },
    });
    const entries = ((await log.json()) as { data: { actor_kind: string; credential_kind: string }[] }).data;
    assert.ok(entries.length > 0);
    for (const e of entries) assert.deepEqual([e.actor_kind, e.credential_kind], ["human", "oauth_access_token"]);
    // Renewed with the refresh token, as the page does before the hour ends.
    const renewed = await tokenRequest(auth, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: DASHBOARD_CLIENT_ID });
    assert.equal(renewed.status, 200);
    assert.equal((await fetch(`${api.url}/v1/projects`, { headers: { authorization: `Bearer ${renewed.body.access_token}` } })).status, 200);
  });

  it("keeps an MCP client's OAuth token off the REST API", async () => {
    const creator = await createTestCreator();
    const { tokens } = await connectOAuth(auth, creator);
    const res = await fetch(`${api.url}/v1/projects`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(res.status, 401);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /MCP server only/);
  });

  it("sends a signed-out person to sign in first, and the home page links to the dashboard", async () => {
    const anonymous = new FormBrowser(auth.url);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: DASHBOARD_CLIENT_ID,
      redirect_uri: REDIRECT,
      state: "x",
      code_challenge: s256(newVerifier()),
      code_challenge_method: "S256",
    });
    const res = await anonymous.get(`/oauth/authorize?${query}`);
    assert.equal(res.status, 302);
    assert.match(res.headers.get("location")!, /^\/sign-in\?return_to=/);
    const { browser } = await signedIn();
    const home = await (await browser.get("/")).text();
    assert.ok(home.includes(`href="${DASHBOARD_URL}"`), "the signed-in home links to the dashboard");
    assert.match(home, />Dashboard</);
  });

  it("refuses the dashboard's client at another redirect URI", async () => {
    const { browser } = await signedIn();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: DASHBOARD_CLIENT_ID,
      redirect_uri: "https://evil.example/callback",
      state: "x",
      code_challenge: s256(newVerifier()),
      code_challenge_method: "S256",
    });
    const res = await browser.get(`/oauth/authorize?${query}`);
    assert.equal(res.status, 400, "shown, never sent to an unregistered address");
  });

  it("is kept by the purge of unused clients", async () => {
    const { db } = await testDatabase();
    await purgeExpiredGrants.run({ db, now: new Date(Date.now() + 90 * 24 * 3600_000) } as never);
    assert.ok(await db("oauth_clients").where({ client_id: DASHBOARD_CLIENT_ID }).first());
  });
});

describe("dashboard: the surface", () => {
  it("serves its configuration, the app for every page address, and says when it is not built", async () => {
    const dist = mkdtempSync(join(tmpdir(), "dashboard-dist-"));
    mkdirSync(join(dist, "assets"));
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>app</title>");
    writeFileSync(join(dist, "assets", "app-1.js"), "console.log(1)");
    const deps = {
      release: "test",
      logger: testLogger,
      dashboardUrl: DASHBOARD_URL,
      baseUrl: "http://127.0.0.1:4000",
      authUrl: "http://127.0.0.1:4002",
      portalUrl: "http://127.0.0.1:4005",
      docsUrl: "http://127.0.0.1:4004",
      mcpUrl: "http://127.0.0.1:4001",
    };
    const running = await serveOnFreePort(() => createDashboardApp({ ...deps, distDir: dist }));
    try {
      const config = await fetch(`${running.url}/config.json`);
      assert.deepEqual(await config.json(), {
        apiUrl: deps.baseUrl,
        authUrl: deps.authUrl,
        portalUrl: deps.portalUrl,
        docsUrl: deps.docsUrl,
        mcpUrl: deps.mcpUrl,
        clientId: DASHBOARD_CLIENT_ID,
        redirectUri: REDIRECT,
        release: "test",
      });
      const page = await fetch(`${running.url}/projects/abc/members`);
      assert.equal(page.status, 200);
      assert.equal(await page.text(), "<!doctype html><title>app</title>");
      const csp = page.headers.get("content-security-policy")!;
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:4000 http:\/\/127\.0\.0\.1:4002/);
      assert.match(csp, /frame-ancestors 'none'/);
      const asset = await fetch(`${running.url}/assets/app-1.js`);
      assert.equal(asset.status, 200);
      assert.match(asset.headers.get("cache-control")!, /immutable/);
      assert.equal((await fetch(`${running.url}/assets/missing.js`)).status, 404);
      assert.equal((await fetch(`${running.url}/`, { method: "POST" })).status, 405);
    } finally {
      await running.close();
    }
    const unbuilt = await serveOnFreePort(() => createDashboardApp({ ...deps, distDir: join(dist, "nothing") }));
    try {
      const res = await fetch(`${unbuilt.url}/`);
      assert.equal(res.status, 503);
      assert.match(await res.text(), /npm run build:dashboard/);
    } finally {
      await unbuilt.close();
    }
  });
});
