// The common tools/call is answered without the SDK's per-request server (direct-tool-call.ts);
// its answers must be the SDK's, byte for byte: the same requests go to a surface with the direct
// path and to one serving everything through the SDK, over the same database and KV store.
import assert from "node:assert/strict";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { directToolCall } from "../../src/transports/mcp/direct-tool-call.ts";
import { ENVELOPE_META, MCP_PROTOCOL, rawRequest, rawToolHeaders, startMcp, type RawResponse, type RunningMcp } from "../helpers/mcp.ts";

interface Call {
  name: string;
  args?: unknown;
  id?: unknown;
  headers?: Record<string, string>;
  /** Replaces the whole params object. */
  params?: Record<string, unknown>;
  token?: string;
}

describe("mcp direct tools/call", () => {
  let direct: RunningMcp;
  let sdk: RunningMcp;
  let creator: TestCreator;
  let viewer: string;

  before(async () => {
    direct = await startMcp({ sharedKv: "direct-tool-call" });
    sdk = await startMcp({ sharedKv: "direct-tool-call", sdkOnly: true });
    creator = await createTestCreator();
    viewer = (await tokenFor(creator, ["team:view"])).token;
  });
  after(async () => {
    await direct?.close();
    await sdk?.close();
  });

  function send(mcp: RunningMcp, call: Call): Promise<RawResponse> {
    const params = call.params ?? { name: call.name, ...(call.args !== undefined ? { arguments: call.args } : {}), _meta: ENVELOPE_META };
    const headers: Record<string, string> = { ...rawToolHeaders(call.name, call.token ?? creator.token), ...call.headers };
    return rawRequest(mcp, "POST", "/", {
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: "id" in call ? call.id : 7, method: "tools/call", params }),
    });
  }

  /** The answer with what differs per request (ids, times, created rows) made equal. */
  function normalized(response: RawResponse, requestId: string): string {
    return response.text
      .replaceAll(requestId, "<request id>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>")
      .replace(/sbt_live_\d+_[A-Za-z0-9]+/g, "<token>")
      .replace(/\\?"id\\?":\\?"\d+\\?"/g, "<row id>");
  }

  async function same(call: Call): Promise<RawResponse> {
    const a = await send(direct, call);
    const b = await send(sdk, call);
    assert.equal(a.status, b.status, `${call.name}: status`);
    assert.equal(a.headers.get("content-type"), b.headers.get("content-type"), `${call.name}: content-type`);
    assert.equal(normalized(a, a.headers.get("x-request-id")!), normalized(b, b.headers.get("x-request-id")!), `${call.name}: body`);
    return a;
  }

  it("answers a read as the SDK does", async () => {
    const answer = await same({ name: "get_current_team", args: {} });
    assert.equal(answer.body.result.structuredContent.data.id, creator.teamId);
    await same({ name: "get_current_team" });
    await same({ name: "get_current_team", id: "a string id" });
    await same({ name: "list_tokens", args: { per_page: 2 } });
  });

  it("answers a write as the SDK does", async () => {
    await same({ name: "create_token", args: { name: "direct", abilities: ["team:view"] } });
  });

  it("answers refusals as the SDK does (missing ability, invalid arguments, unknown and unselected tools)", async () => {
    await same({ name: "list_tokens", args: {}, token: viewer });
    await same({ name: "list_tokens", args: { per_page: "many" } });
    await same({ name: "no_such_tool", args: {} });
    await same({ name: "list_tokens", args: {}, headers: { "x-mcp-toolsets": "teams" } });
    await same({ name: "get_current_team", args: {}, headers: { "x-mcp-readonly": "true" } });
  });

  it("leaves to the SDK what it does not handle, with the SDK's answer", async () => {
    await same({ name: "get_current_team", args: {}, headers: { "mcp-name": "list_tokens" } });
    await same({ name: "get_current_team", args: {}, headers: { "mcp-protocol-version": "2025-11-25" } });
    await same({ name: "get_current_team", args: [] });
    await same({ name: "get_current_team", args: {}, id: 1.5 });
    await same({ name: "get_current_team", args: {}, id: null });
    await same({ name: "get_current_team", params: { name: "get_current_team", _meta: { ...ENVELOPE_META, progressToken: 3 } } });
    await same({
      name: "get_current_team",
      params: { name: "get_current_team", _meta: { ...ENVELOPE_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    });
    await same({ name: "get_current_team", params: { name: "get_current_team", task: {}, _meta: ENVELOPE_META } });
    await same({ name: "get_current_team", args: {}, headers: { "content-type": "text/plain" } });
  });

  it("judges each envelope on its own, whatever was seen before (the classifier's verdict is kept per _meta)", async () => {
    const badInfo = { ...ENVELOPE_META, "io.modelcontextprotocol/clientInfo": { name: 7 } };
    const badCapabilities = { ...ENVELOPE_META, "io.modelcontextprotocol/clientCapabilities": "none" };
    for (let i = 0; i < 2; i++) {
      await same({ name: "get_current_team" });
      const refused = await same({ name: "get_current_team", params: { name: "get_current_team", _meta: badInfo } });
      assert.equal(refused.status, 400);
      assert.equal((await same({ name: "get_current_team", params: { name: "get_current_team", _meta: badCapabilities } })).status, 400);
    }
  });
});

describe("mcp direct tools/call: which calls it takes", () => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "mcp-protocol-version": MCP_PROTOCOL,
    "mcp-method": "tools/call",
    "mcp-name": "get_current_team",
  };
  const ctx = (extra: Record<string, string> = {}) => ({ get: (name: string) => ({ ...headers, ...extra })[name] ?? "" }) as never;
  const body = (params: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_current_team", arguments: {}, _meta: ENVELOPE_META, ...params },
  });

  it("takes a conforming client's call, and leaves anything unusual to the SDK", () => {
    assert.deepEqual(directToolCall(ctx(), body()), { id: 1, name: "get_current_team", args: {} });
    assert.equal(directToolCall(ctx({ "mcp-name": "list_tokens" }), body()), null);
    assert.equal(directToolCall(ctx({ "mcp-method": "" }), body()), null);
    assert.equal(directToolCall(ctx(), body({ _meta: { ...ENVELOPE_META, progressToken: 1 } })), null);
    assert.equal(directToolCall(ctx(), { ...body(), method: "tools/list" }), null);
    // The same envelope gets the same verdict every time it is seen, a valid one and an invalid one.
    const invalid = { ...ENVELOPE_META, "io.modelcontextprotocol/clientInfo": { version: "1" } };
    for (let i = 0; i < 2; i++) {
      assert.equal(directToolCall(ctx(), body({ _meta: invalid })), null);
      assert.deepEqual(directToolCall(ctx(), body()), { id: 1, name: "get_current_team", args: {} });
    }
  });
});
