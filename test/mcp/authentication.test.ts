// Bearer tokens on the MCP endpoint: the REST resolver, the RFC 9728 challenge, the metadata it
// points to, and nothing else (no cookies).
import assert from "node:assert/strict";
import { AUTH_URL, connectMcp, rawRequest, rawRpc, useMcpWithCreator } from "../helpers/mcp.ts";
import { DOCS_URL } from "../helpers/server.ts";

describe("mcp authentication", () => {
  const suite = useMcpWithCreator();

  it("answers 401 with the protected-resource challenge, quoted", async () => {
    const [, , id] = suite.creator.token.split("_");
    const cases: Record<string, Record<string, string>> = {
      "no credentials": {},
      "unknown token": { authorization: `Bearer sbt_live_${id}_${"x".repeat(40)}` },
      "a session cookie instead of a token": { cookie: "subbridge_session=abc; XSRF-TOKEN=def" },
    };
    for (const [label, headers] of Object.entries(cases)) {
      const res = await rawRpc(suite.mcp, "tools/list", { token: null, headers });
      assert.equal(res.status, 401, label);
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer resource_metadata="${suite.mcp.url}/.well-known/oauth-protected-resource", scope="mcp:use"`,
        label,
      );
      assert.equal(res.body.error.code, "AUTHENTICATION_REQUIRED", label);
      assert.equal(res.body.error.request_id, res.headers.get("x-request-id"));
      assert.equal(res.headers.get("x-ratelimit-limit"), null, `${label}: no token budget is reported`);
    }
  });

  it("makes an SDK client without a token fail to connect with a 401", async () => {
    await assert.rejects(connectMcp(suite.mcp, null), (err: Error) => /401|authoriz/i.test(err.message));
  });

  it("accepts the same personal access tokens as REST", async () => {
    const res = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-ratelimit-limit"), "120");
  });

  it("serves the RFC 9728 protected-resource metadata without credentials", async () => {
    const res = await rawRequest(suite.mcp, "GET", "/.well-known/oauth-protected-resource");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      resource: suite.mcp.url,
      resource_name: "SubBridge MCP server",
      authorization_servers: [AUTH_URL],
      scopes_supported: ["mcp:use"],
      bearer_methods_supported: ["header"],
      resource_documentation: DOCS_URL,
    });
    assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  });
});
