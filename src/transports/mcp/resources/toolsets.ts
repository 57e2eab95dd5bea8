// subbridge://toolsets: every tool group with its tools and their abilities, so an agent (or the
// person configuring it) knows what to select with X-MCP-Toolsets and which abilities to mint.
import { toolsetName, toolsets, type ToolDefinition } from "../tool-catalog.ts";
import { ALL_TOOLSETS, READ_ONLY_HEADER, READ_ONLY_QUERY, TOOLSETS_HEADER, TOOLSETS_QUERY } from "../tool-selection.ts";
import { readGeneratedJson } from "../../../repository-files.ts";

function tagDescriptions(): Map<string, string> {
  const openapi = readGeneratedJson<{ tags?: { name: string; description?: string }[] }>("openapi.json");
  return new Map((openapi.tags ?? []).map((t) => [t.name, t.description ?? ""]));
}

const describeTool = (tool: ToolDefinition) => ({
  name: tool.name,
  title: tool.title,
  ability: tool.ability,
  read_only: tool.annotations.readOnlyHint,
  destructive: tool.annotations.destructiveHint,
});

export function toolsetCatalog() {
  const descriptions = tagDescriptions();
  return {
    selecting: {
      header: `${TOOLSETS_HEADER}: <toolset>,<toolset> (or ?${TOOLSETS_QUERY}= on the endpoint URL); "${ALL_TOOLSETS}" or nothing selects every toolset`,
      read_only: `${READ_ONLY_HEADER}: true (or ?${READ_ONLY_QUERY}=true) keeps only read-only tools`,
      default: "tools/list shows only tools whose ability the token holds",
    },
    toolsets: [...toolsets.entries()].map(([name, tools]) => {
      const tag = tools[0]!.tags.find((t) => toolsetName(t) === name)!;
      return {
        name,
        tag,
        description: descriptions.get(tag) ?? "",
        abilities: [...new Set(tools.map((t) => t.ability))].sort(),
        tools: tools.map(describeTool),
      };
    }),
  };
}
