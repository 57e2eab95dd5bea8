// CORS on the MCP host: any origin, never credentials, preflight answered before authentication
// (and without spending the unauthenticated budget), exposure of the headers clients need.
import assert from "node:assert/strict";
import { rawRequest, rawRpc, useMcpWithCreator } from "../helpers/mcp.ts";

const DESCRIBED_ALLOW_HEADERS = ["Authorization", "Content-Type", "Accept", "MCP-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"];
const EXPOSE = "MCP-Session-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, WWW-Authenticate";

describe("mcp cors", () => {
  const suite = useMcpWithCreator();

  const preflight = () =>
    rawRequest(suite.mcp, "OPTIONS", "/", {
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name",
      },
    });

  it("answers the preflight without credentials, before authentication", async () => {
    const res = await preflight();
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("access-control-allow-methods"), "POST, GET, DELETE, OPTIONS");
    const allowed = res.headers
      .get("access-control-allow-headers")!
      .split(",")
      .map((h) => h.trim());
    assert.deepEqual(allowed.slice(0, DESCRIBED_ALLOW_HEADERS.length), DESCRIBED_ALLOW_HEADERS);
    for (const needed of ["Mcp-Method", "Mcp-Name"]) assert.ok(allowed.includes(needed), `a 2026-07-28 browser client sends ${needed}`);
    assert.equal(res.headers.get("access-control-max-age"), "86400");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    assert.equal(res.headers.get("www-authenticate"), null);
    assert.equal(res.text, "");
  });

  it("does not count preflights against the unauthenticated budget", async () => {
    for (let i = 0; i < 8; i++) assert.equal((await preflight()).status, 204);
    const res = await rawRpc(suite.mcp, "tools/list", { token: null });
    assert.equal(res.status, 401);
  });

  it("sends allow-origin and the exposed headers on answers, never allow-credentials", async () => {
    const unauthenticated = await rawRpc(suite.mcp, "tools/list", { token: null, headers: { origin: `${suite.mcp.url}` } });
    const ok = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token });
    const metadata = await rawRequest(suite.mcp, "GET", "/.well-known/oauth-protected-resource");
    for (const res of [unauthenticated, ok, metadata]) {
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.equal(res.headers.get("access-control-expose-headers"), EXPOSE);
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
    }
    assert.equal(unauthenticated.status, 401);
    assert.equal(ok.status, 200);
  });
});
