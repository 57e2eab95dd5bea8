// The 2026-07-28 Streamable HTTP transport: discovery, only that protocol version, POST only,
// stateless (no session, no handshake), and the routing headers checked against the body.
import assert from "node:assert/strict";
import { ProtocolError } from "@modelcontextprotocol/client";
import { connectMcp, ENVELOPE_META, MCP_PROTOCOL, rawRequest, rawRpc, rawToolHeaders, useMcpWithCreator } from "../helpers/mcp.ts";

describe("mcp transport", () => {
  const suite = useMcpWithCreator();

  it("answers server/discover to a client pinned to 2026-07-28", async () => {
    const client = await connectMcp(suite.mcp, suite.creator.token);
    try {
      assert.equal(client.getProtocolEra(), "modern");
      assert.equal(client.getNegotiatedProtocolVersion(), MCP_PROTOCOL);
      assert.deepEqual(client.getServerVersion(), { name: "subbridge", title: "SubBridge", version: "3.0.0" });
      const discover = client.getDiscoverResult()!;
      assert.deepEqual(discover.supportedVersions, [MCP_PROTOCOL]);
      assert.deepEqual(discover.capabilities.tools, { listChanged: false });
      assert.deepEqual(discover.capabilities.resources, { listChanged: false, subscribe: false });
      assert.deepEqual(discover.capabilities.prompts, { listChanged: false });
      assert.match(client.getInstructions() ?? "", /isError/);
      assert.equal(typeof discover.ttlMs, "number");
      assert.equal(discover.cacheScope, "public");
      const prompts = await client.listPrompts(undefined, { cacheMode: "bypass" });
      assert.deepEqual(prompts.prompts, []);
    } finally {
      await client.close();
    }
  });

  it("serves any request on its own, with no handshake or session", async () => {
    const res = await rawRpc(suite.mcp, "tools/call", { token: suite.creator.token, params: { name: "get_current_team", arguments: {} } });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.structuredContent.data.id, suite.creator.teamId);
    assert.equal(res.headers.get("mcp-session-id"), null);
    const withSession = await rawRpc(suite.mcp, "server/discover", { token: suite.creator.token, headers: { "mcp-session-id": "abc" } });
    assert.equal(withSession.status, 200);
    assert.equal(withSession.headers.get("mcp-session-id"), null);
  });

  it("refuses every other protocol version with 400 and the supported list", async () => {
    const cases = [
      { header: "2025-11-25", body: { ...ENVELOPE_META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
      { header: "2027-01-01", body: { ...ENVELOPE_META, "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
    ];
    for (const c of cases) {
      const res = await rawRequest(suite.mcp, "POST", "/", {
        headers: {
          authorization: `Bearer ${suite.creator.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": c.header,
          "mcp-method": "tools/list",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: c.body } }),
      });
      assert.equal(res.status, 400, c.header);
      assert.equal(res.body.error.code, -32022, c.header);
      assert.deepEqual(res.body.error.data.supported, [MCP_PROTOCOL]);
      assert.equal(res.body.id, 7);
    }
  });

  it("refuses the 2025 initialize handshake", async () => {
    const res = await rawRequest(suite.mcp, "POST", "/", {
      headers: { authorization: `Bearer ${suite.creator.token}`, "content-type": "application/json", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" } },
      }),
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, -32022);
  });

  it("checks MCP-Protocol-Version, Mcp-Method and Mcp-Name against the body", async () => {
    const missingVersion = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token, headers: { "mcp-protocol-version": "" } });
    assert.equal(missingVersion.status, 400);
    assert.equal(missingVersion.body.error.code, -32020);
    const wrongMethod = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token, headers: { "mcp-method": "resources/list" } });
    assert.equal(wrongMethod.status, 400);
    assert.equal(wrongMethod.body.error.code, -32020);
    const wrongName = await rawRpc(suite.mcp, "tools/call", {
      token: suite.creator.token,
      params: { name: "get_current_team", arguments: {} },
      headers: { "mcp-name": "list_tokens" },
    });
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.body.error.code, -32020);
  });

  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await rawRequest(suite.mcp, method, "/", {
        headers: { authorization: `Bearer ${suite.creator.token}`, accept: "text/event-stream" },
      });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "POST");
      assert.equal(res.body.error.code, "METHOD_NOT_ALLOWED");
    }
  });

  it("answers an unknown method with 404 -32601 and an unknown tool with -32602", async () => {
    const unknownMethod = await rawRpc(suite.mcp, "tools/frobnicate", { token: suite.creator.token });
    assert.equal(unknownMethod.status, 404);
    assert.equal(unknownMethod.body.error.code, -32601);
    const client = await connectMcp(suite.mcp, suite.creator.token);
    try {
      await assert.rejects(
        client.callTool({ name: "no_such_tool", arguments: {} }),
        (err: unknown) => err instanceof ProtocolError && err.code === -32602 && /no_such_tool/.test(err.message),
      );
    } finally {
      await client.close();
    }
  });

  it("serves {mcp_url}/up without credentials", async () => {
    const res = await rawRequest(suite.mcp, "GET", "/up");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: "up", release: "3.0.0" });
  });

  it("refuses a body that is not UTF-8 or is over 1 MiB, as REST does, before any JSON-RPC runs", async () => {
    const headers = rawToolHeaders("get_current_team", suite.creator.token);
    const call = (name: Buffer) =>
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_current_team","arguments":{"x":"'),
        name,
        Buffer.from(`"},"_meta":${JSON.stringify(ENVELOPE_META)}}}`),
      ]);
    const invalid = await rawRequest(suite.mcp, "POST", "/", { headers, body: call(Buffer.from([0xff, 0xfe])) });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.error.fields, { body: ["is not valid UTF-8"] });
    const huge = await rawRequest(suite.mcp, "POST", "/", { headers, body: call(Buffer.alloc(1024 * 1024, "a")) });
    assert.equal(huge.status, 422);
    assert.deepEqual(huge.body.error.fields, { body: [`must be at most ${1024 * 1024} bytes`] });
    // The same call with readable text reaches the tool (and is refused there for its unknown argument).
    const fine = await rawRequest(suite.mcp, "POST", "/", { headers, body: call(Buffer.from("é")) });
    assert.equal(fine.status, 200);
    assert.equal(fine.body.result.structuredContent.error.code, "VALIDATION_FAILED");
  });
});
