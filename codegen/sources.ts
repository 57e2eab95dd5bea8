// Reads the hand-written sources in spec/ into plain data: the OpenAPI fragments, the ability
// catalog and the error catalog. Every other codegen stage starts from what this returns.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";

export const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
export const SPEC_DIR = join(ROOT, "spec");

export type Enforcement = "RM" | "R" | "Coming" | "None" | "Retired";
export const ENFORCEMENTS: readonly Enforcement[] = ["RM", "R", "Coming", "None", "Retired"];

export interface Ability {
  value: string;
  entity: string;
  action: string;
  enforcement: Enforcement;
  category: string;
  note?: string;
  /** Other abilities a holder of this one is also granted. */
  satisfies: string[];
  /**
   * Whether a token minted through the API (or an agent registration) may carry it: not retired,
   * and not listed under its entity's `not_mintable` (token:create is never passed on).
   */
  mintable: boolean;
}

export interface AbilityCatalog {
  categories: Record<string, string>;
  abilities: Ability[];
}

export interface ErrorDefinition {
  code: string;
  status: number;
  title: string;
  when: string;
  remediation: string;
}

export interface OpenApiFragment {
  file: string;
  document: Record<string, unknown>;
  /** The area an areas/<area>.yaml fragment describes (its operations' module: src/modules/<area>). */
  area?: string;
}

export interface Sources {
  abilities: AbilityCatalog;
  errors: ErrorDefinition[];
  fragments: OpenApiFragment[];
  /** spec/connector.schema.json, parsed. */
  connectorSchema: Record<string, unknown>;
}

function readYaml(path: string): unknown {
  return parse(readFileSync(path, "utf8"));
}

function fail(message: string): never {
  throw new Error(`spec: ${message}`);
}

export function loadAbilityCatalog(path = join(SPEC_DIR, "abilities.yaml")): AbilityCatalog {
  const raw = readYaml(path) as {
    categories: Record<string, string>;
    entities: Record<
      string,
      {
        category: string;
        actions: Record<string, Enforcement>;
        notes?: Record<string, string>;
        satisfies?: Record<string, string[]>;
        not_mintable?: string[];
      }
    >;
  };
  const abilities: Ability[] = [];
  for (const [entity, def] of Object.entries(raw.entities)) {
    if (!(def.category in raw.categories)) fail(`abilities.yaml: ${entity} has unknown category ${def.category}`);
    if (!/^[a-z]+(-[a-z]+)*$/.test(entity)) fail(`abilities.yaml: entity ${entity} is not kebab-case`);
    for (const key of def.not_mintable ?? []) {
      if (!(key in def.actions)) fail(`abilities.yaml: not_mintable names unknown action ${entity}:${key}`);
    }
    for (const key of Object.keys(def.notes ?? {})) {
      if (!(key in def.actions)) fail(`abilities.yaml: note for unknown action ${entity}:${key}`);
    }
    for (const [action, enforcement] of Object.entries(def.actions)) {
      if (!ENFORCEMENTS.includes(enforcement)) fail(`abilities.yaml: ${entity}:${action} has unknown enforcement ${enforcement}`);
      const ability: Ability = {
        value: `${entity}:${action}`,
        entity,
        action,
        enforcement,
        category: def.category,
        satisfies: [...(def.satisfies?.[action] ?? [])].sort(),
        mintable: enforcement !== "Retired" && !(def.not_mintable ?? []).includes(action),
      };
      const note = def.notes?.[action];
      if (note) ability.note = note.trim();
      abilities.push(ability);
    }
  }
  abilities.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const values = new Set(abilities.map((a) => a.value));
  if (values.size !== abilities.length) fail("abilities.yaml: duplicate ability");
  for (const a of abilities) {
    for (const s of a.satisfies) if (!values.has(s)) fail(`abilities.yaml: ${a.value} satisfies unknown ability ${s}`);
  }
  return { categories: raw.categories, abilities };
}

export function loadErrorCatalog(path = join(SPEC_DIR, "errors.yaml")): ErrorDefinition[] {
  const raw = readYaml(path) as Record<string, Omit<ErrorDefinition, "code">>;
  return Object.entries(raw).map(([code, def]) => {
    if (!/^[A-Z][A-Z0-9_]*$/.test(code)) fail(`errors.yaml: code ${code} is not UPPER_SNAKE_CASE`);
    if (!Number.isInteger(def.status) || def.status < 400 || def.status > 599) fail(`errors.yaml: ${code} has no 4xx/5xx status`);
    for (const key of ["title", "when", "remediation"] as const) {
      if (typeof def[key] !== "string" || !def[key].trim()) fail(`errors.yaml: ${code} lacks ${key}`);
    }
    return { code, status: def.status, title: def.title.trim(), when: def.when.trim(), remediation: def.remediation.trim() };
  });
}

function yamlFilesIn(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * The root document first, then the shared components (common.yaml), then one fragment per area
 * (areas/<area>.yaml: its tag, paths, components and webhooks), in a fixed (sorted) order. Specs of
 * older refs, split into paths/, schemas/ and webhooks/ folders, load too (for the spec diff).
 */
export function loadOpenApiFragments(dir = join(SPEC_DIR, "openapi")): OpenApiFragment[] {
  const read = (file: string, area?: string): OpenApiFragment => ({
    file: relative(ROOT, file),
    document: readYaml(file) as Record<string, unknown>,
    ...(area ? { area } : {}),
  });
  const legacy = ["paths", "schemas", "webhooks"].flatMap((sub) => yamlFilesIn(join(dir, sub)));
  const common = yamlFilesIn(dir).filter((f) => !f.endsWith("/openapi.yaml"));
  const areas = yamlFilesIn(join(dir, "areas")).map((file) => read(file, file.slice(file.lastIndexOf("/") + 1, -".yaml".length)));
  return [read(join(dir, "openapi.yaml")), ...common.map((f) => read(f)), ...legacy.map((f) => read(f)), ...areas];
}

export function loadSources(): Sources {
  return {
    abilities: loadAbilityCatalog(),
    errors: loadErrorCatalog(),
    fragments: loadOpenApiFragments(),
    connectorSchema: JSON.parse(readFileSync(join(SPEC_DIR, "connector.schema.json"), "utf8")),
  };
}
