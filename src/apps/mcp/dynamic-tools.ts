// The dynamic mode (`X-MCP-Toolsets: dynamic`): instead of every tool's schema up front, a model
// gets five small catalog tools - see the toolsets, search the tools, read one tool's definition,
// and call any tool by name - and reads a tool's schema only when it needs it (as the GitHub MCP
// server's dynamic toolsets do). The transport is stateless (no session to add tools to, so
// listChanged stays false): "enabling" a tool is calling it through call_tool, which runs the very
// same pipeline as a direct call (ability, tenancy, validation, activity).
//
// Destructive tools keep their confirmation: call_tool refuses them and call_destructive_tool,
// whose destructiveHint is true, runs them, so a client asks before it as it asks before a direct
// destructive call.
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import Ajv2020 from "ajv/dist/2020.js";
import { ApiError, validationFailed } from "../../errors.ts";
import { fieldErrors } from "../../pipeline/validate.ts";
import { holdsAbility } from "../../modules/tokens/abilities.ts";
import type { Principal } from "../../pipeline/context.ts";
import { isDestructive, isReadOnly, toolDefinitions, toolNamed, toolsets, wireCatalog, type ToolDefinition } from "./tool-catalog.ts";
import { invokeTool, type ToolCallDeps, type ToolCaller } from "./tool-call.ts";
import { toolFailure, toolSuccess } from "./tool-result.ts";
import { allowsTool, isSelected, type ToolSelection } from "./tool-selection.ts";

const NAME_ARGUMENT = { type: "string", pattern: "^[a-z][a-z0-9_]{0,59}$", description: "The tool's name, as search_tools returns it." };
const NO_ARGUMENTS = { type: "object" as const, properties: {}, additionalProperties: false };
const CATALOG_READ = { readOnlyHint: true, openWorldHint: false };
const CALL_ARGUMENTS = {
  type: "object" as const,
  properties: { name: NAME_ARGUMENT, arguments: { type: "object", description: "The tool's own arguments." } },
  required: ["name"],
  additionalProperties: false,
};
const SEARCH_LIMIT = { default: 10, max: 50 };

export const DYNAMIC_TOOLS: readonly Tool[] = [
  {
    name: "list_toolsets",
    title: "List toolsets",
    description:
      "Lists SubBridge's tool groups (projects, plans, members, support, webhooks...) with how many tools of each this token can call and whether this connection lists them already. Next: search_tools with a toolset or a few words.",
    inputSchema: NO_ARGUMENTS,
    annotations: CATALOG_READ,
  },
  {
    name: "search_tools",
    title: "Search tools",
    description:
      "Finds the tools this token can call by words (e.g. 'cancel subscription', 'generate access codes') and/or a toolset, best match first, with their title, short description and read-only/destructive flags. Next: describe_tool for a tool's arguments, then call_tool.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", maxLength: 200, description: "Words to look for in tool names and descriptions." },
        toolset: { type: "string", enum: [...toolsets.keys()] },
        limit: { type: "integer", minimum: 1, maximum: SEARCH_LIMIT.max, default: SEARCH_LIMIT.default },
      },
      additionalProperties: false,
    },
    annotations: CATALOG_READ,
  },
  {
    name: "describe_tool",
    title: "Describe a tool",
    description:
      "Returns one tool's full definition: what it does, its input schema (the arguments call_tool passes on), its output schema and its hints.",
    inputSchema: { type: "object", properties: { name: NAME_ARGUMENT }, required: ["name"], additionalProperties: false },
    annotations: CATALOG_READ,
  },
  {
    name: "call_tool",
    title: "Call a tool",
    description:
      "Runs a tool that is not destructive, by name, with its arguments as describe_tool lists them, and returns exactly what that tool returns (its result, or isError with the error envelope). A destructive tool is refused here: use call_destructive_tool.",
    inputSchema: CALL_ARGUMENTS,
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  {
    name: "call_destructive_tool",
    title: "Call a destructive tool",
    description:
      "Runs a destructive tool (a deletion, a ban, a cancellation...) by name with its arguments, and returns exactly what that tool returns. Confirm with the person first: the change cannot be undone.",
    inputSchema: CALL_ARGUMENTS,
    annotations: { destructiveHint: true, openWorldHint: false },
  },
];

for (const tool of DYNAMIC_TOOLS) {
  if (toolNamed(tool.name)) throw new Error(`dynamic tool ${tool.name} has the name of an operation's tool`);
}

const dynamicByName = new Map(DYNAMIC_TOOLS.map((t) => [t.name, t]));

/** Their arguments are checked as strictly as an operation's: unknown keys and wrong types refused. */
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
/** Compiled on a tool's first call, not at start: compiling all five took 80 ms of every start. */
const argumentValidators = new Map<string, ReturnType<typeof ajv.compile>>();
const argumentValidator = (name: string) => {
  let validate = argumentValidators.get(name);
  if (!validate) argumentValidators.set(name, (validate = ajv.compile(dynamicByName.get(name)!.inputSchema)));
  return validate;
};

export function isDynamicTool(name: string): boolean {
  return dynamicByName.has(name);
}

export interface DynamicCall {
  deps: ToolCallDeps;
  caller: ToolCaller;
  selection: ToolSelection;
  docsUrl: string;
}

/** The tools this principal could run through call_tool on this connection. */
function reachable(principal: Principal, selection: ToolSelection): ToolDefinition[] {
  return toolDefinitions.filter((tool) => allowsTool(tool, selection) && holdsAbility(principal.abilities, tool.ability));
}

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
    .map((w) => w.replace(/(?<=..)(es|s)$/, ""));

/** Name hits count most, then the title, then the description; a tool matching no word is left out. */
function score(tool: ToolDefinition, query: string[]): number {
  const name = new Set(words(tool.name.replaceAll("_", " ")));
  const title = new Set(words(tool.title));
  const text = new Set([...words(tool.description), tool.toolset]);
  return query.reduce((n, w) => n + (name.has(w) ? 4 : 0) + (title.has(w) ? 2 : 0) + (text.has(w) ? 1 : 0), 0);
}

const firstSentence = (text: string) => (text.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? text).slice(0, 200);

/**
 * Why a search found nothing, and what to try: tools that match but need abilities this token
 * lacks are named with those abilities (the human can grant them), else other words or a toolset.
 */
function noMatchNote(principal: Principal, selection: ToolSelection, query: string[], toolset: unknown): string {
  const inSet = (t: ToolDefinition) => typeof toolset !== "string" || t.toolset === toolset;
  const lacking = toolDefinitions
    .filter((t) => inSet(t) && allowsTool(t, selection) && !holdsAbility(principal.abilities, t.ability))
    .map((tool) => ({ tool, score: query.length ? score(tool, query) : 1 }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .slice(0, 5);
  const where = typeof toolset === "string" ? ` in the ${toolset} toolset` : "";
  if (lacking.length)
    return `No tool this token can call matches${where}. Matching tools need abilities this token lacks: ${lacking.map(({ tool }) => `${tool.name} (${tool.ability})`).join(", ")}; ask the token's owner for a token with them.`;
  const callable = reachable(principal, selection).length;
  if (callable === 0)
    return `No tool matches: this token can call no tool on this connection (its abilities cover none); ask its owner for a token with the abilities of the tools you need (subbridge://team lists this token's abilities).`;
  return `No tool matches${where}. Try fewer or other words (e.g. a noun such as 'plan', 'member' or 'webhook'), drop the toolset, or call list_toolsets to see the ${callable} tools this token can call by group.`;
}

function refused(err: ApiError, call: DynamicCall): CallToolResult {
  return toolFailure(err, call.caller.requestId, call.docsUrl);
}

function runnable(name: unknown, call: DynamicCall): ToolDefinition | ApiError {
  const tool = typeof name === "string" ? toolNamed(name) : undefined;
  if (!tool || !holdsAbility(call.caller.principal.abilities, tool.ability)) {
    return validationFailed(
      { name: ["names no tool this token can call; search_tools lists them"] },
      `No tool named ${String(name)} is available to this token.`,
    );
  }
  if (!allowsTool(tool, call.selection)) {
    return validationFailed(
      { name: ["is not read-only, and this connection is read-only"] },
      `${tool.name} changes data; this connection is read-only.`,
    );
  }
  return tool;
}

export async function callDynamicTool(name: string, args: Record<string, unknown>, call: DynamicCall): Promise<CallToolResult> {
  const { principal } = call.caller;
  const validate = argumentValidator(name);
  if (!validate(args)) return refused(validationFailed(fieldErrors(validate.errors ?? [], null, args)), call);
  switch (name) {
    case "list_toolsets": {
      const callable = reachable(principal, call.selection);
      return toolSuccess(name, {
        toolsets: [...toolsets.values()].map((set) => {
          const tools = callable.filter((t) => t.toolset === set.name);
          return {
            name: set.name,
            title: set.title,
            description: set.description,
            tools: tools.length,
            listed: tools.some((t) => isSelected(t, call.selection)),
          };
        }),
      });
    }
    case "search_tools": {
      const query = words(typeof args.query === "string" ? args.query : "");
      const limit = typeof args.limit === "number" ? args.limit : SEARCH_LIMIT.default;
      const found = reachable(principal, call.selection)
        .filter((t) => typeof args.toolset !== "string" || t.toolset === args.toolset)
        .map((tool) => ({ tool, score: query.length ? score(tool, query) : 1 }))
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
      return toolSuccess(name, {
        total: found.length,
        ...(found.length === 0 ? { note: noMatchNote(principal, call.selection, query, args.toolset) } : {}),
        tools: found.slice(0, limit).map(({ tool }) => ({
          name: tool.name,
          title: tool.title,
          toolset: tool.toolset,
          description: firstSentence(tool.description),
          read_only: isReadOnly(tool),
          destructive: isDestructive(tool),
        })),
      });
    }
    case "describe_tool": {
      const tool = runnable(args.name, call);
      if (tool instanceof ApiError) return refused(tool, call);
      return toolSuccess(name, { ...wireCatalog(call.deps)(tool.name), call_with: isDestructive(tool) ? "call_destructive_tool" : "call_tool" });
    }
    case "call_tool":
    case "call_destructive_tool": {
      const tool = runnable(args.name, call);
      if (tool instanceof ApiError) return refused(tool, call);
      if (name === "call_tool" && isDestructive(tool)) {
        return refused(validationFailed({ name: ["is destructive; run it with call_destructive_tool"] }, `${tool.name} is destructive.`), call);
      }
      return invokeTool(call.deps, call.caller, tool, (args.arguments ?? {}) as Record<string, unknown>);
    }
    default:
      throw new Error(`not a dynamic tool: ${name}`);
  }
}
