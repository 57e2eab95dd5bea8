// The MCP tools: generated/mcp-tools.json (one per operation whose ability is RM), loaded once
// per process and checked against what clients accept. Nobody maintains a second list.
import type { Tool } from "@modelcontextprotocol/server";
import { operationTable, type OperationId, type OperationSpec } from "../../../generated/operations.ts";
import { readGeneratedJson } from "../../repository-files.ts";
import { paymentsPageTemplate, type PaymentsPageLinks } from "../../modules/payment-methods/payments-page.ts";

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

/** MCP tool hints; an absent one has the protocol's default (readOnlyHint and idempotentHint false). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** One entry of generated/mcp-tools.json. */
export interface ToolDefinition {
  name: OperationId;
  title: string;
  description: string;
  ability: string;
  tags: string[];
  /** The toolset (the area) a connection selects the tool by. */
  toolset: string;
  operation: { method: string; path: string; success_status: number };
  arguments: ToolArgumentMap;
  inputSchema: JsonObject & { type: "object" };
  outputSchema?: JsonObject & { type: "object" };
  annotations: ToolAnnotations;
}

/** A tool group: the tools of one area, selected together with X-MCP-Toolsets. */
export interface Toolset {
  name: string;
  title: string;
  description: string;
  /** Listed on a connection that names no toolset. */
  default: boolean;
  tools: OperationId[];
}

interface ToolFile {
  release: string;
  count: number;
  default_count: number;
  toolsets: Toolset[];
  tools: ToolDefinition[];
}

export const isReadOnly = (tool: ToolDefinition): boolean => tool.annotations.readOnlyHint === true;
export const isDestructive = (tool: ToolDefinition): boolean => tool.annotations.destructiveHint === true;

/** Several clients refuse longer names (the spec allows 128; 60 leaves room for client prefixes). */
export const MAX_TOOL_NAME_LENGTH = 60;

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
  if (!file.toolsets.some((set) => set.name === tool.toolset && set.tools.includes(tool.name))) {
    throw new Error(`mcp-tools.json: ${tool.name} is in no toolset`);
  }
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

/** Every toolset by name, sorted, each listing its tools in catalog order. */
export const toolsets: ReadonlyMap<string, Toolset> = new Map(file.toolsets.map((set) => [set.name, set]));

/** The toolsets a connection gets when it names none. */
export const defaultToolsets: ReadonlySet<string> = new Set(file.toolsets.filter((set) => set.default).map((set) => set.name));

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
    _meta: { "subbridge/ability": tool.ability, "subbridge/toolset": tool.toolset },
  };
}

/**
 * Placeholders a tool description may hold, filled with this deployment's public addresses:
 * "{payments_page}" is a project's payments page (projectPaymentsPage, "{project}" where its id goes).
 */
export interface DescriptionValues {
  payments_page: string;
}

const PLACEHOLDER = /\{(payments_page)\}/g;

/** A tool description with this deployment's addresses in place of its placeholders. */
export function describedFor(description: string, links: PaymentsPageLinks): string {
  const values: DescriptionValues = { payments_page: paymentsPageTemplate(links) };
  return description.replace(PLACEHOLDER, (_, key: keyof DescriptionValues) => values[key]);
}

/**
 * generated/mcp-tools.json as this deployment publishes it ({base_url}/mcp-tools.json): the same
 * descriptions tools/list gives, addresses filled in.
 */
export function publishedToolFile(generated: { tools: { description: string }[] }, links: PaymentsPageLinks): unknown {
  return { ...generated, tools: generated.tools.map((t) => ({ ...t, description: describedFor(t.description, links) })) };
}

const catalogs = new Map<string, (name: string) => Tool>();

/**
 * The wire entries with this deployment's addresses in their descriptions, built once per set of
 * addresses (a process has one): tools/list is answered on every connection.
 */
export function wireCatalog(links: PaymentsPageLinks): (name: string) => Tool {
  const key = paymentsPageTemplate(links);
  const known = catalogs.get(key);
  if (known) return known;
  const tools = new Map<string, Tool>(file.tools.map((t) => [t.name, wireTool({ ...t, description: describedFor(t.description, links) })]));
  const lookup = (name: string) => tools.get(name)!;
  catalogs.set(key, lookup);
  return lookup;
}
