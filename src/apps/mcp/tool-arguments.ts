// A tool takes one flat arguments object; the REST operation behind it takes path parameters, a
// query and a body. The `arguments` map of generated/mcp-tools.json says where each key goes, so
// the generated validators (src/operations/validate.ts) check tool calls exactly as REST requests.
import { addFieldError, emptyFieldErrors, type FieldErrors } from "../../errors.ts";
import type { RawInput } from "../../pipeline/validate.ts";
import { operationOfTool, type ToolDefinition } from "./tool-catalog.ts";
import { MAX_KEY_LENGTH } from "../../pipeline/idempotency.ts";

/** A write tool's retry key (codegen/mcp-tools.ts adds it to every write tool). */
export const IDEMPOTENCY_KEY_ARGUMENT = "idempotency_key";

export interface SplitArguments {
  raw: RawInput;
  /**
   * What REST cannot express and the validators therefore never see: unknown keys, and path
   * parameters that are missing or not strings (a URL segment is always a string).
   */
  problems: FieldErrors;
  /** Arguments only the tool takes (they are strings; the handler reads them). */
  toolOnly: Record<string, string>;
}

export function splitToolArguments(tool: ToolDefinition, args: Record<string, unknown>): SplitArguments {
  const map = tool.arguments;
  const raw: RawInput = { path: {}, query: {}, body: undefined };
  const problems = emptyFieldErrors();
  const toolOnly = Object.create(null) as Record<string, string>;
  // Keys are the client's: `__proto__` must stay a key, never become a prototype.
  const bodyFields = Object.create(null) as Record<string, unknown>;
  let bodyGiven = false;
  for (const [key, value] of Object.entries(args)) {
    if (map.path.includes(key)) {
      if (typeof value === "string") raw.path[key] = value;
      else addFieldError(problems, key, "must be of type string");
    } else if (map.query.includes(key)) {
      raw.query[key] = value;
      if (key === "sort_by") refuseUnofferedColumn(tool, value, problems);
    } else if (map.tool?.includes(key)) {
      if (typeof value !== "string") addFieldError(problems, key, "must be of type string");
      else if (key === IDEMPOTENCY_KEY_ARGUMENT && (value.length === 0 || value.length > MAX_KEY_LENGTH))
        addFieldError(problems, key, `must be 1 to ${MAX_KEY_LENGTH} characters`);
      else toolOnly[key] = value;
    } else if (map.body === "body" && key === "body") {
      raw.body = value;
    } else if (Array.isArray(map.body) && map.body.includes(key)) {
      bodyFields[key] = value;
      bodyGiven = true;
    } else {
      addFieldError(problems, key, "is not a known argument of this tool");
    }
  }
  for (const key of map.path) if (!Object.hasOwn(args, key)) addFieldError(problems, key, "is required");
  // A required object body is sent even when empty, so its required fields are named one by one.
  if (Array.isArray(map.body) && (bodyGiven || operationOfTool(tool).body === "required")) raw.body = bodyFields;
  return { raw, problems, toolOnly };
}

/**
 * REST lets an unoffered sort_by fall back to created_at (the description's list rule); a tool
 * offers its columns as an enum, so a model that names another one is told, not silently served
 * another order.
 */
function refuseUnofferedColumn(tool: ToolDefinition, column: unknown, problems: FieldErrors): void {
  const offered = operationOfTool(tool).pagination?.sortBy;
  if (offered && !(typeof column === "string" && offered.includes(column)))
    addFieldError(problems, "sort_by", `must be one of: ${offered.join(", ")}`);
}

/**
 * The arguments as one canonical JSON text (keys sorted at every level, the retry key left out):
 * what an idempotency key's kept result is bound to, however a client orders its keys.
 */
export function canonicalArguments(args: Record<string, unknown>): string {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted);
    if (!value || typeof value !== "object") return value;
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // fromEntries defines own properties, so a `__proto__` key stays a key.
    return Object.fromEntries(entries.map(([k, v]) => [k, sorted(v)]));
  };
  const { [IDEMPOTENCY_KEY_ARGUMENT]: _key, ...rest } = args;
  return JSON.stringify(sorted(rest));
}

/** The REST address the call stands for (list envelopes link to REST pages). */
export function restUrlOfCall(baseUrl: string, pathTemplate: string, raw: RawInput): URL {
  const path = pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(raw.path[name] ?? ""));
  const url = new URL(baseUrl + path);
  for (const [key, value] of Object.entries(raw.query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
  }
  return url;
}
