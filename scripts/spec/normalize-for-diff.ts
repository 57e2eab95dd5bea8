// Prepares a bundled OpenAPI document for api-smart-diff: strips what is not contract (the
// generated banner), makes equivalent spellings compare equal (the order of a 3.1 type array),
// and turns each webhook into a pseudo-operation whose payload is a 200 response body, because the
// client receives a webhook payload the way it receives a response, and the library only knows
// the request/response direction of `paths`.
import { deref, inlineRefs } from "../../codegen/refs.ts";

type Json = Record<string, any>;

export const WEBHOOK_PATH_PREFIX = "/(webhook)/";

/** Keys whose values are data, not schema: a `type` array inside them is an example value. */
const DATA_KEYS = new Set(["example", "examples", "enum", "const", "default"]);

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function sortTypeArrays(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) sortTypeArrays(item);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYS.has(key)) continue;
    if (key === "type" && Array.isArray(value) && value.every((t) => typeof t === "string")) {
      const types = [...new Set(value as string[])].sort();
      node[key] = types.length === 1 ? types[0] : types;
    } else {
      sortTypeArrays(value);
    }
  }
}

function webhooksAsOperations(doc: Json): void {
  const webhooks = doc.webhooks;
  delete doc.webhooks;
  if (!isObject(webhooks)) return;
  doc.paths ??= {};
  for (const [name, item] of Object.entries<Json>(webhooks)) {
    const pseudo: Json = {};
    for (const [method, op] of Object.entries<Json>(item ?? {})) {
      if (!isObject(op)) continue;
      const { requestBody, responses: _receiverAnswers, ...rest } = op;
      const body: Json = requestBody ? deref(doc, requestBody) : {};
      pseudo[method] = {
        ...rest,
        responses: { "200": { description: body.description ?? `The ${name} payload.`, ...(body.content ? { content: body.content } : {}) } },
      };
    }
    doc.paths[`${WEBHOOK_PATH_PREFIX}${name}`] = pseudo;
  }
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/**
 * Every operation gets a parameters array, so that a first parameter is compared as one
 * parameter (required or not) rather than as a new `parameters` key the library calls additive.
 */
function explicitParameters(doc: Json): void {
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) if (isObject(item?.[method])) item[method].parameters ??= [];
  }
}

/**
 * A `$ref` with sibling keywords (`{$ref: PerPage, default: 25}`: a shared schema plus what one
 * use adds) is written out as the referenced schema with the siblings on top, which is what it
 * means; the library would otherwise compare the bare reference and see a schema of no type.
 */
function expandRefsWithSiblings(doc: Json, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => expandRefsWithSiblings(doc, n));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = DATA_KEYS.has(key) ? value : expandRefsWithSiblings(doc, value);
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...siblings } = out;
    return { ...(structuredClone(deref(doc, { $ref })) as Json), ...siblings };
  }
  return out;
}

/** Every reference to a component schema inside `node` replaced by the schema (they are not recursive). */
function inlineSchemaRefs(doc: Json, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineSchemaRefs(doc, n));
  if (!isObject(node)) return node;
  if (typeof node.$ref === "string" && node.$ref.startsWith("#/components/schemas/")) return inlineRefs(doc, node);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, DATA_KEYS.has(k) ? v : inlineSchemaRefs(doc, v)]));
}

/** A normalised deep copy of `doc`; `doc` itself is not changed. */
export function normalizeForDiff(doc: Json): Json {
  const copy = expandRefsWithSiblings(doc, structuredClone(doc)) as Json;
  // Schemas are compared by what they are, not by how they are spelled: a response schema moved
  // into a component ($ref) and the same schema written inline compare equal.
  for (const section of ["paths", "webhooks"]) if (copy[section]) copy[section] = inlineSchemaRefs(doc, copy[section]);
  delete copy["x-generated"];
  webhooksAsOperations(copy);
  explicitParameters(copy);
  sortTypeArrays(copy);
  return copy;
}
