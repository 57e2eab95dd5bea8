// subbridge://toolsets: every tool group with its tools and their abilities, so an agent (or the
// person configuring it) knows what to select with X-MCP-Toolsets and which abilities to mint.
import { isDestructive, isReadOnly, toolNamed, toolsets } from "../tool-catalog.ts";
import {
  ALL_TOOLSETS,
  DEFAULT_TOOLSETS,
  DYNAMIC_MODE,
  READ_ONLY_HEADER,
  READ_ONLY_QUERY,
  TOOLSETS_HEADER,
  TOOLSETS_QUERY,
} from "../tool-selection.ts";

export function toolsetCatalog() {
  return {
    selecting: {
      header: `${TOOLSETS_HEADER}: <toolset>,<toolset> (or ?${TOOLSETS_QUERY}= on the endpoint URL); nothing selects the default toolsets, "${DEFAULT_TOOLSETS}" stands for them, "${ALL_TOOLSETS}" selects every toolset`,
      dynamic: `"${DYNAMIC_MODE}" adds list_toolsets, search_tools, describe_tool, call_tool and call_destructive_tool, which reach every tool by name`,
      read_only: `${READ_ONLY_HEADER}: true (or ?${READ_ONLY_QUERY}=true) keeps only read-only tools`,
      abilities: "tools/list shows only tools whose ability the token holds",
    },
    toolsets: [...toolsets.values()].map((set) => {
      const tools = set.tools.map((name) => toolNamed(name)!);
      return {
        name: set.name,
        tag: set.title,
        description: set.description,
        default: set.default,
        abilities: [...new Set(tools.map((t) => t.ability))].sort(),
        tools: tools.map((tool) => ({
          name: tool.name,
          title: tool.title,
          ability: tool.ability,
          read_only: isReadOnly(tool),
          destructive: isDestructive(tool),
        })),
      };
    }),
  };
}
