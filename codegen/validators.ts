// generated/validators.*: ajv standalone validators per operation. Path and query validators
// coerce strings to the declared types (query arrays included); body validators never coerce.
// Both fill declared defaults.
import type { OperationModel } from "./operation-model.ts";
import { codeFile, type GeneratedFile } from "./output.ts";
import { createAjv, standaloneModule, stripExtensions, type Json } from "./ajv-standalone.ts";
import { deref } from "./refs.ts";

/** Each component schema is added to ajv on its own, under this id, so ajv compiles it once. */
const componentId = (name: string) => `urn:subbridge:schema:${name}`;

/** Points every components.schemas reference at that component's own schema. */
function retarget(node: any): any {
  if (Array.isArray(node)) return node.map(retarget);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] =
      k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")
        ? componentId(v.slice("#/components/schemas/".length))
        : retarget(v);
  }
  return out;
}

/**
 * ajv checks uniqueItems in linear time only when it can see that the items are scalars; behind a
 * $ref it compares every pair deeply (O(n²): 8 s of CPU for one 1 MiB request). Copying the
 * referenced scalar type next to the $ref changes nothing about what is valid and keeps the
 * check linear.
 */
function hoistUniqueItemTypes(doc: Json, node: any): any {
  if (Array.isArray(node)) return node.map((n) => hoistUniqueItemTypes(doc, n));
  if (!node || typeof node !== "object") return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, hoistUniqueItemTypes(doc, v)]));
  const items = out.items;
  if (out.uniqueItems === true && items && typeof items.$ref === "string" && items.type === undefined) {
    const target = deref(doc, items);
    if (["string", "number", "integer", "boolean"].includes(target?.type)) out.items = { ...items, type: target.type };
  }
  return out;
}

function parametersSchema(params: OperationModel["pathParams"], additional: boolean): Json {
  return {
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, retarget(p.schema)])),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: additional,
  };
}

export function emitValidators(doc: Json, ops: OperationModel[]): GeneratedFile[] {
  // inlineRefs false, and every component a schema of its own: a schema referenced from many
  // operations (ids, paging, enums, resources) is one shared function, not a copy per operation.
  const params = createAjv({ coerceTypes: "array", useDefaults: true, inlineRefs: false });
  const bodies = createAjv({ coerceTypes: false, useDefaults: true, inlineRefs: false });
  const components = stripExtensions(retarget(hoistUniqueItemTypes(doc, doc.components?.schemas ?? {}))) as Json;
  for (const [name, schema] of Object.entries<Json>(components)) {
    params.addSchema({ ...schema, $id: componentId(name) });
    bodies.addSchema({ ...schema, $id: componentId(name) });
  }

  const paramExports: Record<string, string> = {};
  const bodyExports: Record<string, string> = {};
  const rows: string[] = [];
  for (const op of ops) {
    const row = { path: "null", query: "null", body: "null" };
    if (op.pathParams.length) {
      const id = `${op.id}__path`;
      params.addSchema(stripExtensions({ $id: id, ...parametersSchema(op.pathParams, false) }));
      paramExports[id] = id;
      row.path = `params.${id}`;
    }
    if (op.queryParams.length) {
      const id = `${op.id}__query`;
      params.addSchema(stripExtensions({ $id: id, ...parametersSchema(op.queryParams, true) }));
      paramExports[id] = id;
      row.query = `params.${id}`;
    }
    if (op.body) {
      const id = `${op.id}__body`;
      bodies.addSchema(stripExtensions({ $id: id, ...retarget(hoistUniqueItemTypes(doc, op.body.schema)) }));
      bodyExports[id] = id;
      row.body = `bodies.${id}`;
    }
    rows.push(`  ${op.id}: { path: ${row.path}, query: ${row.query}, body: ${row.body} },`);
  }

  const source = "generated/openapi.json (ajv standalone)";
  return [
    codeFile("validators.params.js", "validators.ts", source, standaloneModule(params, paramExports)),
    codeFile("validators.body.js", "validators.ts", source, standaloneModule(bodies, bodyExports)),
    codeFile(
      "validators.js",
      "validators.ts",
      source,
      [
        `import * as params from "./validators.params.js";`,
        `import * as bodies from "./validators.body.js";`,
        ``,
        `export const validators = {`,
        ...rows,
        `};`,
      ].join("\n"),
    ),
    codeFile(
      "validators.d.ts",
      "validators.ts",
      source,
      [
        `import type { OperationId } from "./operations.ts";`,
        ``,
        `export interface ValidationError {`,
        `  instancePath: string;`,
        `  schemaPath: string;`,
        `  keyword: string;`,
        `  params: Record<string, any>;`,
        `  message?: string;`,
        `}`,
        ``,
        `/** Validates (and coerces and fills defaults in) data in place; errors describe every failure. */`,
        `export interface ValidateFunction {`,
        `  (data: unknown): boolean;`,
        `  errors?: ValidationError[] | null;`,
        `}`,
        ``,
        `export declare const validators: Record<OperationId, { path: ValidateFunction | null; query: ValidateFunction | null; body: ValidateFunction | null }>;`,
      ].join("\n"),
    ),
  ];
}
