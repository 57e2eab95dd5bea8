// Which tools a connection sees. The surface grows past what clients accept (VS Code refuses more
// than 128 tools, Cursor warns past 80), so, as the GitHub MCP server does with X-MCP-Toolsets:
//   - tools/list shows only the tools the token's abilities can call;
//   - `X-MCP-Toolsets: tokens,activity` (or `?toolsets=` on the endpoint URL) narrows the
//     connection to those groups (lower-cased tags; `all` = every group, the default);
//   - `X-MCP-Readonly: true` (or `?read_only=true`) keeps only tools with readOnlyHint.
// A call to a tool outside the selection is refused as an unknown tool; a call to a selected
// tool the token cannot use reaches the ability check and names the missing ability.
import { validationFailed } from "../../errors.ts";
import { holdsAbility } from "../../modules/tokens/abilities.ts";
import { toolDefinitions, toolsets, toolsetsOf, type ToolDefinition } from "./tool-catalog.ts";

export const TOOLSETS_HEADER = "X-MCP-Toolsets";
export const READ_ONLY_HEADER = "X-MCP-Readonly";
export const TOOLSETS_QUERY = "toolsets";
export const READ_ONLY_QUERY = "read_only";
export const ALL_TOOLSETS = "all";

export interface ToolSelection {
  /** Selected toolsets; null = every toolset. */
  toolsets: ReadonlySet<string> | null;
  readOnly: boolean;
}

export const EVERY_TOOL: ToolSelection = { toolsets: null, readOnly: false };

function parseFlag(value: string, name: string): boolean {
  const normalized = value.trim().toLowerCase();
  if (normalized === "true" || normalized === "1") return true;
  if (normalized === "false" || normalized === "0" || normalized === "") return false;
  throw validationFailed({ [name]: ["must be true or false"] }, `${name} must be true or false.`);
}

/**
 * The selection named by the request's headers (which win) or the endpoint URL's query.
 * An unknown toolset is refused: a typo would otherwise silently hide every tool.
 */
export function parseToolSelection(header: (name: string) => string, query: URLSearchParams): ToolSelection {
  const named = header(TOOLSETS_HEADER) || query.get(TOOLSETS_QUERY) || "";
  const readOnlyValue = header(READ_ONLY_HEADER) || query.get(READ_ONLY_QUERY) || "";
  const names = named
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => n !== ALL_TOOLSETS && !toolsets.has(n));
  if (unknown.length) {
    const known = [ALL_TOOLSETS, ...toolsets.keys()].join(", ");
    throw validationFailed(
      { toolsets: unknown.map((n) => `${n} is not a toolset; known toolsets: ${known}`) },
      `Unknown toolset ${unknown[0]}; select from: ${known}.`,
    );
  }
  return {
    toolsets: names.length === 0 || names.includes(ALL_TOOLSETS) ? null : new Set(names),
    readOnly: parseFlag(readOnlyValue, "X-MCP-Readonly"),
  };
}

export function isSelected(tool: ToolDefinition, selection: ToolSelection): boolean {
  if (selection.readOnly && !tool.annotations.readOnlyHint) return false;
  return selection.toolsets === null || toolsetsOf(tool).some((s) => selection.toolsets!.has(s));
}

/** The tools a connection lists: selected, and callable with the token's abilities. */
export function listedTools(selection: ToolSelection, abilities: ReadonlySet<string>): ToolDefinition[] {
  return toolDefinitions.filter((tool) => isSelected(tool, selection) && holdsAbility(abilities, tool.ability));
}
