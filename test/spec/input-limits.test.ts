// The limits every input obeys before its schema (src/pipeline/input-safety.ts) are the ones the
// description states, and never refuse what an operation's own schema accepts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MAX_INPUT_DEPTH, MAX_INPUT_ITEMS } from "../../src/pipeline/input-safety.ts";

type Json = Record<string, any>;
const doc: Json = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));

/** Every array schema reachable from `schema` (refs followed once each), with where it was found. */
function arraySchemas(schema: Json, where: string, seen = new Set<Json>()): { where: string; schema: Json }[] {
  const found: { where: string; schema: Json }[] = [];
  const stack: [Json, string][] = [[schema, where]];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (!node || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (typeof node.$ref === "string") {
      const target = node.$ref
        .split("/")
        .slice(1)
        .reduce((n: Json, key: string) => n?.[key], doc);
      stack.push([target, node.$ref]);
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("array")) found.push({ where: at, schema: node });
    for (const [key, child] of Object.entries(node)) if (child && typeof child === "object") stack.push([child as Json, `${at}/${key}`]);
  }
  return found;
}

describe("input limits", () => {
  it("are the ones the description states", () => {
    const description: string = doc.info.description;
    assert.match(description, new RegExp(`at most ${MAX_INPUT_DEPTH} levels deep`));
    assert.match(description, new RegExp(`no array of more than ${MAX_INPUT_ITEMS.toLocaleString("en-US")} items`));
  });

  it(`leave every list an operation accepts (request bodies and parameters) at most half of ${MAX_INPUT_ITEMS} items`, () => {
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (!op || typeof op !== "object" || !("responses" in op)) continue;
        const inputs = [...(op.parameters ?? []), ...(op.requestBody ? [op.requestBody] : [])];
        for (const input of inputs) {
          for (const { where, schema } of arraySchemas(input, `${method.toUpperCase()} ${path}`)) {
            checked++;
            assert.ok(typeof schema.maxItems === "number", `${where}: an input list without maxItems`);
            assert.ok(schema.maxItems * 2 <= MAX_INPUT_ITEMS, `${where}: maxItems ${schema.maxItems} is over half of ${MAX_INPUT_ITEMS}`);
          }
        }
      }
    }
    assert.ok(checked > 10, `only ${checked} input lists found`);
  });
});
