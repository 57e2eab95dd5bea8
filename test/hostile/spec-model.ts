// What the hostile suite knows about the service, read only from generated/: every operation's
// path and query parameters and request body (every $ref resolved, every body field found by
// walking the schema), every MCP tool's flat input schema and argument map, and the input limits
// the OpenAPI description documents. Nothing here names an operation, a parameter or a tool, so
// operations added to the spec are covered without editing the suite.
import { readFileSync } from "node:fs";
import { operationList, type OperationSpec } from "../../generated/operations.ts";

export type Json = Record<string, any>;

const load = (name: string): Json => JSON.parse(readFileSync(new URL(`../../generated/${name}`, import.meta.url), "utf8"));

export const openapi: Json = load("openapi.json");
const toolsDocument: Json = load("mcp-tools.json");

/** Follows local $refs ("#/components/schemas/X") to the schema they name. */
export function deref(node: Json | undefined): Json {
  let current: Json = node ?? {};
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    if (hops > 64) throw new Error(`$ref chain too long at ${current.$ref}`);
    const ref: string = current.$ref;
    const target = ref
      .slice(2)
      .split("/")
      .reduce((n: Json | undefined, key) => n?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], openapi);
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    current = target;
  }
  return current;
}

/**
 * The input limits of the description's "Request bodies and parameters" section. The fallbacks
 * are the values that section documents, for a spec that has not written them down yet.
 */
const description = String(openapi.info?.description ?? "");
export const limits = {
  maxDepth: Number(/at most (\d+) levels deep/.exec(description)?.[1] ?? 32),
  maxBodyBytes: Number(/at most (\d+) MiB/.exec(description)?.[1] ?? 1) * 1024 * 1024,
};

export interface ParamModel {
  name: string;
  in: "path" | "query";
  schema: Json;
  required: boolean;
  /** The parameter this one is a documented alias of ("Alias of per_page ..."), if any. */
  aliasOf: string | null;
}

/** A place in a JSON value: the root ([]), a property, or an array item ("0"). */
export interface FieldModel {
  path: string[];
  /** Dereferenced schema of the value at `path`. */
  schema: Json;
}

export interface OperationModel {
  op: OperationSpec;
  pathParams: ParamModel[];
  queryParams: ParamModel[];
  body: { schema: Json; required: boolean } | null;
  /** Every place in the body, the root first; empty without a body. */
  fields: FieldModel[];
  /** The `maximum` of a `limit` query parameter: no 200 may carry more `data` items. */
  limitMaximum: number | null;
}

export interface ToolModel {
  name: string;
  op: OperationSpec;
  arguments: { path: string[]; query: string[]; body: string[] | "body" | null };
  inputSchema: Json;
  outputSchema: Json | null;
  /** Every place in the arguments object, the root first. */
  fields: FieldModel[];
}

export const fieldName = (path: readonly string[]) => path.join(".");

const isObjectSchema = (s: Json) => s.type === "object" || (Array.isArray(s.type) && s.type.includes("object")) || "properties" in s;

/** The properties a schema declares, through allOf/oneOf/anyOf branches too. */
export function propertiesOf(schema: Json): Record<string, Json> {
  const s = deref(schema);
  const props: Record<string, Json> = { ...(s.properties ?? {}) };
  for (const branch of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) Object.assign(props, propertiesOf(branch));
  return props;
}

export const acceptsObject = (schema: Json) => isObjectSchema(deref(schema)) || Object.keys(propertiesOf(schema)).length > 0;

/** Walks a schema (with its own stack) to every property and array item, stopping at recursion. */
export function fieldsOf(root: Json, maxDepth = 8): FieldModel[] {
  const out: FieldModel[] = [];
  const stack: { path: string[]; schema: Json; seen: readonly string[] }[] = [{ path: [], schema: root, seen: [] }];
  while (stack.length) {
    const { path, schema, seen } = stack.shift()!;
    const ref = typeof schema.$ref === "string" ? schema.$ref : null;
    if (ref && seen.includes(ref)) continue;
    const resolved = deref(schema);
    out.push({ path, schema: resolved });
    if (path.length >= maxDepth) continue;
    const next = ref ? [...seen, ref] : seen;
    for (const [key, child] of Object.entries(propertiesOf(resolved))) stack.push({ path: [...path, key], schema: child, seen: next });
    if (resolved.items && typeof resolved.items === "object") stack.push({ path: [...path, "0"], schema: resolved.items, seen: next });
  }
  return out;
}

function paramsOf(op: OperationSpec): ParamModel[] {
  const item = openapi.paths[op.path] ?? {};
  const operation = item[op.method.toLowerCase()] ?? {};
  const all = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(deref);
  return all
    .filter((p) => p.in === "path" || p.in === "query")
    .map((p) => ({
      name: p.name,
      in: p.in,
      schema: deref(p.schema),
      required: p.required === true,
      aliasOf: /alias of `?([A-Za-z0-9_]+)`?/i.exec(String(p.description ?? ""))?.[1] ?? null,
    }));
}

function modelOf(op: OperationSpec): OperationModel {
  const operation = openapi.paths[op.path]?.[op.method.toLowerCase()] ?? {};
  const requestBody = operation.requestBody ? deref(operation.requestBody) : null;
  const bodySchema = requestBody?.content?.["application/json"]?.schema;
  const params = paramsOf(op);
  const limit = params.find((p) => p.in === "query" && p.name === "limit");
  return {
    op,
    pathParams: params.filter((p) => p.in === "path"),
    queryParams: params.filter((p) => p.in === "query"),
    body: bodySchema ? { schema: bodySchema, required: requestBody!.required === true } : null,
    fields: bodySchema ? fieldsOf(bodySchema) : [],
    limitMaximum: typeof limit?.schema.maximum === "number" ? limit.schema.maximum : null,
  };
}

export const operationModels: OperationModel[] = operationList.map(modelOf);

/**
 * A write's idempotency_key is left out: a key repeated across cases with other arguments is
 * refused as IDEMPOTENCY_KEY_REUSED by design (test/mcp/agent-setup.test.ts covers it), which no
 * per-case oracle can foresee.
 */
function withoutRetryKey(schema: Json): Json {
  if (!schema.properties?.idempotency_key) return schema;
  const { idempotency_key: _key, ...properties } = schema.properties;
  return { ...schema, properties };
}

export const toolModels: ToolModel[] = (toolsDocument.tools as Json[]).map((tool) => {
  const op = operationList.find((o) => o.id === tool.name || (o.method === tool.operation?.method && o.path === tool.operation?.path));
  if (!op) throw new Error(`mcp-tools.json: tool ${tool.name} names no operation`);
  const inputSchema = withoutRetryKey(tool.inputSchema);
  return {
    name: tool.name,
    op,
    arguments: tool.arguments,
    inputSchema,
    outputSchema: tool.outputSchema ?? null,
    fields: fieldsOf(inputSchema),
  };
});

export const modelOfOperation = (op: OperationSpec) => operationModels.find((m) => m.op.id === op.id)!;
