// MCP tool descriptions are written for a model: every operation whose ability is RM (an MCP tool)
// carries an x-mcp-description, short, without REST wording, naming only tools that exist.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { restWording } from "../../codegen/bundle.ts";

type Json = Record<string, any>;
const read = (name: string): Json => JSON.parse(readFileSync(new URL(`../../generated/${name}`, import.meta.url), "utf8"));
const openapi = read("openapi.json");
const rm = new Set(
  read("abilities.json")
    .abilities.filter((a: Json) => a.enforcement === "RM")
    .map((a: Json) => a.value),
);

const operations: Json[] = Object.values<Json>(openapi.paths).flatMap((item) =>
  Object.values<Json>(item).filter((op) => op && typeof op === "object" && op.operationId),
);
// A file download (x-rest-only) is no MCP tool.
const tools = operations.filter((op) => rm.has(op["x-ability"]) && op["x-rest-only"] !== true);
const toolIds = new Set(tools.map((op) => op.operationId));

/** tools/list is sent on every connection: a description is a few sentences, not a manual. */
const MAX_CHARACTERS = 500;

/** Every field and parameter name of the document: a ban_reason is a field, not a tool. */
const fieldNames = new Set<string>();
(function collect(node: unknown) {
  if (Array.isArray(node)) return node.forEach(collect);
  if (!node || typeof node !== "object") return;
  const o = node as Json;
  if (o.properties && typeof o.properties === "object") for (const k of Object.keys(o.properties)) fieldNames.add(k);
  if (o.in && typeof o.name === "string") fieldNames.add(o.name);
  Object.values(o).forEach(collect);
})(openapi);

/** Words shaped like an operation id (its verb, an underscore, more) that name no field: the tools a text names. */
const verbs = [...new Set(operations.map((op) => op.operationId.split("_")[0]))];
const toolLike = new RegExp(`\\b(?:${verbs.join("|")})_[a-z0-9_]*[a-z0-9]\\b`, "g");

describe("mcp tool descriptions (x-mcp-description)", () => {
  it("every MCP tool (an operation with an RM ability) has one", () => {
    assert.ok(tools.length > 0);
    const missing = tools.filter((op) => typeof op["x-mcp-description"] !== "string" || !op["x-mcp-description"].trim()).map((op) => op.operationId);
    assert.deepEqual(missing, [], "write an x-mcp-description for these operations (spec/openapi/areas/*.yaml)");
  });

  it("is short and carries no REST wording", () => {
    for (const op of tools) {
      const text: string = op["x-mcp-description"] ?? "";
      assert.ok(text.length <= MAX_CHARACTERS, `${op.operationId}: ${text.length} characters, at most ${MAX_CHARACTERS}`);
      assert.deepEqual(restWording(text), [], op.operationId);
      assert.doesNotMatch(text, /\bREST\b|\bHTTP\b|\/v1\b|\b(?:GET|POST|PUT|PATCH|DELETE)\b/, op.operationId);
      assert.notEqual(text.trim(), op.description.trim(), `${op.operationId}: the REST description again`);
    }
  });

  it("names only tools that exist (other operations are not callable through MCP)", () => {
    for (const op of tools) {
      const named = [...(op["x-mcp-description"] ?? "").matchAll(toolLike)].map((m) => m[0]).filter((w) => !fieldNames.has(w));
      for (const name of named) assert.ok(toolIds.has(name), `${op.operationId} names ${name}, which is no MCP tool`);
    }
  });
});
