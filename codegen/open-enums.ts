// Response enums as open unions ("a" | "b" | (string & {})): the API may add a value to an enum
// it answers at any time (an additive change), and a compiled client must still accept it and be
// able to compare it. Request-side enums stay closed, so a typo in a value sent is a compile error.
// Works on a copy of the bundled document before openapi-typescript reads it: an enum only responses
// and webhooks reach is marked open; a shared enum component is inlined, marked open, where a
// response-only schema refers to it. A schema that requests use as well keeps its enums closed.
import ts from "typescript";

type Json = Record<string, any>;

/**
 * Where an open enum's values move to in the copy: openapi-typescript turns an `enum` into a closed
 * union before any hook sees it, while a plain string schema reaches the `transform` hook.
 */
const OPEN = "x-open-enum";
const SCHEMA_REF = "#/components/schemas/";
/**
 * Kept closed: the error catalog, so a table over its codes can be exhaustive (the SDK's
 * ERROR_FAMILY_BY_CODE); clients read codes through the SDK's open SubBridgeErrorCode.
 */
const CLOSED = new Set(["ErrorCode"]);

function isStringEnum(schema: unknown): schema is Json {
  if (!schema || typeof schema !== "object" || !Array.isArray((schema as Json).enum)) return false;
  const values = (schema as Json).enum as unknown[];
  return values.some((v) => typeof v === "string") && values.every((v) => typeof v === "string" || v === null);
}

/** Names of the component schemas a `$ref` inside `node` reaches, followed through other components. */
export function reachedSchemas(doc: Json, node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) reachedSchemas(doc, item, into);
  else if (node && typeof node === "object") {
    const ref = (node as Json).$ref;
    if (typeof ref === "string" && ref.startsWith(SCHEMA_REF)) {
      const name = ref.slice(SCHEMA_REF.length);
      if (!into.has(name)) {
        into.add(name);
        reachedSchemas(doc, doc.components?.schemas?.[name], into);
      }
    } else if (typeof ref === "string" && ref.startsWith("#/components/")) {
      const [, , kind, name] = ref.split("/");
      reachedSchemas(doc, doc.components?.[kind!]?.[name!], into);
    } else for (const value of Object.values(node)) reachedSchemas(doc, value, into);
  }
  return into;
}

/** The component schemas requests reach (bodies, parameters) and those responses and webhooks reach. */
export function schemaSides(doc: Json): { requests: Set<string>; responses: Set<string> } {
  const requests = new Set<string>();
  const responses = new Set<string>();
  for (const item of Object.values<Json>(doc.paths ?? {}))
    for (const op of Object.values<Json>(item)) {
      if (!op || typeof op !== "object" || !("responses" in op)) continue;
      reachedSchemas(doc, op.requestBody, requests);
      reachedSchemas(doc, op.parameters, requests);
      reachedSchemas(doc, op.responses, responses);
    }
  reachedSchemas(doc, doc.webhooks, responses);
  return { requests, responses };
}

/** Moves an enum schema's values under the open marker, in place. */
function opened(schema: Json): Json {
  schema[OPEN] = schema.enum;
  delete schema.enum;
  return schema;
}

/** Marks, in place, every enum under `node` open, inlining (marked open) each shared enum component it refers to. */
function openEnumsUnder(doc: Json, node: unknown, shared: Set<string>): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      const name = typeof item?.$ref === "string" && item.$ref.startsWith(SCHEMA_REF) ? item.$ref.slice(SCHEMA_REF.length) : undefined;
      if (name && shared.has(name)) node[i] = opened(structuredClone(doc.components.schemas[name]));
      else openEnumsUnder(doc, item, shared);
    });
    return;
  }
  if (!node || typeof node !== "object") return;
  const object = node as Json;
  if (isStringEnum(object)) opened(object);
  for (const [key, value] of Object.entries(object)) {
    if (key === "enum" || key === "example" || key === "examples" || key === "default") continue;
    const name = typeof value?.$ref === "string" && value.$ref.startsWith(SCHEMA_REF) ? value.$ref.slice(SCHEMA_REF.length) : undefined;
    if (name && shared.has(name)) object[key] = opened(structuredClone(doc.components.schemas[name]));
    else openEnumsUnder(doc, value, shared);
  }
}

/** A copy of `doc` whose response-side enums carry the open marker (see the header). */
export function withOpenResponseEnums(source: Json): Json {
  const doc = structuredClone(source);
  const { requests, responses } = schemaSides(doc);
  const schemas: Json = doc.components?.schemas ?? {};
  const shared = new Set([...requests].filter((name) => isStringEnum(schemas[name])));
  for (const name of Object.keys(schemas).sort()) {
    if (responses.has(name) && !requests.has(name) && !CLOSED.has(name)) openEnumsUnder(doc, schemas[name], shared);
  }
  for (const item of Object.values<Json>(doc.paths ?? {}))
    for (const op of Object.values<Json>(item)) if (op && typeof op === "object" && "responses" in op) openEnumsUnder(doc, op.responses, shared);
  for (const response of Object.values<Json>(doc.components?.responses ?? {})) openEnumsUnder(doc, response, shared);
  return doc;
}

/** openapi-typescript's `transform` hook: a marked enum becomes its values, then `(string & {})`. */
export function openEnumType(schema: unknown): ts.TypeNode | undefined {
  if (!schema || typeof schema !== "object" || !Array.isArray((schema as Json)[OPEN])) return undefined;
  const values = (schema as Json)[OPEN] as (string | null)[];
  const literal = (v: string | null) => ts.factory.createLiteralTypeNode(v === null ? ts.factory.createNull() : ts.factory.createStringLiteral(v));
  const anyOtherString = ts.factory.createIntersectionTypeNode([
    ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword),
    ts.factory.createTypeLiteralNode([]),
  ]);
  return ts.factory.createUnionTypeNode([...values.map(literal), anyOtherString]);
}
