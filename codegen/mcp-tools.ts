// generated/mcp-tools.json: one MCP tool per operation whose ability is enforced on REST and MCP
// (RM). The input schema merges path, query and body fields into one flat object with every
// $ref inlined (several clients fail on $defs); the output schema is the success body's schema.
import type { OperationModel } from "./operation-model.ts";
import { inlineRefs, deref } from "./refs.ts";
import { jsonFile, type GeneratedFile } from "./output.ts";
import { stripExtensions, type Json } from "./ajv-standalone.ts";
import { areaOfTag, restWording } from "./bundle.ts";

/** Keys of the merged input object, by where each belongs in the REST request. */
export interface ToolArgumentMap {
  path: string[];
  query: string[];
  /** Body fields spread into the arguments, or "body" when the body is not an object. */
  body: string[] | "body" | null;
  /** Arguments only the tool takes, outside the REST request (a keyset list's cursor, a write's idempotency_key); absent when none. */
  tool?: string[];
}

/** Pagination's deprecated `limit` alias is a REST nicety; tools offer per_page only. */
const PAGINATION_ALIASES = new Set(["limit"]);
/** A keyset tool (x-mcp-keyset) reads newest first and pages by cursor, not by number or column. */
const KEYSET_DROPS = new Set(["limit", "page", "sort_by", "sort_direction"]);

/** The cursor a keyset tool takes: opaque, from the previous result's meta.next_cursor. */
export const KEYSET_CURSOR: Json = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  pattern: "^[A-Za-z0-9_-]+$",
  description: "Where to continue: meta.next_cursor of the previous result. Omit for the newest rows.",
};

/**
 * A write tool's retry key, with REST's Idempotency-Key semantics (src/pipeline/idempotency.ts):
 * the same key and arguments answer the kept result, other arguments are refused.
 */
export const IDEMPOTENCY_KEY_ARGUMENT = "idempotency_key";

function idempotencyKeyArgument(op: OperationModel): Json {
  const repeat = op.responseSchema ? "the first result (24 h)" : "nothing kept";
  // No length bounds: the call checks them itself (tool-arguments.ts), and every byte is sent on each connection.
  return {
    type: "string",
    description: `Retry key, a fresh UUID per change. Same key+arguments: ${repeat}; other arguments: IDEMPOTENCY_KEY_REUSED.`,
  };
}

/** A keyset tool's result: the REST page's rows, and where the next page starts (null: none). */
function keysetOutput(rest: Json): Json {
  return {
    type: "object",
    required: ["data", "meta"],
    additionalProperties: false,
    properties: {
      data: rest.properties.data,
      meta: {
        type: "object",
        required: ["per_page", "next_cursor"],
        additionalProperties: false,
        properties: { per_page: { type: "integer" }, next_cursor: { type: ["string", "null"] } },
      },
    },
  };
}

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
  const dropped = op.keyset ? KEYSET_DROPS : PAGINATION_ALIASES;
  const query = op.queryParams.filter((p) => !(op.pagination && dropped.has(p.name)));
  for (const p of query) add(p.name, (op.pagination && pagingArgument(op.pagination, p.name)) || describeParameter(p), p.required);
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
  if (op.keyset) add("cursor", KEYSET_CURSOR, false);
  if (op.write) add(IDEMPOTENCY_KEY_ARGUMENT, idempotencyKeyArgument(op), false);
  const toolOnly = [...(op.keyset ? ["cursor"] : []), ...(op.write ? [IDEMPOTENCY_KEY_ARGUMENT] : [])];
  const schema: Json = { type: "object", properties, additionalProperties: false };
  if (required.length) schema.required = required;
  const compacted = compact(stripExtensions(inlineRefs(doc, schema)), false);
  JSON.stringify(compacted, (key, value) => {
    const slips = key === "description" && typeof value === "string" ? restWording(value) : [];
    if (slips.length) throw new Error(`spec: ${op.id}: an argument's description mentions ${slips.join(", ")}; the MCP tool shows it to a model`);
    return value;
  });
  return {
    schema: compacted,
    args: { path: op.pathParams.map((p) => p.name), query: query.map((p) => p.name), body, ...(toolOnly.length ? { tool: toolOnly } : {}) },
  };
}

/**
 * The paging arguments of a list tool, short and closed: REST lets an unoffered sort_by fall back
 * to created_at (the description's list rule), a tool offers exactly the columns as an enum.
 */
function pagingArgument(p: NonNullable<OperationModel["pagination"]>, name: string): Json | null {
  switch (name) {
    case "page":
      return { type: "integer", minimum: 1, default: 1, description: "Page number, from 1." };
    case "per_page":
      // Clamped, as REST clamps it, rather than refused: no maximum in the schema.
      return { type: "integer", minimum: 1, default: p.defaultPerPage, description: `Rows per page, up to ${p.maxPerPage} rows (more is clamped).` };
    case "sort_by":
      return {
        type: "string",
        enum: p.sortBy,
        default: p.sortBy.includes("created_at") ? "created_at" : p.sortBy[0],
        description: "The column rows are ordered by.",
      };
    case "sort_direction":
      return {
        type: "string",
        enum: ["asc", "desc"],
        default: p.defaultSortDirection,
        description: "asc: oldest or smallest first; desc: newest or largest first.",
      };
    default:
      return null;
  }
}

/**
 * Drops keywords an agent does not need: examples everywhere and, in output schemas (which
 * describe what comes back rather than what may be sent), descriptions, patterns and long enums
 * (the ability catalog alone is 107 values). tools/list is sent to the model on every
 * connection, so every byte counts; structuredContent is still validated against what remains.
 */
const LONG_ENUM = 20;

/**
 * What an output schema keeps: the shape (which fields, of which types, closed sets of values).
 * Bounds, formats, patterns, `required` and `additionalProperties: false` only matter to a
 * sender; a model reads the shape, and a client validating structuredContent still can.
 */
const OUTPUT_KEYWORDS = new Set(["type", "properties", "items", "enum", "const", "oneOf", "anyOf"]);

function compact(schema: Json, forOutput: boolean): Json {
  const keep = (node: Json, k: string, v: unknown) => {
    if (k === "examples" || k === "example") return false;
    if (forOutput) return OUTPUT_KEYWORDS.has(k) && !(k === "enum" && Array.isArray(v) && v.length > LONG_ENUM);
    // A uuid or date-time says it all; its regex only costs the model's context.
    return !(k === "pattern" && typeof node.format === "string");
  };
  const walk = (node: any): any => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== "object") return node;
    const out = Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => keep(node, k, v))
        .map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, walk(s)])) : walk(v)]),
    );
    // An array's description says what its items are; the items' own (a generic id) repeats it.
    if (!forOutput && out.type === "array" && out.description && out.items?.description) {
      const { description: _d, ...items } = out.items;
      out.items = items;
    }
    return forOutput ? nullableVariant(out) : out;
  };
  return walk(schema);
}

/** `oneOf: [X, {type: null}]` (a nullable object) as X with type [.., "null"]: the same shape, shorter. */
function nullableVariant(node: Json): Json {
  const variants = node.oneOf ?? node.anyOf;
  if (!Array.isArray(variants) || variants.length !== 2) return node;
  const nullIndex = variants.findIndex((v: Json) => v.type === "null" && Object.keys(v).length === 1);
  const other = variants[1 - nullIndex];
  if (nullIndex < 0 || typeof other?.type !== "string") return node;
  const { oneOf: _o, anyOf: _a, ...rest } = node;
  return { ...rest, ...other, type: [other.type, "null"] };
}

/** A list's `links` are REST page URLs a tool caller cannot follow; page and per_page do that. */
function withoutPageLinks(schema: Json, op: OperationModel): Json {
  if (!op.pagination || !schema.properties?.links) return schema;
  const { links: _links, ...properties } = schema.properties;
  return { ...schema, properties };
}

/** The ability travels in _meta["subbridge/ability"]; tools/list only shows tools the token can call. */
function toolDescription(op: OperationModel): string {
  const parts = [(op.mcpDescription ?? op.description).trim()];
  if (op.pagination && op.keyset)
    parts.push("Paged by cursor, newest first: pass meta.next_cursor of a result as cursor for the next rows (null: no more).");
  else if (op.pagination) parts.push("Paginated: the result has data and meta (current_page, last_page, total).");
  if (op.write) parts.push(`Retry-safe with ${IDEMPOTENCY_KEY_ARGUMENT}.`);
  return parts.join(" ");
}

/**
 * Hints as MCP reads them, omitting those equal to the protocol's defaults (readOnlyHint false,
 * idempotentHint false); destructiveHint and openWorldHint default to true, so they are always
 * sent. A read-only tool's other hints are meaningless and left out.
 */
function annotations(op: OperationModel) {
  if (op.method === "GET") return { readOnlyHint: true, openWorldHint: false };
  const idempotent = op.method === "PUT" || op.method === "DELETE";
  return { destructiveHint: op.destructive, ...(idempotent ? { idempotentHint: true } : {}), openWorldHint: false };
}

/** The toolsets: one per tag, with the ones a connection gets by default named in the root document. */
function toolsets(doc: Json, tools: { name: string; toolset: string }[]) {
  const defaults: string[] = doc["x-mcp-toolsets"]?.default ?? [];
  const sets = (doc.tags ?? [])
    .map((tag: Json) => ({
      name: areaOfTag(tag.name),
      title: tag.name as string,
      description: tag.description as string,
      default: defaults.includes(areaOfTag(tag.name)),
      tools: tools.filter((t) => t.toolset === areaOfTag(tag.name)).map((t) => t.name),
    }))
    .filter((set: { tools: string[] }) => set.tools.length > 0)
    .sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));
  const unknown = defaults.filter((name) => !sets.some((set: { name: string }) => set.name === name));
  if (unknown.length) throw new Error(`spec: x-mcp-toolsets.default names ${unknown.join(", ")}, which no tool belongs to`);
  return sets;
}

/**
 * A write whose result has exactly the shape a read tool already declares (create_plan and get_plan
 * both answer {data: plan}) names that tool instead of repeating its output schema: tools/list
 * is sent on every connection, and outputSchema is optional (structuredContent is still sent).
 */
function shareReadOutputs(tools: { name: string; description: string; operation: { method: string }; outputSchema?: Json }[]): void {
  const readOf = new Map<string, string>();
  for (const tool of tools) {
    const key = tool.outputSchema && JSON.stringify(tool.outputSchema);
    if (key && tool.operation.method === "GET" && !readOf.has(key)) readOf.set(key, tool.name);
  }
  for (const tool of tools) {
    const read = tool.operation.method !== "GET" && tool.outputSchema ? readOf.get(JSON.stringify(tool.outputSchema)) : undefined;
    if (!read) continue;
    delete tool.outputSchema;
    tool.description += ` Result: as ${read}.`;
  }
}

/** Every "tool.argument" whose schema has no description: a model reads nothing else about it. */
export function undescribedArguments(tools: readonly { name: string; inputSchema: Json }[]): string[] {
  return tools.flatMap((tool) =>
    Object.entries<Json>(tool.inputSchema.properties ?? {})
      .filter(([, schema]) => typeof schema.description !== "string" || schema.description.trim() === "")
      .map(([name]) => `${tool.name}.${name}`),
  );
}

export function emitMcpTools(doc: Json, ops: OperationModel[], release: string): GeneratedFile {
  const tools = ops
    .filter((op) => op.mcp)
    .map((op) => {
      const { schema, args } = inputSchema(doc, op);
      const rest = op.responseSchema ? inlineRefs(doc, op.responseSchema) : null;
      const output = rest ? withoutPageLinks(compact(stripExtensions(op.keyset ? keysetOutput(rest) : rest), true), op) : null;
      return {
        name: op.id,
        title: op.summary,
        description: toolDescription(op),
        ability: op.ability,
        tags: op.tags,
        toolset: op.area,
        operation: { method: op.method, path: op.path, success_status: op.successStatus },
        arguments: args,
        inputSchema: schema,
        ...(output && output.type === "object" ? { outputSchema: output } : {}),
        annotations: annotations(op),
      };
    });
  shareReadOutputs(tools);
  const undescribed = undescribedArguments(tools);
  if (undescribed.length)
    throw new Error(
      `spec: ${undescribed.length} tool argument(s) have no description (add one to the parameter or schema property): ${undescribed.join(", ")}`,
    );
  const sets = toolsets(doc, tools);
  return jsonFile("mcp-tools.json", "mcp-tools.ts", "generated/openapi.json (operations whose x-ability is RM)", {
    release,
    count: tools.length,
    default_count: sets.filter((set: { default: boolean }) => set.default).reduce((n: number, set: { tools: string[] }) => n + set.tools.length, 0),
    toolsets: sets,
    tools,
  });
}
