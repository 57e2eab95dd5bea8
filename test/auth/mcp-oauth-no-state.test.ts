// OAuth 2.1 as the official MCP client runs it, with a provider that has no state() (issue 47):
// the SDK's auth() helper discovers the authorization server from the MCP server's
// protected-resource metadata, registers the client dynamically and sends the creator to
// /oauth/authorize without state; the creator signs in and approves on the pages (driven over
// HTTP, as a browser without JavaScript would); the code comes back without state, auth() exchanges
// it, the client (configured as the MCP guide shows) calls a tool, and an hour later the SDK renews
// the expired access token with the refresh token and repeats the call.
import assert from "node:assert/strict";
import { auth as runOAuth, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startAuth } from "../helpers/auth.ts";
import { TestClock } from "../helpers/clock.ts";
import { createTestCreator, TEST_PASSWORD, type TestCreator } from "../helpers/fixtures.ts";
import { FormBrowser } from "../helpers/form-browser.ts";
import { startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { REDIRECT_URI } from "../helpers/oauth.ts";
import { MemoryOAuthProvider } from "../helpers/oauth-client-provider.ts";

const CLIENT_NAME = "Stateless MCP client (e2e)";

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The hidden inputs of the consent page's Approve form (CSRF token, the request, the team). */
function approveForm(page: string): Record<string, string> {
  const form = /<form method="post" action="\/oauth\/authorize" class="consent-actions">([\s\S]*?)<\/form>/.exec(page)?.[1];
  assert.ok(form, "the consent page has its form");
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[name!] = unescapeHtml(value!);
  return fields;
}

describe("MCP client OAuth 2.1 without state (SDK v2 auth(), pages over HTTP)", function () {
  this.timeout(60_000);
  const clock = new TestClock();
  let authServer: Awaited<ReturnType<typeof startAuth>>;
  let mcp: RunningMcp;
  let creator: TestCreator;
  before(async () => {
    authServer = await startAuth({ now: clock.now });
    creator = await createTestCreator({ label: "mcp-oauth-no-state" });
    mcp = await startMcp({ clock, authUrl: authServer.url });
    // The two servers name each other; the auth pages read mcpUrl per request.
    authServer.deps.mcpUrl = mcp.url;
  });
  after(async () => {
    await mcp?.close();
    await authServer?.close();
  });

  /** The creator's part: sign in, open the authorization URL, approve; returns the redirect's query. */
  async function signInAndApprove(url: URL, sentState?: string): Promise<URLSearchParams> {
    const browser = new FormBrowser(authServer.url);
    assert.equal((await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD }, "/sign-in")).status, 302);
    const consent = await browser.get(`${url.pathname}${url.search}`);
    assert.equal(consent.status, 200);
    const page = await consent.text();
    assert.match(page, new RegExp(`Connect ${CLIENT_NAME.replace(/[()]/g, "\\$&")}\\?`));
    const fields = approveForm(page);
    assert.equal(fields.state, sentState, "the form carries the state as sent, or none");
    const answer = await browser.request("POST", "/oauth/authorize", { ...fields, decision: "approve" });
    assert.equal(answer.status, 302);
    const location = new URL(answer.headers.get("location")!);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
    return location.searchParams;
  }

  it("discovers, registers, authorizes without state, exchanges, calls a tool and renews with the refresh token", async () => {
    const provider = new MemoryOAuthProvider(CLIENT_NAME, REDIRECT_URI);
    const serverUrl = new URL(mcp.url);

    // 1. Discovery, dynamic registration and the authorization URL, by the SDK's auth() helper.
    assert.equal(await runOAuth(provider, { serverUrl }), "REDIRECT");
    assert.match(provider.client?.client_id ?? "", /^sbc_/, "the client registered itself dynamically");
    const url = provider.authorizationUrl!;
    assert.equal(url.origin, authServer.url, "the client found the authorization server through the MCP server");
    assert.equal(url.searchParams.get("state"), null, "the SDK sent no state");
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");

    // 2. The creator approves; the code comes back without state.
    const returned = await signInAndApprove(url);
    assert.equal(returned.get("state"), null);
    assert.equal(returned.get("error"), null, returned.get("error_description") ?? "");
    const code = returned.get("code");
    assert.ok(code, "an authorization code");

    // 3. The token exchange, by auth() again.
    assert.equal(await runOAuth(provider, { serverUrl, authorizationCode: code }), "AUTHORIZED");
    assert.equal(provider.history.length, 1);
    assert.match(provider.saved?.refresh_token ?? "", /^sbr_live_/);

    // 4. The client as the guide configures it, with the provider in place of the header.
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    const client = new Client({ name: "my-agent", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "list_projects"));
      const listed = await client.callTool({ name: "list_projects", arguments: {} });
      assert.equal(listed.isError, undefined, JSON.stringify(listed));
      assert.equal((listed.structuredContent as any).data[0].id, creator.projectIds[0]);

      // 5. An hour later the access token has expired: the SDK renews it and repeats the call.
      clock.advance(3_600_000 + 60_000);
      const again = await client.callTool({ name: "list_projects", arguments: {} });
      assert.equal(again.isError, undefined, JSON.stringify(again));
      assert.equal(provider.history.length, 2, "the tokens were renewed once");
      assert.notEqual(provider.saved!.refresh_token, provider.history[0]!.refresh_token, "the refresh token rotated");
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it("still echoes a state the client sends; a refusal redirected without one carries none", async () => {
    const provider = new MemoryOAuthProvider(CLIENT_NAME, REDIRECT_URI);
    await runOAuth(provider, { serverUrl: new URL(mcp.url) });
    const withState = new URL(provider.authorizationUrl!);
    withState.searchParams.set("state", "kept-as-sent");
    const returned = await signInAndApprove(withState, "kept-as-sent");
    assert.equal(returned.get("state"), "kept-as-sent");
    assert.ok(returned.get("code"));

    // A fault redirected to the client carries no state when none was sent.
    const plain = new URL(provider.authorizationUrl!);
    plain.searchParams.set("code_challenge_method", "plain");
    const refused = await fetch(plain, { redirect: "manual" });
    assert.equal(refused.status, 302);
    const location = new URL(refused.headers.get("location")!);
    assert.equal(location.searchParams.get("error"), "invalid_request");
    assert.equal(location.searchParams.has("state"), false);
  });
});
