// What the discovery documents say about the API is read from the generated catalogs (built from
// spec/ by `npm run codegen`), never written by hand: tool names, ability groups and counts follow
// the spec on every start.
import { readGeneratedJson } from "../../../repository-files.ts";

interface AbilityEntry {
  value: string;
  category: string;
  enforcement: string;
  mintable: boolean;
}
interface AbilityFile {
  count: number;
  grantable_count: number;
  mintable_count: number;
  categories: Record<string, string>;
  abilities: AbilityEntry[];
}
interface ToolEntry {
  name: string;
  title: string;
  ability: string;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean };
}
interface ToolsetEntry {
  name: string;
  title: string;
  description: string;
  default: boolean;
  tools: string[];
}
interface ToolFile {
  count: number;
  default_count: number;
  toolsets: ToolsetEntry[];
  tools: ToolEntry[];
}
interface OpenApiFile {
  paths: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, unknown>;
}

/** An ability category of spec/abilities.yaml with the MCP tools its abilities gate. */
export interface AbilityGroup {
  id: string;
  description: string;
  abilities: number;
  tools: { name: string; title: string }[];
}

export interface DiscoveryCatalogs {
  abilityCount: number;
  mintableAbilityCount: number;
  /** Ability groups in the spec's category order; groups whose abilities gate no tool are left out. */
  groups: AbilityGroup[];
  toolCount: number;
  defaultToolCount: number;
  toolsets: ToolsetEntry[];
  operationCount: number;
  webhookEvents: string[];
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

function loadCatalogs(): DiscoveryCatalogs {
  const abilities = readGeneratedJson<AbilityFile>("abilities.json");
  const tools = readGeneratedJson<ToolFile>("mcp-tools.json");
  const openapi = readGeneratedJson<OpenApiFile>("openapi.json");
  const categoryOf = new Map(abilities.abilities.map((a) => [a.value, a.category]));
  const groups = Object.entries(abilities.categories)
    .map(([id, description]) => ({
      id,
      description,
      abilities: abilities.abilities.filter((a) => a.category === id).length,
      tools: tools.tools.filter((t) => categoryOf.get(t.ability) === id).map((t) => ({ name: t.name, title: t.title })),
    }))
    .filter((g) => g.tools.length > 0);
  const operationCount = Object.values(openapi.paths).flatMap((item) => Object.keys(item).filter((m) => METHODS.has(m))).length;
  return {
    abilityCount: abilities.count,
    mintableAbilityCount: abilities.mintable_count,
    groups,
    toolCount: tools.count,
    defaultToolCount: tools.default_count,
    toolsets: tools.toolsets,
    operationCount,
    webhookEvents: Object.keys(openapi.webhooks ?? {}).sort(),
  };
}

let cached: DiscoveryCatalogs | null = null;
/** Read once per process: the generated files do not change while it runs. */
export function discoveryCatalogs(): DiscoveryCatalogs {
  return (cached ??= loadCatalogs());
}

/** "Projects" for the category id "projects": the group's display name. */
export const groupTitle = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
