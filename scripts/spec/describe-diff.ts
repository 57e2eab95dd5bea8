// Turns one api-smart-diff difference (a JSON path in the bundled document plus an action) into
// words a reviewer reads: which operation, where in it (a parameter, the request body, a response,
// a header), which field and what happened. The library's own descriptions are uneven (some are
// missing, some name an optional parameter "required"), so every sentence is written here.
import type { Diff } from "api-smart-diff";
import { resolvePointer } from "../../codegen/refs.ts";
import { HTTP_METHODS, WEBHOOK_PATH_PREFIX } from "./normalize-for-diff.ts";

type Json = Record<string, any>;
export type JsonPath = (string | number)[];

/** Which way the data travels: the client sends a request, receives a response. */
export type Direction = "request" | "response" | "none";

export interface OperationRef {
  method: string;
  path: string;
  operationId?: string;
  /** Set for webhook events (compared as pseudo-operations). */
  webhook?: string;
}

export interface DiffDescription {
  operation?: OperationRef;
  /** The part of the operation or document: "response 200", "error responses", "request body", "query parameter `limit`". */
  where: string;
  /** The response status, when the change is inside one response. */
  status?: string;
  /** What happened, without the operation and place: "field `data.personal` removed". */
  what: string;
  direction: Direction;
  /** The dotted field inside a body or parameter schema ("" for the whole value). */
  field?: string;
  /** The schema or object keyword that changed (type, enum, required, maximum, description ...). */
  keyword?: string;
  /** The value of an enum or required entry that was added or removed. */
  entry?: unknown;
  /** Examples, descriptions, summaries and other text that does not change the contract. */
  documentation: boolean;
  /** The diff marks something deprecated. */
  deprecation: boolean;
  /** Operation-level extension or key (operationId, x-ability, security, x-destructive ...). */
  operationKey?: string;
}

export interface DiffDocuments {
  before: Json;
  after: Json;
}

const DOC_KEYWORDS = new Set(["description", "summary", "title", "example", "examples", "$comment", "externalDocs", "tags"]);
const COMPOSITION = new Set(["allOf", "anyOf", "oneOf"]);

export const isErrorStatus = (status: string) => /^([45]\d\d|[45]XX|default)$/.test(status);

const show = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text === undefined ? "nothing" : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function deref(doc: Json, node: unknown): any {
  let current: any = node;
  for (let i = 0; i < 20 && current && typeof current === "object" && typeof current.$ref === "string"; i++) {
    try {
      current = resolvePointer(doc, current.$ref);
    } catch {
      return undefined;
    }
  }
  return current;
}

/** The node at `path`, following $refs on the way (api-smart-diff reports paths in the resolved document). */
export function nodeAt(doc: Json, path: JsonPath): any {
  let node: any = doc;
  for (const key of path) {
    node = deref(doc, node);
    if (node === undefined || node === null || typeof node !== "object") return undefined;
    node = node[key];
  }
  return deref(doc, node);
}

/**
 * The node at `path` in the after document, where `path` indexes arrays as the before document
 * does (api-smart-diff keeps the before indices of matched items). Parameters are matched by
 * name and location, the way the library matches them.
 */
export function counterpartAt(docs: DiffDocuments, path: JsonPath): any {
  let before: any = docs.before;
  let after: any = docs.after;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    before = deref(docs.before, before);
    after = deref(docs.after, after);
    if (after === undefined || after === null || typeof after !== "object") return undefined;
    if (path[i - 1] === "parameters" && typeof key === "number" && Array.isArray(after)) {
      const wanted = deref(docs.before, before?.[key]);
      before = wanted;
      after = after.find((p: unknown) => {
        const param = deref(docs.after, p);
        return param?.name === wanted?.name && param?.in === wanted?.in;
      });
      continue;
    }
    before = before?.[key];
    after = after[key];
  }
  return deref(docs.after, after);
}

function fieldName(parts: string[]): string {
  return parts.reduce((name, part) => (part.startsWith("[") || part === "{*}" ? name + part : name ? `${name}.${part}` : part), "");
}

interface SchemaPosition {
  field: string;
  keyword?: string;
  rest: JsonPath;
}

/** Splits a path inside a schema into the field it names and the keyword that changed. */
function schemaPosition(path: JsonPath): SchemaPosition {
  const parts: string[] = [];
  let i = 0;
  while (i < path.length) {
    const key = path[i];
    if (key === "properties" && i + 1 < path.length) {
      parts.push(String(path[i + 1]));
      i += 2;
    } else if (key === "items") {
      parts.push("[]");
      i += 1;
    } else if (key === "prefixItems" && i + 1 < path.length) {
      parts.push(`[${path[i + 1]}]`);
      i += 2;
    } else if (key === "additionalProperties" && i + 1 < path.length) {
      parts.push("{*}");
      i += 1;
    } else if (COMPOSITION.has(String(key)) && i + 1 < path.length) {
      i += 2;
    } else {
      break;
    }
  }
  return { field: fieldName(parts), keyword: i < path.length ? String(path[i]) : undefined, rest: path.slice(i + 1) };
}

interface SchemaChange {
  what: string;
  field: string;
  keyword?: string;
  entry?: unknown;
  documentation: boolean;
  deprecation: boolean;
}

function describeSchemaChange(diff: Diff, path: JsonPath, subject: string): SchemaChange {
  const { field, keyword, rest } = schemaPosition(path);
  const name = (f: string) => (f ? `field \`${f}\`` : subject);
  const base = { field, keyword, documentation: false, deprecation: false };
  if (keyword === undefined) {
    const verb = diff.action === "add" ? "added" : diff.action === "remove" ? "removed" : "replaced";
    return { ...base, what: `${name(field)} ${verb}` };
  }
  if (keyword === "required") {
    const entry = rest.length ? (diff.action === "add" ? diff.after : diff.before) : undefined;
    if (entry !== undefined) {
      const target = fieldName([field, String(entry)].filter(Boolean));
      const what = diff.action === "add" ? `field \`${target}\` is now required` : `field \`${target}\` is no longer required`;
      return { ...base, entry, what };
    }
    return { ...base, what: `required fields of ${name(field)} changed from ${show(diff.before)} to ${show(diff.after)}` };
  }
  if (keyword === "enum" && rest.length) {
    const entry = diff.action === "add" ? diff.after : diff.before;
    const of = field ? ` ${diff.action === "remove" ? "from" : "to"} ${name(field)}` : "";
    const what =
      diff.action === "add"
        ? `value \`${show(entry)}\` added${of}`
        : diff.action === "remove"
          ? `value \`${show(entry)}\` removed${of}`
          : `value \`${show(diff.before)}\`${field ? ` of ${name(field)}` : ""} replaced by \`${show(diff.after)}\``;
    return { ...base, entry, what };
  }
  if (DOC_KEYWORDS.has(keyword)) return { ...base, documentation: true, what: field ? `${keyword} of ${name(field)} changed` : `${keyword} changed` };
  if (keyword === "deprecated") {
    const on = diff.action !== "remove" && diff.after === true;
    return { ...base, deprecation: on, what: on ? `${name(field)} deprecated` : `${name(field)} no longer deprecated` };
  }
  if (keyword === "type") return { ...base, what: `type of ${name(field)} changed` };
  if (diff.action === "add") return { ...base, what: `\`${keyword}\` ${show(diff.after)} added to ${name(field)}` };
  if (diff.action === "remove") return { ...base, what: `\`${keyword}\` ${show(diff.before)} removed from ${name(field)}` };
  return { ...base, what: `\`${keyword}\` of ${name(field)} changed from ${show(diff.before)} to ${show(diff.after)}` };
}

const verbOf = (diff: Diff) => (diff.action === "add" ? "added" : diff.action === "remove" ? "removed" : "changed");

function operationRef(docs: DiffDocuments, path: string, method: string, diff: Diff): OperationRef {
  const op = diff.action === "add" ? nodeAt(docs.after, ["paths", path, method]) : nodeAt(docs.before, ["paths", path, method]);
  const ref: OperationRef = { method: method.toUpperCase(), path };
  if (typeof op?.operationId === "string") ref.operationId = op.operationId;
  if (path.startsWith(WEBHOOK_PATH_PREFIX)) ref.webhook = path.slice(WEBHOOK_PATH_PREFIX.length);
  return ref;
}

type DescriptionParts = Omit<DiffDescription, "operation" | "documentation" | "deprecation"> & { documentation?: boolean; deprecation?: boolean };

function describeParameter(diff: Diff, docs: DiffDocuments, opPath: JsonPath, rel: JsonPath): DescriptionParts {
  const index = rel[1];
  const param =
    rel.length === 2 && diff.action === "add"
      ? diff.after
      : rel.length === 2 && diff.action === "remove"
        ? diff.before
        : nodeAt(docs.before, [...opPath, "parameters", index]);
  const where = `${param?.in ?? "?"} parameter \`${param?.name ?? index}\``;
  const rest = rel.slice(2);
  if (rest.length === 0) {
    const what =
      diff.action === "add" ? (param?.required ? "added (required)" : "added (optional)") : diff.action === "remove" ? "removed" : "replaced";
    return { where, what, direction: "request" };
  }
  const key = String(rest[0]);
  if (key === "required") {
    const now = diff.action !== "remove" && diff.after === true;
    return { where, what: now ? "is now required" : "is no longer required", direction: "request", keyword: "required" };
  }
  if (key === "schema") {
    const change = describeSchemaChange(diff, rest.slice(1), "the value");
    return { where, direction: "request", ...change };
  }
  if (key === "deprecated") {
    const on = diff.action !== "remove" && diff.after === true;
    return { where, what: on ? "deprecated" : "no longer deprecated", direction: "request", keyword: key, deprecation: on };
  }
  if (key === "name" && rest.length === 1) {
    // only a path parameter can be renamed in place: the URL template changed, not the URLs
    return { where, what: `renamed to \`${show(diff.after)}\``, direction: "request", keyword: key };
  }
  if (DOC_KEYWORDS.has(key)) return { where, what: `${key} ${verbOf(diff)}`, direction: "request", keyword: key, documentation: true };
  return { where, what: `\`${rest.join(".")}\` ${verbOf(diff)}`, direction: "request", keyword: key };
}

function describeBody(diff: Diff, rel: JsonPath, where: string, direction: Direction, status?: string): DescriptionParts {
  // rel starts after requestBody, or after responses/<status>
  const key = rel[0] === undefined ? undefined : String(rel[0]);
  const base = { where, direction, ...(status ? { status } : {}) };
  if (key === undefined) {
    const required = direction === "request" && diff.action === "add" && (diff.after as Json | undefined)?.required === true;
    return { ...base, what: required ? "added (required)" : verbOf(diff), ...(required ? { keyword: "required" } : {}) };
  }
  if (key === "required") {
    const now = diff.action !== "remove" && diff.after === true;
    return { ...base, what: now ? "is now required" : "is now optional", keyword: "required" };
  }
  if (key === "headers") {
    const name = rel[1];
    if (name === undefined) {
      const names = Object.keys(((diff.action === "remove" ? diff.before : diff.after) as Json | undefined) ?? {});
      return {
        ...base,
        what: `header${names.length === 1 ? "" : "s"} ${names.map((n) => `\`${n}\``).join(", ")} ${verbOf(diff)}`,
        keyword: "headers",
      };
    }
    if (rel.length === 2) return { ...base, what: `header \`${name}\` ${verbOf(diff)}`, keyword: "headers" };
    const inner = String(rel[2]);
    if (DOC_KEYWORDS.has(inner)) return { ...base, what: `${inner} of header \`${name}\` changed`, keyword: inner, documentation: true };
    if (inner === "schema") {
      const change = describeSchemaChange(diff, rel.slice(3), `header \`${name}\``);
      return { ...base, ...change, what: change.what.replace(/field `/, `header \`${name}\` field \``) };
    }
    return { ...base, what: `\`${rel.slice(2).join(".")}\` of header \`${name}\` ${verbOf(diff)}`, keyword: inner };
  }
  if (key === "content") {
    const mediaType = String(rel[1]);
    if (rel.length === 2) return { ...base, what: `media type ${mediaType} ${verbOf(diff)}`, keyword: "content" };
    const inner = String(rel[2]);
    if (inner === "schema") return { ...base, ...describeSchemaChange(diff, rel.slice(3), "the body") };
    if (DOC_KEYWORDS.has(inner))
      return { ...base, what: `${inner} ${rel.length === 3 ? verbOf(diff) : "changed"}`, keyword: inner, documentation: true };
    return { ...base, what: `\`${rel.slice(2).join(".")}\` of ${mediaType} ${verbOf(diff)}`, keyword: inner };
  }
  if (DOC_KEYWORDS.has(key)) return { ...base, what: `${key} changed`, keyword: key, documentation: true };
  return { ...base, what: `\`${rel.join(".")}\` ${verbOf(diff)}`, keyword: key };
}

function describeOperationKey(diff: Diff, key: string, rel: JsonPath): DescriptionParts {
  const base = { where: "operation", direction: "none" as const, operationKey: key };
  switch (key) {
    case "operationId":
      return { ...base, what: `operationId changed from \`${show(diff.before)}\` to \`${show(diff.after)}\`` };
    case "x-ability":
      return { ...base, what: `required ability changed from \`${show(diff.before)}\` to \`${show(diff.after)}\`` };
    case "security":
      return { ...base, what: "security requirements changed" };
    case "deprecated": {
      const on = diff.action !== "remove" && diff.after === true;
      return { ...base, what: on ? "operation deprecated" : "operation no longer deprecated", deprecation: on };
    }
    case "x-destructive":
      return { ...base, what: `x-destructive (the MCP tool's destructiveHint) ${verbOf(diff)}` };
    default:
      if (DOC_KEYWORDS.has(key)) return { ...base, what: `${key} changed`, documentation: true };
      return { ...base, what: `\`${rel.join(".")}\` ${verbOf(diff)}` };
  }
}

const DOCUMENT_METADATA = new Set(["info", "servers", "tags", "externalDocs", "openapi", "jsonSchemaDialect"]);

/** Describes `diff`; `null` when it is not about the contract (components are seen where used). */
export function describeDiff(diff: Diff, docs: DiffDocuments): DiffDescription | null {
  const path = diff.path as JsonPath;
  const top = String(path[0]);
  if (top === "components") {
    if (path[1] !== "securitySchemes") return null; // schemas, responses, parameters, headers: compared where operations use them
    const scheme = String(path[2] ?? "");
    const key = String(path[3] ?? "");
    return {
      where: "security scheme" + (scheme ? ` \`${scheme}\`` : "s"),
      what: key ? `\`${path.slice(3).join(".")}\` ${verbOf(diff)}` : verbOf(diff),
      direction: "none",
      keyword: key || undefined,
      operationKey: "security",
      documentation: key === "description",
      deprecation: false,
    };
  }
  if (top === "security")
    return {
      where: "document",
      what: "default security requirements changed",
      direction: "none",
      operationKey: "security",
      documentation: false,
      deprecation: false,
    };
  if (top === "x-generated") return null;
  if (DOCUMENT_METADATA.has(top)) {
    return { where: "document", what: `${path.join(".")} ${verbOf(diff)}`, direction: "none", keyword: top, documentation: true, deprecation: false };
  }
  if (top !== "paths") {
    return {
      where: "document",
      what: `${path.join(".")} ${verbOf(diff)}`,
      direction: "none",
      keyword: top,
      documentation: false,
      deprecation: false,
    };
  }
  if (path.length === 1 && diff.action === "rename") {
    return {
      where: "paths",
      what: `path \`${show(diff.before)}\` is now written \`${show(diff.after)}\` (a path parameter was renamed; the URLs are the same)`,
      direction: "none",
      documentation: false,
      deprecation: false,
    };
  }
  const pathKey = String(path[1]);
  const method = path[2] === undefined ? undefined : String(path[2]);
  if (!method || !HTTP_METHODS.includes(method)) {
    return {
      where: `path \`${pathKey}\``,
      what: `${path.slice(2).join(".") || "path"} ${verbOf(diff)}`,
      direction: "none",
      documentation: false,
      deprecation: false,
    };
  }
  const operation = operationRef(docs, pathKey, method, diff);
  const opPath = ["paths", pathKey, method];
  const rel = path.slice(3);
  if (rel[0] === "x-pagination") return null; // its effect is the pagination parameters, compared on their own
  let partial: DescriptionParts;
  if (rel.length === 0) {
    const noun = operation.webhook ? "event" : "operation";
    partial = {
      where: "operation",
      what: `${noun} ${diff.action === "add" ? "added" : diff.action === "remove" ? "removed" : "replaced"}`,
      direction: "none",
    };
  } else if (rel[0] === "parameters" && rel.length >= 2) {
    partial = describeParameter(diff, docs, opPath, rel);
  } else if (rel[0] === "requestBody") {
    partial = describeBody(diff, rel.slice(1), "request body", "request");
  } else if (rel[0] === "responses" && rel.length >= 2) {
    const status = String(rel[1]);
    if (rel.length === 2) partial = { where: "operation", what: `response ${status} ${verbOf(diff)}`, direction: "response", status };
    else if (operation.webhook) partial = describeBody(diff, rel.slice(2), "payload", "response");
    else partial = describeBody(diff, rel.slice(2), isErrorStatus(status) ? "error responses" : `response ${status}`, "response", status);
  } else {
    partial = describeOperationKey(diff, String(rel[0]), rel);
  }
  return { documentation: false, deprecation: false, ...partial, operation };
}
