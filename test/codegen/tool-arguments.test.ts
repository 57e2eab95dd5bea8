// Issue 47: a model reads a tool's arguments from their descriptions alone, so codegen refuses a
// tool argument without one, and every write tool takes an idempotency_key.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { IDEMPOTENCY_KEY_ARGUMENT, undescribedArguments } from "../../codegen/mcp-tools.ts";

type Json = Record<string, any>;
const catalog = JSON.parse(readFileSync(new URL("../../generated/mcp-tools.json", import.meta.url), "utf8")) as { tools: Json[] };

describe("mcp tool arguments (codegen)", () => {
  it("every argument of every generated tool has a description", () => {
    assert.deepEqual(undescribedArguments(catalog.tools as { name: string; inputSchema: Json }[]), []);
  });

  it("the check names each undescribed argument as tool.argument", () => {
    const tools = [
      {
        name: "make_thing",
        inputSchema: {
          type: "object",
          properties: { a: { type: "string", description: "An a." }, b: { type: "integer" }, c: { type: "string", description: " " } },
        },
      },
    ];
    assert.deepEqual(undescribedArguments(tools), ["make_thing.b", "make_thing.c"]);
  });

  it("every write tool takes an optional idempotency_key that only the tool reads, and says so", () => {
    const writes = catalog.tools.filter((t) => t.operation.method !== "GET");
    assert.ok(writes.length > 0);
    for (const tool of writes) {
      const argument = tool.inputSchema.properties[IDEMPOTENCY_KEY_ARGUMENT];
      assert.ok(argument, `${tool.name} takes ${IDEMPOTENCY_KEY_ARGUMENT}`);
      assert.equal(argument.type, "string");
      assert.ok(!(tool.inputSchema.required ?? []).includes(IDEMPOTENCY_KEY_ARGUMENT), `${tool.name}: optional`);
      assert.ok(tool.arguments.tool.includes(IDEMPOTENCY_KEY_ARGUMENT), `${tool.name}: a tool-only argument`);
      assert.match(tool.description, /idempotency_key/);
    }
    for (const tool of catalog.tools.filter((t) => t.operation.method === "GET"))
      assert.equal(tool.inputSchema.properties[IDEMPOTENCY_KEY_ARGUMENT], undefined);
  });
});
