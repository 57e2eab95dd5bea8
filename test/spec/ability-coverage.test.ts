// Every ability the catalog enforces (RM: REST and MCP, R: REST only) is reachable through at
// least one operation, and no operation requires an ability that grants nothing (Coming), has no
// API surface (None) or is Retired. Read from the published files, as a client would read them.
import assert from "node:assert/strict";
import { operationTable } from "../../generated/operations.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";

interface Ability {
  value: string;
  enforcement: "RM" | "R" | "Coming" | "None" | "Retired";
}
const catalog = readGeneratedJson<{ abilities: Ability[] }>("abilities.json").abilities;
const tools = readGeneratedJson<{ tools: { name: string; ability: string }[] }>("mcp-tools.json").tools;
const operations = Object.values(operationTable);
const enforcement = new Map(catalog.map((a) => [a.value, a.enforcement]));

describe("ability coverage", () => {
  it("reaches every RM and R ability through at least one operation", () => {
    const required = new Set<string | null>(operations.map((op) => op.ability));
    const uncovered = catalog.filter((a) => (a.enforcement === "RM" || a.enforcement === "R") && !required.has(a.value)).map((a) => a.value);
    assert.deepEqual(uncovered, [], `abilities without an operation: ${uncovered.join(", ")}`);
  });

  it("requires only RM or R abilities", () => {
    const wrong = operations
      .filter((op) => op.ability !== null)
      .map((op) => [op.id, op.ability, enforcement.get(op.ability!) ?? "unknown"] as const)
      .filter(([, , label]) => label !== "RM" && label !== "R");
    assert.deepEqual(wrong, []);
    assert.ok(
      operations.some((op) => op.ability === null),
      "the public routes need no ability",
    );
  });

  it("reaches every RM ability through an MCP tool too, and no R ability", () => {
    const byTool = new Set(tools.map((t) => t.ability));
    const missing = catalog.filter((a) => a.enforcement === "RM" && !byTool.has(a.value)).map((a) => a.value);
    assert.deepEqual(missing, [], `RM abilities without a tool: ${missing.join(", ")}`);
    const restOnly = tools.filter((t) => enforcement.get(t.ability) !== "RM").map((t) => t.name);
    assert.deepEqual(restOnly, []);
  });
});
