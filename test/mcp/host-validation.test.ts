// DNS-rebinding protection: Host must name this server; a browser Origin must too, unless the
// operator allows more names (MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS).
import assert from "node:assert/strict";
import { loadConfig, ConfigError } from "../../src/config.ts";
import { hostPolicy } from "../../src/apps/mcp/host-validation.ts";
import { createTestCreator, type TestCreator } from "../helpers/fixtures.ts";
import { rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";

describe("mcp host validation", () => {
  let mcp: RunningMcp;
  let open: RunningMcp;
  let creator: TestCreator;
  before(async () => {
    mcp = await startMcp();
    open = await startMcp({ allowedHosts: ["mcp.example.com"], allowedOrigins: ["*"] });
    creator = await createTestCreator();
  });
  after(() => Promise.all([mcp.close(), open.close()]));

  it("refuses a foreign Host or Origin with 403 before anything else", async () => {
    const port = new URL(mcp.url).port;
    const host = await rawRpc(mcp, "server/discover", {
      token: creator.token,
      headers: { host: "evil.example.com", origin: "http://evil.example.com" },
    });
    assert.equal(host.status, 403);
    assert.equal(host.body.error.code, "FORBIDDEN");
    const origin = await rawRpc(mcp, "server/discover", { token: creator.token, headers: { origin: "https://evil.example.com" } });
    assert.equal(origin.status, 403);
    const unauthenticated = await rawRpc(mcp, "server/discover", { token: null, headers: { host: `evil.example.com:${port}` } });
    assert.equal(unauthenticated.status, 403, "the guard runs before authentication");
    // Each value is judged on its own however often values were seen (the verdicts are kept per value).
    for (let i = 0; i < 2; i++) {
      assert.equal((await rawRpc(mcp, "server/discover", { token: creator.token, headers: { host: "evil.example.com" } })).status, 403);
      assert.equal((await rawRpc(mcp, "server/discover", { token: creator.token, headers: { host: `localhost:${port}` } })).status, 200);
      assert.equal((await rawRpc(mcp, "server/discover", { token: creator.token, headers: { origin: "https://evil.example.com" } })).status, 403);
      assert.equal((await rawRpc(mcp, "server/discover", { token: creator.token, headers: { origin: mcp.url } })).status, 200);
    }
  });

  it("accepts its own and the localhost names, with or without an Origin", async () => {
    const port = new URL(mcp.url).port;
    for (const headers of [{} as Record<string, string>, { host: `localhost:${port}`, origin: `http://localhost:${port}` }, { origin: mcp.url }]) {
      const res = await rawRpc(mcp, "server/discover", { token: creator.token, headers });
      assert.equal(res.status, 200, JSON.stringify(headers));
    }
  });

  it("accepts configured extra hosts and, with *, any origin", async () => {
    const res = await rawRpc(open, "server/discover", {
      token: creator.token,
      headers: { host: "mcp.example.com", origin: "https://agent.example" },
    });
    assert.equal(res.status, 200);
    const still = await rawRpc(open, "server/discover", { token: creator.token, headers: { host: "evil.example.com" } });
    assert.equal(still.status, 403);
  });

  it("derives the policy from MCP_URL and the config", () => {
    assert.deepEqual(hostPolicy("https://mcp.subbridge.dev", [], []), { hosts: ["mcp.subbridge.dev"], origins: ["mcp.subbridge.dev"] });
    assert.deepEqual(hostPolicy("http://localhost:4001", [], ["app.example"]).hosts, ["localhost", "127.0.0.1", "[::1]"]);
    assert.deepEqual(hostPolicy("http://localhost:4001", [], ["app.example"]).origins, ["localhost", "127.0.0.1", "[::1]", "app.example"]);
    const config = loadConfig({ MCP_ALLOWED_HOSTS: "MCP.Internal, 10.0.0.5", MCP_ALLOWED_ORIGINS: "*" });
    assert.deepEqual(config.mcpAllowedHosts, ["mcp.internal", "10.0.0.5"]);
    assert.deepEqual(config.mcpAllowedOrigins, ["*"]);
    assert.throws(() => loadConfig({ MCP_ALLOWED_HOSTS: "https://mcp.example.com" }), ConfigError);
    assert.throws(() => loadConfig({ MCP_ALLOWED_HOSTS: "mcp.example.com:443" }), ConfigError);
    assert.ok(loadConfig({}).surfaces.includes("mcp"), "npm start serves the MCP surface");
  });
});
