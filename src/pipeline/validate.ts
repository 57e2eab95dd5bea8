// Runs the generated validators on an operation's raw input and turns failures into the error
// envelope: 422 VALIDATION_FAILED with `fields`, or 404 for a malformed path id (it names nothing).
import type { Input, OperationId, OperationSpec } from "../../generated/operations.ts";
import { validators, type ValidateFunction, type ValidationError } from "../../generated/validators.js";
import { addFieldError, ApiError, emptyFieldErrors, mergeFieldErrors, validationFailed, type FieldErrors } from "../errors.ts";
import { whyNotMintable } from "../modules/tokens/abilities.ts";
import { collectUnsafeValues, ITEMS_MESSAGE, NESTING_MESSAGE, nestsDeeperThan, NUL_MESSAGE, overlongArrays } from "./input-safety.ts";
import { ONE_LINE_MESSAGE } from "../one-line.ts";
import { notAnIdMessage, patternMessage } from "./pattern-rules.ts";

export interface RawInput {
  path: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed JSON body; undefined when none was sent. */
  body: unknown;
}

/** The reference tokens of a JSON pointer ("/a~1b/0" → ["a/b", "0"]). */
const pointerParts = (pointer: string) =>
  pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));

const pointerToField = (pointer: string) => pointerParts(pointer).join(".");

/** The value an ajv error points at (instancePath is a JSON pointer into the validated data). */
function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const part of pointerParts(pointer)) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A short quotation of a refused value, so a long list's message names which entry is wrong. */
function quoted(value: unknown): string {
  const text =
    value !== null && typeof value === "object" ? (Array.isArray(value) ? "an array" : "an object") : (JSON.stringify(value) ?? String(value));
  return text.length > 66 ? `${text.slice(0, 63)}...` : text;
}

function message(e: ValidationError, data?: unknown): string {
  switch (e.keyword) {
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not a known field";
    case "enum": {
      const allowed = e.params.allowedValues as unknown[];
      if (allowed.length <= 12) return `must be one of: ${allowed.map(String).join(", ")}`;
      const value = valueAt(data, e.instancePath);
      // A real ability refused by the narrower MintableAbility enum deserves to be told why.
      const reason = typeof value === "string" ? whyNotMintable(value) : null;
      if (reason) return reason;
      return `${quoted(value)} is not one of the ${allowed.length} allowed values`;
    }
    case "type":
      return `must be ${e.params.type === "integer" ? "an integer" : `of type ${e.params.type}`}`;
    case "minimum":
      return `must be at least ${e.params.limit}`;
    case "maximum":
      return `must be at most ${e.params.limit}`;
    case "minLength":
      return e.params.limit === 1 ? "must not be empty" : `must be at least ${e.params.limit} characters`;
    case "maxLength":
      return `must be at most ${e.params.limit} characters`;
    case "minItems":
      return `must have at least ${e.params.limit} item${e.params.limit === 1 ? "" : "s"}`;
    case "maxItems":
      return `must have at most ${e.params.limit} items`;
    case "uniqueItems":
      return `must not repeat items (items ${e.params.j} and ${e.params.i} are equal)`;
    case "format":
      return `must be a valid ${e.params.format}`;
    case "pattern":
      return patternMessage(e.params?.pattern as string | undefined);
    default:
      return e.message ?? "is invalid";
  }
}

/** ajv errors keyed by field (query parameter name, or dotted body path; "body" for the root). */
export function fieldErrors(errors: readonly ValidationError[], root: string | null, data?: unknown): FieldErrors {
  const fields = emptyFieldErrors();
  const formatted = new Set<string>();
  for (const e of errors) {
    // The branches of a failed oneOf/anyOf report their own errors; the summary adds nothing.
    if (e.keyword === "oneOf" || e.keyword === "anyOf" || e.keyword === "if") continue;
    let path = pointerToField(e.instancePath);
    if (e.keyword === "required") path = path ? `${path}.${e.params.missingProperty}` : String(e.params.missingProperty);
    if (e.keyword === "additionalProperties") path = path ? `${path}.${e.params.additionalProperty}` : String(e.params.additionalProperty);
    const key = path || root || "body";
    const text = message(e, data);
    addFieldError(fields, key, text);
    if (e.keyword === "format") formatted.add(key);
  }
  // A pattern restating a format (uuid, date-time) adds nothing once the format message is there.
  for (const key of formatted) fields[key] = fields[key]!.filter((m) => !m.startsWith("must match ") && m !== "has an invalid format");
  return fields;
}

function run(validate: ValidateFunction | null, data: unknown): ValidationError[] {
  if (!validate || validate(data)) return [];
  return validate.errors ?? [];
}

/** Normalises pagination input before validation: `limit` is an alias of per_page. */
function normalizePagination(op: OperationSpec, query: Record<string, unknown>) {
  if (!op.pagination) return;
  if (query.per_page === undefined && query.limit !== undefined) query.per_page = query.limit;
  delete query.limit;
}

/** Clamps per_page and falls back to created_at for a column the list does not offer. */
function settlePagination(op: OperationSpec, query: Record<string, unknown>) {
  if (!op.pagination) return;
  const { maxPerPage, sortBy } = op.pagination;
  if (typeof query.per_page === "number" && query.per_page > maxPerPage) query.per_page = maxPerPage;
  if (typeof query.sort_by !== "string" || !sortBy.includes(query.sort_by)) query.sort_by = "created_at";
}

/**
 * Before anything else walks client data: refused when it nests without bound (nothing after this
 * recurses into it) or holds an array far longer than any list an operation accepts (nothing after
 * this validates its items one by one).
 */
function refuseUnboundedShapes(query: Record<string, unknown>, body: unknown) {
  const fields = emptyFieldErrors();
  const check = (value: unknown, name: string, root: string) => {
    if (nestsDeeperThan(value)) addFieldError(fields, name, NESTING_MESSAGE);
    else for (const path of overlongArrays(value, root)) addFieldError(fields, path, ITEMS_MESSAGE);
  };
  for (const [key, value] of Object.entries(query)) check(value, key, key);
  if (body !== undefined) check(body, "body", "");
  if (Object.keys(fields).length) throw validationFailed(fields);
}

/**
 * The validated (coerced, defaulted, settled) input, or 422 VALIDATION_FAILED listing every
 * problem, or 404 for a path id that names nothing. `problems` are what the transport found
 * before (MCP: an unknown argument, a path parameter that is not a string); they are reported
 * with the validators' own, so one answer lists everything.
 */
export function validateInput<Id extends OperationId>(op: OperationSpec & { id: Id }, raw: RawInput, problems?: FieldErrors): Input<Id> {
  if (!problems || Object.keys(problems).length === 0) return validateRaw(op, raw);
  const fields = mergeFieldErrors(emptyFieldErrors(), problems);
  try {
    validateRaw(op, raw);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.fields) throw validationFailed(fields);
    for (const [key, messages] of Object.entries(err.fields)) if (!Object.hasOwn(fields, key)) addFieldError(fields, key, ...messages);
  }
  throw validationFailed(fields);
}

function validateRaw<Id extends OperationId>(op: OperationSpec & { id: Id }, raw: RawInput): Input<Id> {
  const v = validators[op.id];
  const path = { ...raw.path };
  const unsafePath = emptyFieldErrors();
  collectUnsafeValues(path, "", unsafePath);
  // A path id names a resource: one that cannot exist (malformed, or not text) names nothing. It
  // stays the 404 of an id that is not there, but says that it is no id at all, and which one.
  const pathErrors = run(v.path, path);
  if (pathErrors.length || Object.keys(unsafePath).length) {
    const first = pathErrors[0];
    const name = first ? pointerToField(first.instancePath) || String(first.params?.missingProperty ?? "id") : Object.keys(unsafePath)[0]!;
    const isUuid = !first || first.params?.format === "uuid" || String(first.params?.pattern ?? "").startsWith("^[0-9a-f]{8}");
    const rule = isUuid ? null : message(first, path);
    throw new ApiError("RESOURCE_NOT_FOUND", notAnIdMessage(name, path[name], rule), { context: { parameter: name } });
  }

  // Query parameters the operation does not declare are ignored, whatever they hold.
  const query: Record<string, unknown> = {};
  for (const name of op.queryParams) if (Object.hasOwn(raw.query, name)) query[name] = raw.query[name];
  const body = op.body === null ? undefined : raw.body;
  refuseUnboundedShapes(query, body);
  normalizePagination(op, query);
  const fields = fieldErrors(run(v.query, query), null, query);
  // After coercion: ajv turns "Infinity" into a number and then skips minimum and maximum.
  collectUnsafeValues(query, "", fields);

  if (body === undefined) {
    if (op.body === "required") addFieldError(fields, "body", "a JSON request body is required");
  } else {
    mergeFieldErrors(fields, fieldErrors(run(v.body, body), "body", body));
    collectUnsafeValues(body, "", fields);
  }
  // A NUL is refused as such; that it also breaks a name's one line adds nothing.
  for (const [key, messages] of Object.entries(fields))
    if (messages.includes(NUL_MESSAGE)) fields[key] = messages.filter((m) => m !== ONE_LINE_MESSAGE);
  if (Object.keys(fields).length) throw validationFailed(fields);
  settlePagination(op, query);
  return { path, query, body } as unknown as Input<Id>;
}
