// The authorization server's surface: its RFC 8414 metadata at both addresses (with the agent_auth
// block), the discovery rules, the token endpoint's form handling, and `{error, error_description}`
// for every refusal.
import assert from "node:assert/strict";
import { startAuth } from "../helpers/auth.ts";

describe("authorization server surface", () => {
  let auth: { url: string; close(): Promise<void> };
  before(async () => {
    auth = await startAuth();
  });
  after(() => auth.close());

  it("publishes one RFC 8414 document at /.well-known/oauth-authorization-server and /.well-known/openid-configuration", async () => {
    const [a, b] = await Promise.all(["oauth-authorization-server", "openid-configuration"].map((name) => fetch(`${auth.url}/.well-known/${name}`)));
    for (const res of [a!, b!]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    }
    const doc = (await a!.json()) as Record<string, any>;
    assert.deepEqual(await b!.json(), doc);
    assert.equal(doc.issuer, auth.url);
    assert.equal(doc.authorization_endpoint, `${auth.url}/oauth/authorize`);
    assert.equal(doc.token_endpoint, `${auth.url}/oauth/token`);
    assert.equal(doc.registration_endpoint, `${auth.url}/oauth/register`);
    assert.deepEqual(doc.response_types_supported, ["code"]);
    assert.deepEqual(doc.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(doc.scopes_supported, ["mcp:use"]);
    assert.deepEqual(doc.grant_types_supported, ["authorization_code", "refresh_token"]);
    assert.equal(doc.jwks_uri, undefined, "no jwks_uri");
    assert.equal(doc.id_token_signing_alg_values_supported, undefined, "no ID token");
    assert.deepEqual(doc.agent_auth, {
      identity_endpoint: `${auth.url}/agent/identity`,
      register_uri: `${auth.url}/agent/identity`,
      claim_endpoint: `${auth.url}/agent/identity/claim`,
      claim_uri: `${auth.url}/agent/identity/claim`,
      identity_types_supported: ["service_auth", "identity_assertion"],
      identity_assertion: { assertion_types_supported: ["verified_email"] },
      credential_types_supported: ["access_token"],
      events_supported: [],
    });
    const head = await fetch(`${auth.url}/.well-known/oauth-authorization-server`, { method: "HEAD" });
    assert.equal(head.status, 200);
  });

  it("answers a browser opening a POST endpoint with 405 and Allow, on a page saying what it is; an unknown page 404", async () => {
    for (const path of ["/oauth/token", "/oauth/register", "/agent/identity"]) {
      const page = await fetch(`${auth.url}${path}`, { headers: { accept: "text/html" } });
      assert.equal(page.status, 405, path);
      assert.equal(page.headers.get("allow"), "POST");
      assert.match(await page.text(), /endpoint for applications \(it takes POST\)/);
      const client = await fetch(`${auth.url}${path}`, { headers: { accept: "application/json" } });
      assert.equal(client.status, 405, path);
      assert.equal(client.headers.get("allow"), "POST");
    }
    assert.equal((await fetch(`${auth.url}/no-such-page`, { headers: { accept: "text/html" } })).status, 404);
  });

  it("answers refusals as {error, error_description}: unknown grant, missing grant, JSON to the token endpoint, unknown path", async () => {
    const token = (body: string, type = "application/x-www-form-urlencoded") =>
      fetch(`${auth.url}/oauth/token`, { method: "POST", headers: { "content-type": type }, body });
    const cases: [Promise<Response>, number, string][] = [
      [token("grant_type=password&username=a&password=b"), 400, "unsupported_grant_type"],
      [token("code=abc"), 400, "invalid_request"],
      [token('{"grant_type":"authorization_code"}', "application/json"), 400, "invalid_request"],
      [token("grant_type=a&grant_type=b"), 400, "invalid_request"],
      [fetch(`${auth.url}/nowhere`), 404, "not_found"],
      [fetch(`${auth.url}/oauth/token`), 405, "invalid_request"],
    ];
    for (const [pending, status, error] of cases) {
      const res = await pending;
      assert.equal(res.status, status, error);
      const body = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ["error", "error_description"]);
      assert.equal(body.error, error);
      assert.equal(typeof body.error_description, "string");
      assert.ok(res.headers.get("x-request-id"));
    }
  });
});
