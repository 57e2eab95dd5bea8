// Which tools a connection sees. The surface is larger than clients accept (VS Code refuses more
// than 128 tools, Cursor warns past 80) and than a model should read before its first call, so, as
// the GitHub MCP server does with X-MCP-Toolsets:
//   - tools/list shows only the tools the token's abilities can call;
//   - a connection naming no toolset gets the default toolsets (x-mcp-toolsets in the spec root);
//   - `X-MCP-Toolsets: support,webhooks` (or `?toolsets=` on the endpoint URL) names the groups
//     instead; `default` stands for the default ones (`default,support`), `all` for every group;
//   - `dynamic` adds the few catalog tools (dynamic-tools.ts) with which a model searches every
//     tool and calls any of them by name; alone, it lists only those;
//   - `X-MCP-Readonly: true` (or `?read_only=true`) keeps only tools with readOnlyHint.
// A direct call to a tool outside the selection is refused (-32602) with the reason and the way to
// reach it in the message; a call to a selected tool the token cannot use reaches the ability check
// and names the missing ability.
import { validationFailed } from "../../errors.ts";
import { holdsAbility } from "../../modules/tokens/abilities.ts";
import { perValue } from "./per-value.ts";
import { defaultToolsets, isReadOnly, toolDefinitions, toolsets, type ToolDefinition } from "./tool-catalog.ts";

export const TOOLSETS_HEADER = "X-MCP-Toolsets";
export const READ_ONLY_HEADER = "X-MCP-Readonly";
export const TOOLSETS_QUERY = "toolsets";
export const READ_ONLY_QUERY = "read_only";
export const ALL_TOOLSETS = "all";
export const DEFAULT_TOOLSETS = "default";
export const DYNAMIC_MODE = "dynamic";

const KEYWORDS = [ALL_TOOLSETS, DEFAULT_TOOLSETS, DYNAMIC_MODE];

export interface ToolSelection {
  /** Toolsets listed; null = every toolset. */
  toolsets: ReadonlySet<string> | null;
  /** The catalog tools (search, describe, call by name) are listed too. */
  dynamic: boolean;
  readOnly: boolean;
}

export const EVERY_TOOL: ToolSelection = { toolsets: null, dynamic: false, readOnly: false };

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
  return selectionOf(header(TOOLSETS_HEADER) || query.get(TOOLSETS_QUERY) || "", header(READ_ONLY_HEADER) || query.get(READ_ONLY_QUERY) || "");
}

/** Selections already parsed (a client names the same one on every request); refusals are not kept. */
const selectionPerValue = perValue<ToolSelection>();

function selectionOf(named: string, readOnlyFlag: string): ToolSelection {
  return selectionPerValue(`${named}\n${readOnlyFlag}`, () => parseSelection(named, readOnlyFlag));
}

function parseSelection(named: string, readOnlyFlag: string): ToolSelection {
  const readOnly = parseFlag(readOnlyFlag, "X-MCP-Readonly");
  const names = named
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !KEYWORDS.includes(n) && !toolsets.has(n));
  if (unknown.length) {
    const known = [...KEYWORDS, ...toolsets.keys()].join(", ");
    throw validationFailed(
      { toolsets: unknown.map((n) => `${n} is not a toolset; known toolsets: ${known}`) },
      `Unknown toolset ${unknown[0]}; select from: ${known}.`,
    );
  }
  if (names.length === 0) return { toolsets: defaultToolsets, dynamic: false, readOnly };
  if (names.includes(ALL_TOOLSETS)) return { toolsets: null, dynamic: names.includes(DYNAMIC_MODE), readOnly };
  const selected = new Set(names.filter((n) => !KEYWORDS.includes(n)));
  if (names.includes(DEFAULT_TOOLSETS)) for (const name of defaultToolsets) selected.add(name);
  return { toolsets: selected, dynamic: names.includes(DYNAMIC_MODE), readOnly };
}

/** Whether the connection may run the tool at all (directly or, in dynamic mode, by name). */
export function allowsTool(tool: ToolDefinition, selection: ToolSelection): boolean {
  return !selection.readOnly || isReadOnly(tool);
}

/** Whether tools/list shows the tool and a direct tools/call reaches it. */
export function isSelected(tool: ToolDefinition, selection: ToolSelection): boolean {
  return allowsTool(tool, selection) && (selection.toolsets === null || selection.toolsets.has(tool.toolset));
}

/** Why a direct call cannot reach `tool` on this connection, and how to reach it. */
export function unselectedReason(tool: ToolDefinition, selection: ToolSelection): string {
  if (!allowsTool(tool, selection))
    return `it changes data and this connection is read-only (${READ_ONLY_HEADER}: true); connect without it to call ${tool.name}`;
  return `it is in the ${tool.toolset} toolset, outside this connection's toolsets; name it in the ${TOOLSETS_HEADER} header (e.g. default,${tool.toolset}) or ?${TOOLSETS_QUERY}=, or use the dynamic mode's call_tool`;
}

/** The operation tools a connection lists: selected, and callable with the token's abilities. */
export function listedTools(selection: ToolSelection, abilities: ReadonlySet<string>): ToolDefinition[] {
  return toolDefinitions.filter((tool) => isSelected(tool, selection) && holdsAbility(abilities, tool.ability));
}

/**
 * Why tools/list is empty for this token and connection, with what would fill it; null when it is
 * not. A narrow token must be told, not served a silent empty list.
 */
export function emptyListReason(selection: ToolSelection, abilities: ReadonlySet<string>): string | null {
  if (selection.dynamic || listedTools(selection, abilities).length > 0) return null;
  const elsewhere = toolDefinitions.filter((tool) => allowsTool(tool, selection) && holdsAbility(abilities, tool.ability));
  if (elsewhere.length > 0) {
    const sets = [...new Set(elsewhere.map((tool) => tool.toolset))].sort();
    return `No tool is listed: this token's abilities cover no tool in this connection's toolsets, but they do cover tools in ${sets.join(", ")}; name those in the ${TOOLSETS_HEADER} header (or ?${TOOLSETS_QUERY}=), or use "${DYNAMIC_MODE}".`;
  }
  const held = [...abilities].sort();
  const wanted = [...new Set(toolDefinitions.filter((tool) => allowsTool(tool, selection)).map((tool) => tool.ability))].slice(0, 8);
  return `No tool is listed: this token's abilities (${held.length ? held.join(", ") : "none"}) admit no tool${selection.readOnly ? " that only reads" : ""}. Every tool needs one ability (its _meta["subbridge/ability"]), e.g. ${wanted.join(", ")}; ask the token's owner for a token with the abilities of the tools you need (subbridge://team shows this token's abilities).`;
}
