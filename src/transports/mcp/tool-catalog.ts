// The MCP tools: generated/mcp-tools.json (one per operation whose ability is RM), loaded once
// per process and checked against what clients accept. Nobody maintains a second list.
import type { Tool } from "@modelcontextprotocol/server";
import { operationTable, type OperationId, type OperationSpec } from "../../../generated/operations.ts";
import { readGeneratedJson } from "../../repository-files.ts";

/** Keys of the flat arguments object, by where each goes in the REST request. */
export interface ToolArgumentMap {
  path: string[];
  query: string[];
  /** Body fields spread into the arguments, "body" when the body is not an object, or null. */
  body: string[] | "body" | null;
  /** Arguments only the tool takes, outside the REST request (a keyset list's cursor). */
  tool?: string[];
}

type JsonObject = Record<string, unknown>;

/** One entry of generated/mcp-tools.json. */
export interface ToolDefinition {
  name: OperationId;
  title: string;
  description: string;
  ability: string;
  tags: string[];
  operation: { method: string; path: string; success_status: number };
  arguments: ToolArgumentMap;
  inputSchema: JsonObject & { type: "object" };
  outputSchema?: JsonObject & { type: "object" };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

interface ToolFile {
  release: string;
  count: number;
  tools: ToolDefinition[];
}

/** Several clients refuse longer names (the spec allows 128; 60 leaves room for client prefixes). */
export const MAX_TOOL_NAME_LENGTH = 60;

/** A tool group as a connection selects it: the tag, lower-cased, words joined by hyphens. */
export function toolsetName(tag: string): string {
  return tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

function containsRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsRef);
  if (node === null || typeof node !== "object") return false;
  return Object.entries(node).some(([key, value]) => key === "$ref" || key === "$defs" || key === "definitions" || containsRef(value));
}

/** Fails at startup rather than in a client that silently drops a tool. */
function checkDefinition(tool: ToolDefinition): void {
  if (tool.name.length > MAX_TOOL_NAME_LENGTH) throw new Error(`mcp-tools.json: tool name ${tool.name} is longer than ${MAX_TOOL_NAME_LENGTH}`);
  if (!/^[A-Za-z0-9_.-]+$/.test(tool.name)) throw new Error(`mcp-tools.json: tool name ${tool.name} has characters clients refuse`);
  if (tool.inputSchema.type !== "object") throw new Error(`mcp-tools.json: ${tool.name} inputSchema root is not type object`);
  if (containsRef(tool.inputSchema) || containsRef(tool.outputSchema ?? null)) throw new Error(`mcp-tools.json: ${tool.name} has a $ref or $defs`);
  if (!(tool.name in operationTable)) throw new Error(`mcp-tools.json: ${tool.name} names no operation`);
  if (tool.tags.length === 0) throw new Error(`mcp-tools.json: ${tool.name} has no tag (toolsets come from tags)`);
}

const file = readGeneratedJson<ToolFile>("mcp-tools.json");
for (const tool of file.tools) checkDefinition(tool);

/** Every tool, in the generated (name) order: tools/list keeps it, which clients expect stable. */
export const toolDefinitions: readonly ToolDefinition[] = file.tools;

const byName = new Map<string, ToolDefinition>(file.tools.map((t) => [t.name, t]));

export function toolNamed(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export function operationOfTool(tool: ToolDefinition): OperationSpec {
  return operationTable[tool.name];
}

/** The toolsets a tool belongs to (one per tag). */
export function toolsetsOf(tool: ToolDefinition): string[] {
  return tool.tags.map(toolsetName);
}

/** Every toolset, sorted, with its tools in catalog order. */
export const toolsets: ReadonlyMap<string, readonly ToolDefinition[]> = new Map(
  [...new Set(file.tools.flatMap(toolsetsOf))].sort().map((set) => [set, file.tools.filter((t) => toolsetsOf(t).includes(set))]),
);

/**
 * The tools/list entry: the MCP fields only. Our private fields (ability, tags, operation,
 * arguments) would be unknown to clients; the ability and toolset travel in `_meta`.
 */
export function wireTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: tool.annotations,
    _meta: { "subbridge/ability": tool.ability, "subbridge/toolset": toolsetsOf(tool)[0]! },
  };
}

/** The wire entries, built once: tools/list is answered on every connection. */
const wireTools = new Map<string, Tool>(file.tools.map((t) => [t.name, wireTool(t)]));

export function wireToolNamed(name: string): Tool {
  return wireTools.get(name)!;
}
