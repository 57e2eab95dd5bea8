// End to end, as an MCP client runs OAuth 2.1 (MCP SDK v2, its OAuthClientProvider): the MCP
// server's 401 challenge leads the client to the protected-resource metadata, from there to this
// authorization server; the client registers itself, sends the creator (Chromium) through sign-in
// and the consent page, reads code and state at its loopback redirect URI, finishes the flow,
// calls a tool as the creator, and renews its expired access token with the refresh token; the
// spent refresh token is then refused (invalid_grant). Also checks that the two servers point at
// each other in their discovery documents, with the discovery cache and CORS headers.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import { startAuth } from "../helpers/auth.ts";
import { freshPage, launchBrowser, screenshot } from "../helpers/browser.ts";
import { allOrNothing } from "../helpers/open-resources.ts";
import { TestClock } from "../helpers/clock.ts";
import { createTestCreator, TEST_PASSWORD, type TestCreator } from "../helpers/fixtures.ts";
import { MCP_PROTOCOL, rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { tokenRequest } from "../helpers/oauth.ts";
import { startOAuthCallback, type OAuthCallback } from "../helpers/oauth-callback.ts";
import { MemoryOAuthProvider } from "../helpers/oauth-client-provider.ts";

const CLIENT_NAME = "Example MCP client (e2e)";

/** The shared in-memory provider with a state() of its own, kept to check it comes back unchanged. */
class TestOAuthProvider extends MemoryOAuthProvider {
  sentState = "";
  constructor(callbackUrl: string, openBrowser: (url: URL) => Promise<void>) {
    super(CLIENT_NAME, callbackUrl, openBrowser);
  }
  state(): string {
    this.sentState = randomBytes(16).toString("base64url");
    return this.sentState;
  }
}

describe("MCP client OAuth 2.1, end to end (SDK v2 + Chromium)", function () {
  this.timeout(120_000);
  const clock = new TestClock();
  let browser: Browser;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let mcp: RunningMcp;
  let callback: OAuthCallback;
  let creator: TestCreator;
  before(async () => {
    [browser, auth, callback, creator] = await allOrNothing([
      launchBrowser(),
      startAuth({ now: clock.now }),
      startOAuthCallback(),
      createTestCreator({ label: "mcp-oauth" }),
    ]);
    mcp = await startMcp({ clock, authUrl: auth.url });
    // The two servers name each other; the auth pages read mcpUrl per request.
    auth.deps.mcpUrl = mcp.url;
  });
  after(async () => {
    await browser?.close();
    await mcp?.close();
    await auth?.close();
    await callback?.close();
  });

  it("points the MCP server's protected-resource metadata at the authorization server; discovery documents are cacheable and open to any origin", async () => {
    const prm = await fetch(`${mcp.url}/.well-known/oauth-protected-resource`);
    assert.equal(prm.status, 200);
    const metadata = (await prm.json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
    assert.equal(metadata.resource, mcp.url);
    assert.deepEqual(metadata.authorization_servers, [auth.url]);
    assert.deepEqual(metadata.scopes_supported, ["mcp:use"]);
    for (const url of [
      `${mcp.url}/.well-known/oauth-protected-resource`,
      `${auth.url}/.well-known/oauth-authorization-server`,
      `${auth.url}/.well-known/openid-configuration`,
    ]) {
      const res = await fetch(url);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get("cache-control"), "public, max-age=3600", url);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", url);
    }
    const server = (await (await fetch(`${auth.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
    assert.equal(server.issuer, auth.url);
  });

  it("discovers, registers, gets the creator's approval in the browser, calls a tool, renews, and the spent refresh token is refused", async () => {
    const { context, page } = await freshPage(browser);
    let received: URLSearchParams | undefined;
    const approveInBrowser = async (url: URL) => {
      received = await signInAndApprove(page, url);
    };
    const provider = new TestOAuthProvider(callback.url, approveInBrowser);
    const connect = async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${mcp.url}/`), { authProvider: provider });
      const client = new Client({ name: "e2e-oauth-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MCP_PROTOCOL } } });
      await client.connect(transport);
      return { client, transport };
    };

    // 1. No token: the 401 challenge starts discovery, registration and the browser leg.
    const first = new StreamableHTTPClientTransport(new URL(`${mcp.url}/`), { authProvider: provider });
    const firstClient = new Client({ name: "e2e-oauth-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MCP_PROTOCOL } } });
    await assert.rejects(firstClient.connect(first), (err: unknown) => err instanceof UnauthorizedError);
    assert.ok(provider.client?.client_id, "the client registered itself dynamically");
    assert.ok(received, "the browser reached the redirect URI");
    assert.equal(received.get("state"), provider.sentState, "the state came back unchanged");
    const code = received.get("code");
    assert.ok(code, "an authorization code");
    await first.finishAuth(code);
    await firstClient.close().catch(() => undefined);
    assert.equal(provider.history.length, 1);
    assert.equal(provider.saved?.token_type, "Bearer");
    assert.equal(provider.saved?.expires_in, 3600);
    assert.match(provider.saved?.refresh_token ?? "", /^sbr_live_/);

    // 2. Connected with the access token: a tool call acts as the creator on their team.
    const { client } = await connect();
    try {
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === "list_projects"),
        "list_projects is among the default tools",
      );
      const listed = await client.callTool({ name: "list_projects", arguments: {} });
      assert.equal(listed.isError, undefined, JSON.stringify(listed));
      assert.equal((listed.structuredContent as any).data[0].id, creator.projectIds[0]);

      // 3. An hour later the access token has expired: the server answers 401, the SDK renews with
      // the refresh token and repeats the call.
      clock.advance(3_600_000 + 60_000);
      const oldRefresh = provider.saved!.refresh_token!;
      const again = await client.callTool({ name: "list_projects", arguments: {} });
      assert.equal(again.isError, undefined, JSON.stringify(again));
      assert.equal(provider.history.length, 2, "the tokens were renewed once");
      assert.notEqual(provider.saved!.refresh_token, oldRefresh, "the refresh token rotated");
      assert.notEqual(provider.saved!.access_token, provider.history[0]!.access_token);

      // 4. The spent refresh token is refused; presenting it again ends the connection (reuse).
      const reused = await tokenRequest(auth, { grant_type: "refresh_token", refresh_token: oldRefresh, client_id: provider.client!.client_id });
      assert.equal(reused.status, 400, JSON.stringify(reused.body));
      assert.equal(reused.body.error, "invalid_grant");
      const after = await rawRpc(mcp, "tools/call", { token: provider.saved!.access_token, params: { name: "list_projects", arguments: {} } });
      assert.equal(after.status, 401, "the connection's access token stopped working");
    } finally {
      await client.close().catch(() => undefined);
    }
    await context.close();
  });

  /** The person's part: sign in, look at the consent page, approve; returns what the redirect URI got. */
  async function signInAndApprove(page: Page, url: URL): Promise<URLSearchParams> {
    assert.equal(url.origin, auth.url, "the client found the authorization server through the MCP server");
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    assert.equal(url.searchParams.get("scope"), "mcp:use");
    await page.goto(url.toString());
    await page.getByLabel("Email").fill(creator.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `Connect ${CLIENT_NAME}?` }).waitFor();
    assert.match(await page.locator("main").innerText(), new RegExp(`MCP server only \\(${mcp.url.replace(/[.]/g, "\\.")}\\)`));
    await screenshot(page, "mcp-client-consent");
    const [params] = await Promise.all([callback.next(), page.getByRole("button", { name: "Approve" }).click()]);
    return params;
  }
});
