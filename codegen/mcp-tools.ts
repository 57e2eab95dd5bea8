// generated/mcp-tools.json: one MCP tool per operation whose ability is enforced on REST and MCP
// (RM). The input schema merges path, query and body fields into one flat object with every
// $ref inlined (several clients fail on $defs); the output schema is the success body's schema.
import type { OperationModel } from "./operation-model.ts";
import { inlineRefs, deref } from "./refs.ts";
import { jsonFile, type GeneratedFile } from "./output.ts";
import { stripExtensions, type Json } from "./ajv-standalone.ts";

/** Keys of the merged input object, by where each belongs in the REST request. */
export interface ToolArgumentMap {
  path: string[];
  query: string[];
  /** Body fields spread into the arguments, or "body" when the body is not an object. */
  body: string[] | "body" | null;
}

/** Pagination's deprecated `limit` alias is a REST nicety; tools offer per_page only. */
const PAGINATION_ALIASES = new Set(["limit"]);

function describeParameter(p: { description?: string; schema: Json }): Json {
  return p.description && !p.schema.description ? { ...p.schema, description: p.description } : p.schema;
}

function inputSchema(doc: Json, op: OperationModel): { schema: Json; args: ToolArgumentMap } {
  const properties: Json = {};
  const required: string[] = [];
  const add = (name: string, schema: Json, isRequired: boolean) => {
    if (name in properties) throw new Error(`spec: ${op.id}: argument ${name} appears twice in path, query and body`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const p of op.pathParams) add(p.name, describeParameter(p), true);
  // Only lists have the alias; elsewhere (the activity log) `limit` is a parameter of its own.
  const query = op.queryParams.filter((p) => !(op.pagination && PAGINATION_ALIASES.has(p.name)));
  for (const p of query) add(p.name, describeParameter(p), p.required);
  let body: ToolArgumentMap["body"] = null;
  if (op.body) {
    const schema = deref(doc, op.body.schema);
    if (schema.type === "object" && schema.properties) {
      body = Object.keys(schema.properties);
      for (const [name, s] of Object.entries<Json>(schema.properties)) add(name, s, (schema.required ?? []).includes(name));
    } else {
      body = "body";
      add("body", op.body.schema, op.body.required);
    }
  }
  const schema: Json = { type: "object", properties, additionalProperties: false };
  if (required.length) schema.required = required;
  return {
    schema: compact(stripExtensions(inlineRefs(doc, schema)), false),
    args: { path: op.pathParams.map((p) => p.name), query: query.map((p) => p.name), body },
  };
}

/**
 * Drops keywords an agent does not need: examples everywhere and, in output schemas (which
 * describe what comes back rather than what may be sent), descriptions, patterns and long enums
 * (the ability catalog alone is 107 values). tools/list is sent to the model on every
 * connection, so every byte counts; structuredContent is still validated against what remains.
 */
const LONG_ENUM = 20;

function compact(schema: Json, forOutput: boolean): Json {
  const dropInOutput = (k: string, v: unknown) =>
    ((k === "description" || k === "title" || k === "pattern") && typeof v === "string") ||
    (k === "enum" && Array.isArray(v) && v.length > LONG_ENUM);
  const walk = (node: any): any => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => k !== "examples" && k !== "example" && !(forOutput && dropInOutput(k, v)))
        .map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, walk(s)])) : walk(v)]),
    );
  };
  return walk(schema);
}

function toolDescription(op: OperationModel): string {
  const parts = [(op.mcpDescription ?? op.description).trim()];
  if (op.pagination) {
    // page and per_page describe themselves (bounds, defaults) in the input schema.
    parts.push(`Paginated (page, per_page <= ${op.pagination.maxPerPage}).`);
  }
  parts.push(`Requires the ability ${op.ability}.`);
  return parts.join(" ");
}

export function emitMcpTools(doc: Json, ops: OperationModel[], release: string): GeneratedFile {
  const tools = ops
    .filter((op) => op.mcp)
    .map((op) => {
      const { schema, args } = inputSchema(doc, op);
      const output = op.responseSchema ? compact(stripExtensions(inlineRefs(doc, op.responseSchema)), true) : null;
      const readOnly = op.method === "GET";
      return {
        name: op.id,
        title: op.summary,
        description: toolDescription(op),
        ability: op.ability,
        tags: op.tags,
        operation: { method: op.method, path: op.path, success_status: op.successStatus },
        arguments: args,
        inputSchema: schema,
        ...(output && output.type === "object" ? { outputSchema: output } : {}),
        annotations: {
          title: op.summary,
          readOnlyHint: readOnly,
          destructiveHint: op.destructive,
          idempotentHint: readOnly || op.method === "PUT" || op.method === "DELETE",
          openWorldHint: false,
        },
      };
    });
  return jsonFile("mcp-tools.json", "mcp-tools.ts", "generated/openapi.json (operations whose x-ability is RM)", {
    release,
    count: tools.length,
    tools,
  });
}
