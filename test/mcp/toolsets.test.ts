// The MCP surface at full size: a full token's default tools/list stays within what clients accept
// (128 tools) and what a model should read first (60 kB); every other tool is reached through
// X-MCP-Toolsets or through the dynamic mode's catalog tools (under 10 kB), with the same rules
// as a direct call. Sizes are measured on the wire, as a client receives them.
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { tokenFor } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";
import { FRESH, rawRequest, rawRpc, useMcpWithCreator } from "../helpers/mcp.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";

interface ToolFile {
  count: number;
  default_count: number;
  toolsets: { name: string; default: boolean; tools: string[] }[];
  tools: { name: string; toolset: string; ability: string }[];
}
const catalog = readGeneratedJson<ToolFile>("mcp-tools.json");
const defaultSets = catalog.toolsets.filter((s) => s.default);
const defaultNames = defaultSets.flatMap((s) => s.tools).sort();
const DYNAMIC = ["call_destructive_tool", "call_tool", "describe_tool", "list_toolsets", "search_tools"];
const MAX_TOOLS = 128;
const MAX_DEFAULT_BYTES = 60 * 1024;
const MAX_DYNAMIC_BYTES = 10 * 1024;

describe("mcp toolsets at full size", () => {
  const suite = useMcpWithCreator();
  const connect = (token: string, options?: Parameters<typeof suite.connect>[1]) => suite.connect(token, options);
  const names = (client: Client) => suite.toolNames(client);
  const listBytes = async (toolsets: string | null) => {
    const res = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token, toolsets });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return { bytes: Buffer.byteLength(res.text), tools: res.body.result.tools.length as number };
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as any;

  it("lists the default toolsets, within 128 tools and 60 kB, to a full token that names none", async () => {
    assert.ok(defaultSets.length > 0 && defaultNames.length < catalog.count, "the default is a deliberate subset");
    assert.equal(catalog.default_count, defaultNames.length);
    assert.deepEqual(await names(await connect(suite.creator.token, { toolsets: null })), defaultNames);
    const { bytes, tools } = await listBytes(null);
    assert.ok(tools <= MAX_TOOLS, `${tools} tools by default`);
    assert.ok(bytes <= MAX_DEFAULT_BYTES, `default tools/list is ${bytes} bytes`);
    // Every tool remains: "all" lists the whole catalog.
    assert.equal((await listBytes("all")).tools, catalog.count);
  });

  it("adds toolsets by name, with `default` standing for the default ones", async () => {
    const other = catalog.toolsets.find((s) => !s.default)!;
    const listed = await names(await connect(suite.creator.token, { headers: { "X-MCP-Toolsets": `default,${other.name}` } }));
    assert.deepEqual(listed, [...defaultNames, ...other.tools].sort());
    assert.deepEqual(await names(await connect(suite.creator.token, { query: `?toolsets=${other.name}` })), [...other.tools].sort());
  });

  it("refuses a direct call outside the selection, naming how to reach the tool", async () => {
    assert.ok(!defaultNames.includes("list_tokens"));
    const res = await rawRpc(suite.mcp, "tools/call", { token: suite.creator.token, toolsets: null, params: { name: "list_tokens", arguments: {} } });
    assert.equal(res.body.error.code, -32602);
    assert.match(res.body.error.data.reason, /X-MCP-Toolsets.*tokens.*call_tool/);
    // Clients show the message, seldom `data`: the reason and the way in are in the message itself.
    assert.match(res.body.error.message, /^Tool list_tokens is not available on this connection: .*tokens toolset.*X-MCP-Toolsets.*call_tool/);
    const readOnly = await rawRpc(suite.mcp, "tools/call", {
      token: suite.creator.token,
      headers: { "X-MCP-Readonly": "true" },
      params: { name: "create_project", arguments: { name: "Nope" } },
    });
    assert.equal(readOnly.body.error.code, -32602);
    assert.match(
      readOnly.body.error.message,
      /^Tool create_project is not available on this connection: it changes data and this connection is read-only/,
    );
  });

  describe("dynamic mode", () => {
    it("lists five catalog tools, under 10 kB, and with toolsets lists those too", async () => {
      assert.deepEqual(await names(await connect(suite.creator.token, { toolsets: "dynamic" })), DYNAMIC);
      const { bytes } = await listBytes("dynamic");
      assert.ok(bytes < MAX_DYNAMIC_BYTES, `dynamic tools/list is ${bytes} bytes`);
      assert.deepEqual(
        await names(await connect(suite.creator.token, { toolsets: "dynamic,tokens" })),
        [...DYNAMIC, "delete_token", "list_tokens"].sort(),
      );
    });

    it("finds, describes and calls any tool the token can call", async () => {
      const client = await connect(suite.creator.token, { toolsets: "dynamic" });
      const sets = (await call(client, "list_toolsets", {})).structuredContent.toolsets;
      assert.deepEqual(sets.map((s: { name: string }) => s.name).sort(), catalog.toolsets.map((s) => s.name).sort());
      assert.ok(
        sets.every((s: { listed: boolean }) => s.listed === false),
        "dynamic alone lists no operation tool",
      );

      const found = (await call(client, "search_tools", { query: "personal access tokens" })).structuredContent;
      assert.equal(found.tools[0].toolset, "tokens");
      assert.ok(found.tools.some((t: { name: string }) => t.name === "list_tokens"));
      const byToolset = (await call(client, "search_tools", { toolset: "plans", limit: 50 })).structuredContent;
      assert.deepEqual(
        byToolset.tools.map((t: { name: string }) => t.name).sort(),
        catalog.toolsets
          .find((s) => s.name === "plans")!
          .tools.slice()
          .sort(),
      );

      const described = (await call(client, "describe_tool", { name: "list_tokens" })).structuredContent;
      assert.equal(described.name, "list_tokens");
      assert.equal(described.inputSchema.type, "object");
      assert.equal(described.call_with, "call_tool");

      const listed = await call(client, "call_tool", { name: "list_tokens", arguments: { per_page: 5 } });
      assert.equal(listed.isError, undefined, JSON.stringify(listed));
      assert.equal(listed.structuredContent.meta.per_page, 5);
      // The tool's own validation answers as it would directly.
      const invalid = await call(client, "call_tool", { name: "list_tokens", arguments: { per_page: "many" } });
      assert.equal(invalid.structuredContent.error.code, "VALIDATION_FAILED");
      assert.ok(invalid.structuredContent.error.fields.per_page);
    });

    it("keeps destructive tools behind call_destructive_tool, whose destructiveHint is true", async () => {
      const client = await connect(suite.creator.token, { toolsets: "dynamic" });
      const { tools } = await client.listTools(undefined, FRESH);
      assert.equal(tools.find((t) => t.name === "call_tool")!.annotations!.destructiveHint, false);
      assert.equal(tools.find((t) => t.name === "call_destructive_tool")!.annotations!.destructiveHint, true);
      const victim = await tokenFor(suite.creator, ["team:view"]);
      const refused = await call(client, "call_tool", { name: "delete_token", arguments: { token_id: victim.id } });
      assert.equal(refused.structuredContent.error.code, "VALIDATION_FAILED");
      assert.match(refused.structuredContent.error.fields.name[0], /call_destructive_tool/);
      const deleted = await call(client, "call_destructive_tool", { name: "delete_token", arguments: { token_id: victim.id } });
      assert.equal(deleted.isError, undefined, JSON.stringify(deleted));
      // The deletion's entry, committed with the deletion (earlier reads' entries are written just
      // after their answers, so the newest row by seq need not be this one).
      await suite.mcp.settled();
      const { db } = await testDatabase();
      const rows = await db("activity_log").where({ team_id: suite.creator.teamId, event: "tool_invoked" }).select("properties");
      const ran = rows
        .map((r: { properties: any }) => (typeof r.properties === "string" ? JSON.parse(r.properties) : r.properties))
        .filter((p: any) => p.arguments?.token_id === victim.id && p.outcome === "ok");
      assert.deepEqual(
        ran.map((p: any) => p.tool),
        ["delete_token"],
        "the activity log names the tool that ran",
      );
    });

    it("reaches only what the token and the connection allow", async () => {
      const narrow = await tokenFor(suite.creator, ["team:view", "activity:read"]);
      const client = await connect(narrow.token, { toolsets: "dynamic" });
      const found = (await call(client, "search_tools", { limit: 50 })).structuredContent;
      const callable = catalog.tools.filter((t) => t.ability === "team:view" || t.ability === "activity:read").map((t) => t.name);
      assert.deepEqual(found.tools.map((t: { name: string }) => t.name).sort(), callable.sort());
      const refused = await call(client, "call_tool", { name: "list_tokens", arguments: {} });
      assert.equal(refused.structuredContent.error.code, "VALIDATION_FAILED");
      assert.ok(refused.structuredContent.error.fields.name);

      const readOnly = await connect(suite.creator.token, { toolsets: "dynamic", headers: { "X-MCP-Readonly": "true" } });
      const write = await call(readOnly, "call_tool", { name: "create_project", arguments: { name: "Nope" } });
      assert.match(write.structuredContent.error.fields.name[0], /read-only/);
      const unknownArgument = await call(readOnly, "search_tools", { query: "plans", colour: "blue" });
      assert.deepEqual(unknownArgument.structuredContent.error.fields, { colour: ["is not a known field"] });
    });
  });

  it("reports the true counts and toolsets on the server card", async () => {
    const card = (await rawRequest(suite.mcp, "GET", "/.well-known/mcp/server-card.json")).body;
    assert.equal(card.capabilities.tools.count, catalog.count);
    assert.equal(card.toolsets.defaultToolCount, defaultNames.length);
    assert.deepEqual(
      card.toolsets.default,
      defaultSets.map((s) => s.name),
    );
    assert.deepEqual(
      card.toolsets.available.map((s: { name: string; tools: number }) => [s.name, s.tools]),
      catalog.toolsets.map((s) => [s.name, s.tools.length]),
    );
    assert.deepEqual(card.toolsets.dynamic.tools.slice().sort(), DYNAMIC);
  });
});
