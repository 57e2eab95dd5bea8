// tools/list: one tool per RM operation, filtered to what the token can call, narrowed by the
// connection's toolset and read-only selection; schemas every client accepts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ProtocolError, type Client } from "@modelcontextprotocol/client";
import { tokenFor } from "../helpers/fixtures.ts";
import { FRESH, rawRpc, useMcpWithCreator } from "../helpers/mcp.ts";
import { areaOfTag as toolsetName } from "../../codegen/bundle.ts";

type Json = Record<string, any>;
const openapi: Json = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
const abilities: Json = JSON.parse(readFileSync(new URL("../../generated/abilities.json", import.meta.url), "utf8"));

/** Operations whose x-ability is enforced on REST and MCP, read from the spec, not the tool file. */
const rmOperations: { id: string; ability: string; method: string; tags: string[] }[] = (() => {
  const rm = new Set(abilities.abilities.filter((a: Json) => a.enforcement === "RM").map((a: Json) => a.value));
  const ops = [];
  for (const item of Object.values<Json>(openapi.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op && typeof op === "object" && rm.has(op["x-ability"]) && op["x-rest-only"] !== true)
        ops.push({ id: op.operationId, ability: op["x-ability"], method, tags: op.tags });
    }
  }
  return ops.sort((a, b) => (a.id < b.id ? -1 : 1));
})();

const idsIn = (...sets: string[]) => rmOperations.filter((o) => o.tags.some((t) => sets.includes(toolsetName(t)))).map((o) => o.id);

function walk(node: unknown, visit: (key: string, value: unknown) => void) {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

describe("mcp tools/list", () => {
  const suite = useMcpWithCreator();
  const connect = (token: string, options?: Parameters<typeof suite.connect>[1]) => suite.connect(token, options);
  const names = (client: Client) => suite.toolNames(client);

  it("lists one tool per RM operation for a token holding every ability", async () => {
    assert.ok(rmOperations.length > 0);
    const { tools } = await (await connect(suite.creator.token)).listTools(undefined, FRESH);
    assert.deepEqual(
      tools.map((t) => t.name),
      rmOperations.map((o) => o.id),
    );
    for (const tool of tools) {
      const op = rmOperations.find((o) => o.id === tool.name)!;
      assert.equal(tool._meta?.["subbridge/ability"], op.ability, tool.name);
      assert.equal(tool._meta?.["subbridge/toolset"], toolsetName(op.tags[0]!), tool.name);
      assert.equal(tool.annotations?.readOnlyHint === true, op.method === "get", tool.name);
      assert.ok(tool.title && tool.description && tool.description.length > 40, `${tool.name} has a title and a description`);
    }
  });

  it("carries no private fields and only schemas clients accept", async () => {
    const { tools } = await (await connect(suite.creator.token)).listTools(undefined, FRESH);
    const allowed = new Set(["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "icons", "execution"]);
    for (const tool of tools) {
      for (const key of Object.keys(tool)) assert.ok(allowed.has(key), `${tool.name} has a non-MCP field ${key}`);
      assert.ok(tool.name.length <= 60, `${tool.name} is at most 60 characters`);
      assert.match(tool.name, /^[a-z0-9_]+$/);
      assert.equal(tool.inputSchema.type, "object", `${tool.name} inputSchema root is an object`);
      if (tool.outputSchema) assert.equal(tool.outputSchema.type, "object");
      walk([tool.inputSchema, tool.outputSchema], (key) => {
        assert.ok(key !== "$ref" && key !== "$defs" && key !== "definitions", `${tool.name} has ${key}`);
      });
    }
    const destructive = tools.find((t) => t.name === "delete_token")!;
    // Hints equal to the protocol's defaults (readOnlyHint false) are left out.
    assert.deepEqual(destructive.annotations, {
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("lists only the tools a narrow token can call", async () => {
    const narrow = await tokenFor(suite.creator, ["team:view", "activity:read"]);
    const expected = rmOperations.filter((o) => o.ability === "team:view" || o.ability === "activity:read").map((o) => o.id);
    assert.ok(expected.includes("get_current_team") && expected.includes("get_activity_log"));
    assert.deepEqual(await names(await connect(narrow.token)), expected);
    // payment:view is Coming: no operation can require it, so it lists no tool.
    const none = await tokenFor(suite.creator, ["payment:view"]);
    assert.deepEqual(await names(await connect(none.token)), []);
  });

  it("narrows to the toolsets named by X-MCP-Toolsets or ?toolsets=", async () => {
    const tokens = idsIn("tokens");
    assert.ok(tokens.includes("delete_token") && tokens.includes("list_tokens") && tokens.length < rmOperations.length);
    assert.deepEqual(await names(await connect(suite.creator.token, { headers: { "X-MCP-Toolsets": "tokens" } })), tokens);
    assert.deepEqual(await names(await connect(suite.creator.token, { query: "?toolsets=activity,teams" })), idsIn("activity", "teams"));
    assert.deepEqual(
      await names(await connect(suite.creator.token, { headers: { "X-MCP-Toolsets": "all" } })),
      rmOperations.map((o) => o.id),
    );
    // The header wins over the query.
    assert.deepEqual(
      await names(await connect(suite.creator.token, { headers: { "X-MCP-Toolsets": "teams" }, query: "?toolsets=tokens" })),
      idsIn("teams"),
    );
  });

  it("keeps only read-only tools with X-MCP-Readonly or ?read_only=true", async () => {
    const reads = rmOperations.filter((o) => o.method === "get").map((o) => o.id);
    assert.ok(reads.length < rmOperations.length);
    assert.deepEqual(await names(await connect(suite.creator.token, { headers: { "X-MCP-Readonly": "true" } })), reads);
    const readTokens = rmOperations.filter((o) => o.method === "get" && idsIn("tokens").includes(o.id)).map((o) => o.id);
    assert.ok(readTokens.includes("list_tokens") && !readTokens.includes("delete_token"));
    assert.deepEqual(await names(await connect(suite.creator.token, { query: "?read_only=true&toolsets=tokens" })), readTokens);
  });

  it("refuses a call to a tool outside the selection as an unknown tool", async () => {
    const client = await connect(suite.creator.token, { headers: { "X-MCP-Toolsets": "teams" } });
    assert.equal((await client.callTool({ name: "get_current_team", arguments: {} })).isError, undefined);
    await assert.rejects(
      client.callTool({ name: "list_tokens", arguments: {} }),
      (err: unknown) => err instanceof ProtocolError && err.code === -32602,
    );
    const readOnly = await connect(suite.creator.token, { headers: { "X-MCP-Readonly": "true" } });
    await assert.rejects(
      readOnly.callTool({ name: "delete_token", arguments: { token_id: suite.creator.tokenId } }),
      (err: unknown) => err instanceof ProtocolError && err.code === -32602,
    );
  });

  it("refuses an unknown toolset, naming the known ones", async () => {
    const res = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token, headers: { "x-mcp-toolsets": "tokens,nonsense" } });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "VALIDATION_FAILED");
    assert.match(res.body.error.fields.toolsets[0], /^nonsense is not a toolset; known toolsets: all, .*\btokens\b/);
    assert.equal(res.body.error.fields.toolsets.length, 1, "tokens is known");
  });

  it("marks the list private and cacheable for a minute", async () => {
    const res = await rawRpc(suite.mcp, "tools/list", { token: suite.creator.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.cacheScope, "private");
    assert.equal(res.body.result.ttlMs, 60_000);
  });
});
