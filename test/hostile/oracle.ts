// What the spec says must happen to a request, computed from the request alone: which parts are
// invalid by their JSON schema (an independent ajv, coercing path and query strings as the spec's
// "integer" parameters require), which break the documented rules (UTF-8, 1 MiB, 32 levels, no
// NUL or unpaired surrogate, finite numbers, application/json), and which field names a 422 may
// give. "422" means refused as VALIDATION_FAILED naming one of `names`; "4xx" any refusal.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { limits, openapi, type Json, type OperationModel, type ParamModel, type ToolModel } from "./spec-model.ts";
import { depthOf, unsafeSpots, utf8Text } from "./json-text.ts";
import type { RestCase } from "./rest-cases.ts";

export interface Expectation {
  refusal: "422" | "4xx" | null;
  names: Set<string>;
  reasons: string[];
}

type AjvInstance = InstanceType<typeof Ajv2020.default>;
function makeAjv(coerceTypes: false | "array"): AjvInstance {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true, coerceTypes });
  (addFormats as unknown as typeof addFormats.default)(ajv);
  ajv.addSchema({ $id: "spec.json", components: openapi.components });
  return ajv;
}
const strictAjv = makeAjv(false);
const coercingAjv = makeAjv("array");

/** Schemas point at "#/components/..."; compiled under spec.json so the references resolve. */
const retarget = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"spec.json#/components/'));
const compiled = new Map<string, ReturnType<AjvInstance["compile"]>>();
function validator(ajv: AjvInstance, schema: Json) {
  const key = `${ajv === strictAjv ? "s" : "c"}${JSON.stringify(schema)}`;
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = ajv.compile(retarget(schema))));
  return v;
}

/** Field names of ajv errors as the error envelope writes them (dotted, "body" for the root). */
function errorFields(errors: readonly { instancePath: string; keyword: string; params: Record<string, unknown> }[], root: string): string[] {
  return errors.map((e) => {
    const parts = e.instancePath
      .split("/")
      .slice(1)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (e.keyword === "required") parts.push(String(e.params.missingProperty));
    if (e.keyword === "additionalProperties") parts.push(String(e.params.additionalProperty));
    return parts.length ? parts.join(".") : root;
  });
}

class Expecting implements Expectation {
  refusal: "422" | "4xx" | null = null;
  names = new Set<string>();
  reasons: string[] = [];
  refuse422(names: readonly string[], reason: string) {
    if (this.refusal === null) this.refusal = "422";
    for (const n of names) this.names.add(n);
    this.reasons.push(reason);
  }
  refuseAny(reason: string) {
    this.refusal = "4xx";
    this.reasons.push(reason);
  }
}

/** A single value against a parameter schema, as a coercing validator sees it; the problem or null. */
function paramProblem(p: ParamModel, value: unknown, coerce: boolean): string | null {
  const holder = { v: value };
  const v = validator(coerce ? coercingAjv : strictAjv, { type: "object", properties: { v: p.schema } });
  if (!v(holder)) return `${p.name} fails its schema: ${v.errors?.map((e) => e.message).join("; ")}`;
  if (unsafeSpots(holder.v).length) return `${p.name} holds NUL, an unpaired surrogate or a non-finite number`;
  return null;
}

/** application/json, or a +json type (which a server may take as JSON too). */
const isJsonMedia = (contentType: string | undefined) => {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return media === "application/json" || /^application\/[^/]+\+json$/.test(media);
};

/**
 * Body rules, shared by REST bodies and MCP request bodies: the parsed value, or why none and
 * which fields a refusal may name ("body", or for a body nesting too deep also the top-level
 * fields holding the deep part). The nesting limit applies to a REST body as a whole; an MCP
 * request checks it per argument.
 */
export function readBody(bytes: Buffer, checkDepth = true): { json?: unknown; problem?: string; names?: string[]; empty?: boolean } {
  if (bytes.length > limits.maxBodyBytes) return { problem: `body over ${limits.maxBodyBytes} bytes`, names: ["body"] };
  const text = utf8Text(bytes);
  if (text === null) return { problem: "body is not valid UTF-8", names: ["body"] };
  if (text.replace(/^\uFEFF/, "").trim() === "") return { empty: true };
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return { problem: "body is not JSON", names: ["body"] };
  }
  if (checkDepth && depthOf(json) > limits.maxDepth) {
    const deep = json !== null && typeof json === "object" && !Array.isArray(json) ? Object.entries(json) : [];
    const names = ["body", ...deep.filter(([, v]) => depthOf(v) >= limits.maxDepth).map(([k]) => k)];
    return { problem: `body nests deeper than ${limits.maxDepth} levels`, names };
  }
  return { json };
}

/** A query as the WHATWG URLSearchParams reads it: one value, or every value of a repeated key. */
function parseQuery(raw: string): Map<string, string | string[]> {
  const params = new URLSearchParams(raw);
  const query = new Map<string, string | string[]>();
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query.set(key, values.length === 1 ? values[0]! : values);
  }
  return query;
}

export function expectRest(model: OperationModel, c: RestCase): Expectation {
  const out = new Expecting();
  const [pathPart, queryPart = ""] = splitTarget(c.target);
  const template = model.op.path.split("/");
  const segments = pathPart.split("/");
  template.forEach((t, i) => {
    const p = model.pathParams.find((q) => t === `{${q.name}}`);
    if (!p) return;
    let value: string;
    try {
      value = decodeURIComponent(segments[i] ?? "");
    } catch {
      return out.refuseAny(`path ${p.name} is not decodable`);
    }
    const problem = paramProblem(p, value, true);
    if (problem) out.refuseAny(`path ${problem} (a malformed id names nothing)`);
  });

  const query = parseQuery(queryPart);
  for (const p of model.queryParams) {
    if (!query.has(p.name)) continue;
    if (p.aliasOf && query.has(p.aliasOf)) continue; // the documented target wins
    const problem = paramProblem(p, query.get(p.name), true);
    const aliases = model.queryParams.filter((q) => q.aliasOf === p.name).map((q) => q.name);
    if (problem) out.refuse422([p.name, ...(p.aliasOf ? [p.aliasOf] : []), ...aliases], `query ${problem}`);
  }

  if (model.body) {
    const bytes = c.body ?? Buffer.alloc(0);
    const read = readBody(bytes);
    if (read.problem) out.refuse422(read.names!, read.problem);
    else if (read.empty) {
      if (model.body.required) out.refuse422(["body"], "the operation requires a body");
    } else if (!isJsonMedia(c.headers["content-type"]))
      out.refuse422(["body"], `a body sent as ${JSON.stringify(c.headers["content-type"] ?? null)}`);
    else {
      const spots = unsafeSpots(read.json);
      if (spots.length)
        out.refuse422(
          spots.map((s) => s || "body"),
          `body holds NUL, an unpaired surrogate or a non-finite number at ${spots}`,
        );
      const v = validator(strictAjv, model.body.schema);
      if (!v(read.json)) out.refuse422(errorFields(v.errors ?? [], "body"), `body fails its schema: ${strictAjv.errorsText(v.errors)}`);
    }
  }
  return out;
}

export function splitTarget(target: string): [string, string] {
  const q = target.indexOf("?");
  return q < 0 ? [target, ""] : [target.slice(0, q), target.slice(q + 1)];
}

export const NOT_AN_OBJECT = "arguments is not an object";

/** What a tools/call with these (parsed) arguments must answer. */
export function expectTool(tool: ToolModel, args: unknown): Expectation {
  const out = new Expecting();
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    out.refuseAny(NOT_AN_OBJECT);
    return out;
  }
  const record = args as Record<string, unknown>;
  const props: Json = tool.inputSchema.properties ?? {};
  const where = (key: string) =>
    tool.arguments.path.includes(key) ? "path" : tool.arguments.query.includes(key) ? "query" : key in props ? "body" : "unknown";
  for (const required of tool.inputSchema.required ?? []) if (!Object.hasOwn(record, required)) out.refuse422([required], `${required} is missing`);
  for (const [key, value] of Object.entries(record)) {
    const place = where(key);
    if (place === "unknown") out.refuse422([key], `${JSON.stringify(key)} is not an argument of ${tool.name}`);
    else if (depthOf(value) > limits.maxDepth) out.refuse422([key, "body"], `${key} nests deeper than ${limits.maxDepth} levels`);
    else {
      const param: ParamModel = { name: key, in: "query", schema: props[key], required: false, aliasOf: null };
      const problem = place === "path" && typeof value !== "string" ? `${key} is not a string` : paramProblem(param, value, place === "query");
      if (problem && place === "path") out.refuseAny(`path argument ${problem}`);
      else if (problem) out.refuse422([key], problem);
    }
  }
  return out;
}

/** Whether an envelope's `fields` names one of the expected places (itself, a parent or a child). */
export function namesExpected(fields: Record<string, unknown>, names: Set<string>): boolean {
  const printable = (s: string) => s.replace(/\u0000/g, "\\u0000").toWellFormed();
  const expected = [...names].flatMap((n) => [n, printable(n)]);
  return Object.keys(fields).some((k) => expected.some((n) => k === n || n.startsWith(`${k}.`) || k.startsWith(`${n}.`)));
}
