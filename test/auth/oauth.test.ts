// OAuth 2.1 for MCP clients on the authorization server: dynamic client registration (each
// accepted and refused redirect URI class, the rate limit), the authorization endpoint's two ways
// of refusing, the authorization code with PKCE S256 (single use, exact redirect URI, expiry),
// refresh-token rotation with reuse revoking the connection, lifetimes on an injected clock,
// TENANT_MISMATCH, and that no code or token is stored in clear.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startAuth } from "../helpers/auth.ts";
import { testDatabase } from "../helpers/backends.ts";
import { TestClock } from "../helpers/clock.ts";
import { createTestCreator, joinTeamWithToken, type TestCreator } from "../helpers/fixtures.ts";
import { approvedCode, connectOAuth, exchangeCode, newClient, newVerifier, REDIRECT_URI, registerClient, tokenRequest } from "../helpers/oauth.ts";
import { issueAuthorizationCode, s256 } from "../../src/modules/oauth/authorization.ts";
import { OAuthError } from "../../src/modules/oauth/oauth-error.ts";
import { sha256Hex } from "../../src/security/crypto.ts";

const DAY = 24 * 3_600_000;

describe("OAuth 2.1 for MCP clients", () => {
  const clock = new TestClock();
  let auth: { url: string; close(): Promise<void> };
  let creator: TestCreator;
  before(async () => {
    auth = await startAuth({ now: clock.now });
    creator = await createTestCreator({ label: "oauth" });
  });
  after(() => auth.close());

  const refresh = (refreshToken: string, clientId: string) =>
    tokenRequest(auth, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
  const assertRefused = (res: { status: number; body: any }, error: string, description?: RegExp) => {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body), ["error", "error_description"]);
    assert.equal(res.body.error, error, res.body.error_description);
    if (description) assert.match(res.body.error_description, description);
  };

  describe("dynamic client registration", () => {
    it("accepts https, http on loopback and the native clients' private-use schemes", async () => {
      const accepted = [
        "https://client.example/oauth/callback",
        "https://client.example/cb?tenant=a",
        "http://localhost:6274/oauth/callback",
        "http://127.0.0.1/callback",
        "http://[::1]:33418/callback",
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "vscode://vscode.github-authentication/did-authenticate",
        "vscode-insiders://vscode.github-authentication/did-authenticate",
        "windsurf://codeium.windsurf/oauth/callback",
      ];
      for (const uri of accepted) {
        const res = await registerClient(auth, { client_name: "Editor", redirect_uris: [uri] });
        assert.equal(res.status, 201, `${uri}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.client_id, /^sbc_[A-Za-z0-9]{32}$/);
        assert.equal(res.body.client_name, "Editor");
        assert.deepEqual(res.body.redirect_uris, [uri]);
        assert.deepEqual(res.body.grant_types, ["authorization_code", "refresh_token"]);
        assert.deepEqual(res.body.response_types, ["code"]);
        assert.equal(res.body.scope, "mcp:use");
        assert.equal(res.body.token_endpoint_auth_method, "none");
        assert.equal(res.body.client_secret, undefined, "public client: no secret");
      }
    });

    it("refuses other redirect URIs with invalid_redirect_uri naming the URI and why", async () => {
      const refused: [string, RegExp][] = [
        ["http://client.example/callback", /http on a host other than localhost/],
        ["http://localhost.evil.example/callback", /http on a host other than localhost/],
        ["https://client.example/callback#done", /fragment/],
        ["http://localhost:3000/cb#x", /fragment/],
        ["myapp://callback", /scheme myapp/],
        ["javascript:alert(1)", /scheme javascript/],
        ["/relative/callback", /not an absolute URI/],
      ];
      for (const [uri, why] of refused) {
        const res = await registerClient(auth, { client_name: "Editor", redirect_uris: ["https://ok.example/cb", uri] });
        assertRefused(res, "invalid_redirect_uri", why);
        assert.ok(res.body.error_description.includes(JSON.stringify(uri)), res.body.error_description);
      }
      assertRefused(await registerClient(auth, { client_name: "Editor", redirect_uris: [] }), "invalid_redirect_uri", /redirect_uris is required/);
      assertRefused(await registerClient(auth, { client_name: "Editor" }), "invalid_redirect_uri", /redirect_uris is required/);
    });

    it("refuses metadata a public MCP client cannot have with invalid_client_metadata", async () => {
      const base = { client_name: "Editor", redirect_uris: [REDIRECT_URI] };
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ redirect_uris: [REDIRECT_URI] }, /client_name is required/],
        [{ ...base, client_name: "  " }, /client_name is required/],
        [{ ...base, client_name: "Editor\n\nAllow https://evil.example" }, /client_name must be one line/],
        [{ ...base, client_name: "Editor\u202E" }, /client_name must be one line/],
        [{ ...base, token_endpoint_auth_method: "client_secret_basic" }, /token_endpoint_auth_method client_secret_basic/],
        [{ ...base, grant_types: ["authorization_code", "client_credentials"] }, /grant_types client_credentials/],
        [{ ...base, response_types: ["token"] }, /response_types/],
        [{ ...base, scope: "openid" }, /scope openid/],
      ];
      for (const [body, why] of cases) assertRefused(await registerClient(auth, body), "invalid_client_metadata", why);
      const json = await fetch(`${auth.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "client_name=x",
      });
      assert.equal(json.status, 400);
      assert.equal(((await json.json()) as any).error, "invalid_request");
    });

    it("allows 60 registrations per minute per IP, then answers 429 with Retry-After", async () => {
      const limited = await startAuth({ now: clock.now, clientIp: () => "198.51.100.7" });
      try {
        const body = { client_name: "Burst", redirect_uris: [REDIRECT_URI] };
        for (let i = 0; i < 60; i++) assert.equal((await registerClient(limited, body)).status, 201, `registration ${i + 1}`);
        const res = await fetch(`${limited.url}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 429);
        assert.ok(Number(res.headers.get("retry-after")) > 0);
        assert.equal(((await res.json()) as any).error, "too_many_requests");
      } finally {
        await limited.close();
      }
    });
  });

  describe("GET /oauth/authorize", () => {
    let clientId: string;
    before(async () => {
      clientId = await newClient(auth);
    });
    const authorize = (params: Record<string, string>) => fetch(`${auth.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: "manual" });
    const valid = () => ({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: "mcp:use",
      state: "st-123",
      code_challenge: s256(newVerifier()),
      code_challenge_method: "S256",
    });

    it("sends a valid request to sign-in, returning to the same authorize URL", async () => {
      const params = valid();
      const res = await authorize(params);
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get("location")!, auth.url);
      assert.equal(`${location.origin}${location.pathname}`, `${auth.url}/sign-in`);
      assert.equal(location.searchParams.get("return_to"), `/oauth/authorize?${new URLSearchParams(params)}`);
    });

    it("shows the error (never redirects) when the client or its redirect URI cannot be trusted", async () => {
      for (const params of [
        { ...valid(), client_id: "sbc_unknown" },
        { ...valid(), redirect_uri: "http://127.0.0.1:33418/other" },
        { ...valid(), redirect_uri: "" },
      ]) {
        const res = await authorize(params);
        assert.equal(res.status, 400);
        assert.equal(res.headers.get("location"), null);
        // A page for the person (the consent page's frame), naming the error for the app's developer.
        assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
        const page = await res.text();
        assert.match(page, /cannot trust, so nothing was connected/);
        assert.match(page, /<code>invalid_request<\/code>/);
      }
    });

    it("redirects the other faults to the client with error and state (plain PKCE, no challenge, other scope or response type)", async () => {
      const cases: [Record<string, string>, string, RegExp][] = [
        [{ ...valid(), code_challenge_method: "plain" }, "invalid_request", /S256/],
        [{ ...valid(), code_challenge: "" }, "invalid_request", /code_challenge is required/],
        [{ ...valid(), code_challenge: "short" }, "invalid_request", /43 characters/],
        [{ ...valid(), scope: "openid mcp:use" }, "invalid_scope", /mcp:use/],
        [{ ...valid(), response_type: "token" }, "unsupported_response_type", /code/],
      ];
      for (const [params, error, why] of cases) {
        const res = await authorize(params);
        assert.equal(res.status, 302, error);
        const location = new URL(res.headers.get("location")!);
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
        assert.equal(location.searchParams.get("error"), error);
        assert.match(location.searchParams.get("error_description")!, why);
        assert.equal(location.searchParams.get("state"), "st-123");
      }
    });
  });

  describe("authorization code with PKCE", () => {
    it("issues tokens for the right verifier and redirect URI, once; a second use revokes what it issued", async () => {
      const clientId = await newClient(auth);
      const { code, verifier } = await approvedCode({ clientId, userId: creator.userId, teamId: creator.teamId, now: clock.now() });
      assertRefused(await exchangeCode(auth, clientId, code, newVerifier()), "invalid_grant", /code_verifier/);
      assertRefused(await exchangeCode(auth, clientId, code, verifier, "http://127.0.0.1:33418/other"), "invalid_grant", /redirect_uri/);
      assertRefused(await exchangeCode(auth, await newClient(auth), code, verifier), "invalid_grant", /another client/);
      assertRefused(
        await tokenRequest(auth, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT_URI }),
        "invalid_request",
        /code_verifier/,
      );

      const res = await exchangeCode(auth, clientId, code, verifier);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.deepEqual(Object.keys(res.body).sort(), ["access_token", "expires_in", "refresh_token", "scope", "token_type"]);
      assert.match(res.body.access_token, /^sbo_live_\d+_[A-Za-z0-9]{40}$/);
      assert.match(res.body.refresh_token, /^sbr_live_[A-Za-z0-9]{48}$/);
      assert.equal(res.body.token_type, "Bearer");
      assert.equal(res.body.expires_in, 3600);
      assert.equal(res.body.scope, "mcp:use");

      assertRefused(await exchangeCode(auth, clientId, code, verifier), "invalid_grant", /already used/);
      assertRefused(await refresh(res.body.refresh_token, clientId), "invalid_grant", /revoked/);
      const { db } = await testDatabase();
      const id = res.body.access_token.split("_")[2];
      assert.ok((await db("oauth_access_tokens").where({ id }).first("revoked_at")).revoked_at, "the access token is revoked");
    });

    it("refuses plain PKCE, another scope or an unregistered redirect URI when the code is issued", async () => {
      const { db } = await testDatabase();
      const clientId = await newClient(auth);
      const request = {
        clientId,
        redirectUri: REDIRECT_URI,
        codeChallenge: s256(newVerifier()),
        codeChallengeMethod: "S256",
        scope: "mcp:use",
        userId: creator.userId,
        teamId: creator.teamId,
        now: clock.now(),
      };
      const cases: [Partial<typeof request>, string][] = [
        [{ codeChallengeMethod: "plain", codeChallenge: newVerifier() }, "invalid_request"],
        [{ scope: "openid" }, "invalid_scope"],
        [{ redirectUri: "http://127.0.0.1:1/elsewhere" }, "invalid_request"],
        [{ clientId: "sbc_nobody" }, "invalid_request"],
      ];
      for (const [change, error] of cases) {
        await assert.rejects(
          issueAuthorizationCode(db, { ...request, ...change }),
          (err: unknown) => err instanceof OAuthError && err.error === error,
        );
      }
    });

    it("lets a code live 60 seconds", async () => {
      const clientId = await newClient(auth);
      const first = await approvedCode({ clientId, userId: creator.userId, teamId: creator.teamId, now: clock.now() });
      const second = await approvedCode({ clientId, userId: creator.userId, teamId: creator.teamId, now: clock.now() });
      clock.advance(59_000);
      assert.equal((await exchangeCode(auth, clientId, first.code, first.verifier)).status, 200);
      clock.advance(1_000);
      assertRefused(await exchangeCode(auth, clientId, second.code, second.verifier), "invalid_grant", /expired/);
    });

    it("stores codes and tokens only as hashes", async () => {
      const { db } = await testDatabase();
      const clientId = await newClient(auth);
      const { code, verifier } = await approvedCode({ clientId, userId: creator.userId, teamId: creator.teamId, now: clock.now() });
      assert.ok(
        await db("oauth_authorization_codes")
          .where({ code_hash: sha256Hex(code) })
          .first(),
      );
      const { body } = await exchangeCode(auth, clientId, code, verifier);
      const [, , id, secret] = body.access_token.split("_");
      const rows = [
        ...(await db("oauth_authorization_codes").where({ client_id: clientId })),
        ...(await db("oauth_access_tokens").where({ client_id: clientId })),
        ...(await db("oauth_refresh_tokens").where({ client_id: clientId })),
      ];
      const text = JSON.stringify(rows);
      for (const clear of [code, secret, body.refresh_token]) assert.ok(!text.includes(clear), "nothing stored in clear");
      assert.equal((await db("oauth_access_tokens").where({ id }).first()).secret_hash, sha256Hex(secret));
      assert.ok(
        await db("oauth_refresh_tokens")
          .where({ token_hash: sha256Hex(body.refresh_token) })
          .first(),
      );
    });
  });

  describe("refresh tokens", () => {
    it("rotates on every renewal; the spent one is refused and its reuse revokes the connection", async () => {
      const { clientId, tokens } = await connectOAuth(auth, creator, clock.now());
      const renewed = await refresh(tokens.refresh_token, clientId);
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      assert.notEqual(renewed.body.refresh_token, tokens.refresh_token);
      assert.notEqual(renewed.body.access_token, tokens.access_token);
      assert.equal(renewed.body.expires_in, 3600);

      assertRefused(await refresh(tokens.refresh_token, clientId), "invalid_grant", /already used/);
      // The reuse revoked the family: the token that replaced it is refused too, and so are its access tokens.
      assertRefused(await refresh(renewed.body.refresh_token, clientId), "invalid_grant", /revoked/);
      const { db } = await testDatabase();
      const live = await db("oauth_access_tokens")
        .whereIn(
          "id",
          [tokens.access_token, renewed.body.access_token].map((t: string) => t.split("_")[2]),
        )
        .whereNull("revoked_at");
      assert.equal(live.length, 0);
    });

    it("refuses a refresh token presented by another client, or unknown, without revoking it", async () => {
      const { clientId, tokens } = await connectOAuth(auth, creator, clock.now());
      assertRefused(await refresh(tokens.refresh_token, await newClient(auth)), "invalid_grant", /another client/);
      assertRefused(await refresh("sbr_live_unknown", clientId), "invalid_grant");
      assertRefused(await tokenRequest(auth, { grant_type: "refresh_token", client_id: clientId }), "invalid_request", /refresh_token is required/);
      assert.equal((await refresh(tokens.refresh_token, clientId)).status, 200);
    });

    it("answers an unregistered (or purged) client_id with 401 invalid_client, so the client registers again", async () => {
      const { tokens } = await connectOAuth(auth, creator, clock.now());
      const unknown = await refresh(tokens.refresh_token, "sbc_never_registered");
      assert.equal(unknown.status, 401);
      assert.equal(unknown.body.error, "invalid_client");
      const exchange = await exchangeCode(auth, "sbc_never_registered", "code", newVerifier());
      assert.equal(exchange.status, 401);
      assert.equal(exchange.body.error, "invalid_client");
    });

    it("lives 30 days from its last use", async () => {
      const { clientId, tokens } = await connectOAuth(auth, creator, clock.now());
      clock.advance(29 * DAY);
      const renewed = await refresh(tokens.refresh_token, clientId);
      assert.equal(renewed.status, 200);
      clock.advance(29 * DAY);
      const again = await refresh(renewed.body.refresh_token, clientId);
      assert.equal(again.status, 200, "58 days after approval, 29 after the last use");
      clock.advance(30 * DAY);
      assertRefused(await refresh(again.body.refresh_token, clientId), "invalid_grant", /expired/);
    });
  });

  describe("TENANT_MISMATCH", () => {
    it("refuses to issue a code for a creator who belongs to no team (or not to the one named)", async () => {
      const { db } = await testDatabase();
      const clientId = await newClient(auth);
      const stranger = await createTestCreator({ label: "stranger" });
      for (const teamId of [null, stranger.teamId, randomUUID()]) {
        await assert.rejects(
          approvedCode({ clientId, userId: creator.userId, teamId, now: clock.now() }),
          (err: unknown) => err instanceof OAuthError && err.error === "access_denied" && /^TENANT_MISMATCH: /.test(err.description),
        );
      }
      assert.equal((await db("oauth_authorization_codes").where({ client_id: clientId })).length, 0);
    });

    it("refuses the exchange and the renewal once the creator left the team", async () => {
      const { db } = await testDatabase();
      const owner = await createTestCreator({ label: "owner" });
      const member = await createTestCreator({ label: "member" });
      await joinTeamWithToken(owner, member, ["team:view"]);
      const { clientId, tokens } = await connectOAuth(auth, { userId: member.userId, teamId: owner.teamId }, clock.now());
      const pending = await approvedCode({ clientId, userId: member.userId, teamId: owner.teamId, now: clock.now() });
      await db("team_members").where({ team_id: owner.teamId, user_id: member.userId }).delete();
      assertRefused(await exchangeCode(auth, clientId, pending.code, pending.verifier), "invalid_grant", /^TENANT_MISMATCH: /);
      assertRefused(await refresh(tokens.refresh_token, clientId), "invalid_grant", /^TENANT_MISMATCH: /);
    });

    it("a renewal refused for a creator who left ends the connection: rejoining does not revive it", async () => {
      const { db } = await testDatabase();
      const owner = await createTestCreator({ label: "owner" });
      const member = await createTestCreator({ label: "member" });
      await joinTeamWithToken(owner, member, ["team:view"]);
      const { clientId, tokens } = await connectOAuth(auth, { userId: member.userId, teamId: owner.teamId }, clock.now());
      const membership = await db("team_members").where({ team_id: owner.teamId, user_id: member.userId }).first();
      await db("team_members").where({ id: membership.id }).delete();
      assertRefused(await refresh(tokens.refresh_token, clientId), "invalid_grant", /^TENANT_MISMATCH: /);
      await db("team_members").insert(membership);
      assertRefused(await refresh(tokens.refresh_token, clientId), "invalid_grant", /revoked/);
      const access = await db("oauth_access_tokens").where({ client_id: clientId });
      assert.ok(access.length > 0 && access.every((row: { revoked_at: Date | null }) => row.revoked_at !== null));
    });
  });
});
