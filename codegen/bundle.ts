// Merges the OpenAPI fragments of spec/openapi into one document, injects the catalog enums,
// applies the platform conventions and checks the rules every operation must follow.
import type { AbilityCatalog, ErrorDefinition, OpenApiFragment } from "./sources.ts";
import { applyConventions, HTTP_METHODS, isPublicOperation } from "./conventions.ts";
import { deref } from "./refs.ts";

type Json = Record<string, any>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep-merges `source` into `target`; a leaf defined twice is an error naming both files. */
function mergeInto(target: Json, source: Json, origins: Map<string, string>, file: string, at: string[] = []) {
  for (const [key, value] of Object.entries(source)) {
    const path = [...at, key];
    if (at.length === 0 && key === "tags") {
      // Each area declares its own tag: the root list is the areas' lists, in file order.
      target.tags = [...(target.tags ?? []), ...structuredClone(value as Json[])];
      continue;
    }
    const pointer = "/" + path.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
    if (isObject(value) && isObject(target[key])) {
      mergeInto(target[key], value, origins, file, path);
    } else if (key in target && !(isObject(value) && Object.keys(value).length === 0)) {
      throw new Error(`spec: ${pointer} is defined in both ${origins.get(pointer) ?? "an earlier fragment"} and ${file}`);
    } else if (!(key in target)) {
      target[key] = structuredClone(value);
      origins.set(pointer, file);
    }
  }
}

export function mergeFragments(fragments: OpenApiFragment[]): Json {
  const doc: Json = {};
  const origins = new Map<string, string>();
  for (const { file, document } of fragments) mergeInto(doc, document ?? {}, origins, file);
  return doc;
}

/**
 * Parameters declared on a path item (shared by its operations, like {team}) are copied into each
 * operation, ahead of its own, so every later stage reads an operation's parameters in one place.
 */
function hoistPathItemParameters(doc: Json) {
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    const shared = item.parameters as Json[] | undefined;
    if (!shared) continue;
    delete item.parameters;
    for (const method of HTTP_METHODS) {
      if (item[method]) item[method].parameters = [...structuredClone(shared), ...(item[method].parameters ?? [])];
    }
  }
}

/** An area's name as its tag gives it (the MCP toolset name too): lower-case, words hyphenated. */
export function areaOfTag(tag: string): string {
  return tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * An area file declares exactly one tag, named for the file, and every operation in it takes that
 * tag first: the tag is how the operation table, the MCP toolsets and the tenancy fixtures find
 * the operation's area (src/modules/<area>, test/modules/<area>).
 */
function checkAreas(fragments: OpenApiFragment[]) {
  const problems: string[] = [];
  for (const { file, document, area } of fragments) {
    if (!area) continue;
    const tags = (document.tags ?? []) as Json[];
    if (tags.length !== 1) problems.push(`${file}: an area file declares exactly one tag (found ${tags.length})`);
    const tag = tags[0]?.name as string | undefined;
    if (tag && areaOfTag(tag) !== area) problems.push(`${file}: the tag ${tag} names the area ${areaOfTag(tag)}; rename the file or the tag`);
    for (const [path, item] of Object.entries<Json>((document.paths ?? {}) as Json)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (op && tag && op.tags?.[0] !== tag) problems.push(`${file}: ${method.toUpperCase()} ${path} must take the tag ${tag} first`);
      }
    }
  }
  if (problems.length) throw new Error(`spec: ${problems.length} area problem(s):\n  - ${problems.join("\n  - ")}`);
}

function injectCatalogs(doc: Json, abilities: AbilityCatalog, errors: ErrorDefinition[]) {
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.ErrorCode = {
    type: "string",
    description:
      "Machine-readable error code; see the error reference for each code's status, meaning and remediation. New codes may be added within /v1.",
    enum: errors.map((e) => e.code),
  };
  doc.components.schemas.Ability = {
    type: "string",
    description: "An ability value, `<entity>:<action>`. The catalog with each ability's enforcement is served at /abilities.json.",
    enum: abilities.abilities.map((a) => a.value),
  };
  doc.components.schemas.MintableAbility = {
    type: "string",
    description:
      "An ability a token minted through the API may carry: every ability except the retired ones (webhook-endpoint:manage) and token:create, which is never passed on.",
    enum: abilities.abilities.filter((a) => a.mintable).map((a) => a.value),
  };
  doc.components.schemas.WebhookEventFilter = {
    type: "string",
    description:
      "What a webhook endpoint subscribes to: an event of the webhooks section, a group of them (plan.* covers every plan event, team.* every team and team.member event), or billing.* (the team's own billing events; needs billing:read).",
    enum: webhookEventFilters(Object.keys(doc.webhooks ?? {})),
  };
}

/** Every event name, every dotted prefix of one followed by .*, and billing.* (named by the description). */
export function webhookEventFilters(events: readonly string[]): string[] {
  const groups = events.flatMap((name) => {
    const parts = name.split(".");
    return parts.slice(1).map((_, i) => `${parts.slice(0, i + 1).join(".")}.*`);
  });
  return [...new Set([...events, ...groups, "billing.*"])].sort();
}

/**
 * Request inputs are bounded by their schemas, so no client can make the server validate, store
 * or compare without limit: every array declares maxItems (uniqueItems only over scalar items,
 * which ajv checks in linear time), every free-text string in a body maxLength (parameters are
 * already bounded by the HTTP parser's header limit). Enums, formats, anchored patterns without
 * repetition, booleans and numbers need nothing more.
 */
function unboundedInputs(doc: Json, schema: Json, where: string, problems: string[], inBody: boolean, seen = new Set<Json>()): void {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return;
  seen.add(schema);
  if (typeof schema.$ref === "string") return unboundedInputs(doc, deref(doc, schema), where, problems, inBody, seen);
  for (const key of ["allOf", "anyOf", "oneOf"]) for (const s of schema[key] ?? []) unboundedInputs(doc, s, where, problems, inBody, seen);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes("array")) {
    if (typeof schema.maxItems !== "number") problems.push(`${where}: an array in a request needs maxItems`);
    const items = deref(doc, schema.items ?? {});
    if (schema.uniqueItems && !["string", "number", "integer", "boolean"].includes(items.type)) {
      problems.push(`${where}: uniqueItems needs scalar items (ajv compares other items pairwise)`);
    }
    unboundedInputs(doc, schema.items, `${where}[]`, problems, inBody, seen);
  }
  if (types.includes("string") && inBody && schema.enum === undefined && schema.format === undefined && typeof schema.maxLength !== "number") {
    const anchored =
      typeof schema.pattern === "string" && schema.pattern.startsWith("^") && schema.pattern.endsWith("$") && !/[*+]|\{\d+,\}/.test(schema.pattern);
    if (!anchored) problems.push(`${where}: a free-text string in a request needs maxLength`);
  }
  for (const [name, s] of Object.entries<Json>(schema.properties ?? {})) unboundedInputs(doc, s, `${where}.${name}`, problems, inBody, seen);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    unboundedInputs(doc, schema.additionalProperties, `${where}.*`, problems, inBody, seen);
  }
}

/**
 * `webhook-endpoints` -> `webhook_endpoint`, `canned-replies` -> `canned_reply`, `members` -> `member`.
 * A token is `token_id`: in bodies, logs and the activity log `token` names the secret itself.
 */
export function singularParameter(collection: string): string {
  if (collection === "tokens") return "token_id";
  const snake = collection.replace(/-/g, "_");
  if (snake.endsWith("ies")) return `${snake.slice(0, -3)}y`;
  return snake.endsWith("s") ? snake.slice(0, -1) : snake;
}

function check(doc: Json, abilities: AbilityCatalog) {
  const problems: string[] = [];
  const byValue = new Map(abilities.abilities.map((a) => [a.value, a]));
  const tags = new Set((doc.tags ?? []).map((t: Json) => t.name));
  const ids = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    if (!path.startsWith("/v1/")) problems.push(`${path}: every path begins with /v1/`);
    for (const segment of path.split("/").slice(1)) {
      if (!/^([a-z0-9]+(-[a-z0-9]+)*|\{[a-z][a-z0-9_]*\})$/.test(segment)) problems.push(`${path}: segment "${segment}" is not kebab-case`);
    }
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    // One convention for path parameters (the SDK's positional arguments are named from them): the
    // singular of the collection before it, in snake_case: /plans/{plan}, /webhook-endpoints/{webhook_endpoint}.
    const segments = path.split("/");
    segments.forEach((segment, i) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      const expected = name ? singularParameter(segments[i - 1] ?? "") : null;
      if (name && name !== expected) problems.push(`${path}: path parameter {${name}} should be {${expected}}, the singular of "${segments[i - 1]}"`);
    });
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const id = op.operationId;
      if (typeof id !== "string" || !/^[a-z][a-z0-9_]*$/.test(id)) problems.push(`${where}: operationId must be snake_case`);
      else if (id.length > 60) problems.push(`${where}: operationId ${id} is longer than 60 characters (MCP tool names)`);
      else if (ids.has(id)) problems.push(`${where}: operationId ${id} is used twice`);
      ids.add(id);
      for (const key of ["summary", "description"]) {
        if (typeof op[key] !== "string" || !op[key].trim()) problems.push(`${where}: ${key} is required`);
      }
      if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push(`${where}: tags are required`);
      for (const t of op.tags ?? []) if (!tags.has(t)) problems.push(`${where}: tag ${t} is not declared in the root document`);
      if (!("x-ability" in op)) problems.push(`${where}: x-ability is required (null only on public routes)`);
      const ability = op["x-ability"];
      if (ability === null) {
        if (!isPublicOperation(op)) problems.push(`${where}: x-ability null requires security: []`);
      } else if (typeof ability === "string") {
        const known = byValue.get(ability);
        if (!known) problems.push(`${where}: x-ability ${ability} is not in spec/abilities.yaml`);
        else if (known.enforcement !== "RM" && known.enforcement !== "R") {
          problems.push(`${where}: x-ability ${ability} is ${known.enforcement}; an operation needs an RM or R ability`);
        }
        if (isPublicOperation(op)) problems.push(`${where}: a public route has no ability`);
      }
      if (op["x-destructive"] !== undefined && (method === "get" || op["x-destructive"] !== true)) {
        problems.push(`${where}: x-destructive: true belongs only on writes`);
      }
      const success = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
      if (success.length !== 1) problems.push(`${where}: exactly one 2xx response is required`);
      const pathParams = (op.parameters ?? [])
        .map((p: Json) => deref(doc, p))
        .filter((p: Json) => p.in === "path")
        .map((p: Json) => p.name);
      for (const name of templated) if (!pathParams.includes(name)) problems.push(`${where}: path parameter {${name}} is not declared`);
      for (const name of pathParams) if (!templated.includes(name)) problems.push(`${where}: parameter ${name} is not in the path`);
      if (op["x-pagination"] && method !== "get") problems.push(`${where}: x-pagination belongs on list reads`);
      if (op["x-mcp-keyset"] !== undefined && (op["x-mcp-keyset"] !== true || !op["x-pagination"] || byValue.get(ability)?.enforcement !== "RM"))
        problems.push(`${where}: x-mcp-keyset: true belongs only on lists that are MCP tools`);
      if (op["x-rest-only"] !== undefined && (op["x-rest-only"] !== true || byValue.get(ability)?.enforcement !== "RM"))
        problems.push(`${where}: x-rest-only: true belongs only on operations whose ability is RM (an R ability is REST only already)`);
      if (op["x-rest-only"] === true && (op["x-mcp-description"] !== undefined || op["x-mcp-keyset"] !== undefined))
        problems.push(`${where}: an x-rest-only operation is no MCP tool: drop x-mcp-description and x-mcp-keyset`);
      const forModel = op["x-mcp-description"];
      if (forModel !== undefined) {
        if (typeof forModel !== "string" || !forModel.trim()) problems.push(`${where}: x-mcp-description must be text`);
        else if (byValue.get(ability)?.enforcement !== "RM") problems.push(`${where}: x-mcp-description belongs on MCP tools (RM abilities)`);
        else for (const slip of restWording(forModel)) problems.push(`${where}: x-mcp-description mentions ${slip}; write for a model, not for REST`);
      }
    }
  }
  if (problems.length) throw new Error(`spec: ${problems.length} problem(s):\n  - ${problems.join("\n  - ")}`);
}

/**
 * REST wording a tool description must not carry: a model calls tools by name with arguments,
 * so paths, HTTP methods and status numbers only mislead it.
 */
export function restWording(text: string): string[] {
  const slips: string[] = [];
  for (const m of text.matchAll(
    /\/v1\/\S*|\b(?:GET|POST|PUT|PATCH|DELETE)\s+\/|\b[1-5]\d\d\b(?=\s*(?:[A-Z][A-Za-z ]+|status|response|error|\)|,|\.|$))/g,
  ))
    slips.push(`"${m[0].trim()}"`);
  return slips;
}

/** Run on the finished document, so the inputs the conventions add are checked too. */
function checkInputsBounded(doc: Json) {
  const problems: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      for (const p of (op.parameters ?? []).map((p: Json) => deref(doc, p)))
        unboundedInputs(doc, p.schema, `${where} ${p.in} ${p.name}`, problems, false);
      const body = op.requestBody ? deref(doc, op.requestBody).content?.["application/json"]?.schema : undefined;
      if (body) unboundedInputs(doc, body, `${where} body`, problems, true);
    }
  }
  if (problems.length) throw new Error(`spec: ${problems.length} unbounded request input(s):\n  - ${problems.join("\n  - ")}`);
}

const TOP_LEVEL_ORDER = ["openapi", "info", "jsonSchemaDialect", "servers", "security", "tags", "paths", "webhooks", "components", "externalDocs"];

const sortedByKey = (node: Json | undefined): Json | undefined =>
  node && Object.fromEntries(Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * A canonical order, whatever the layout of spec/: top-level keys in the usual OpenAPI order,
 * paths, webhooks and each components map sorted by name. Moving a definition between files
 * then changes nothing in generated/openapi.json.
 */
function canonicalOrder(doc: Json): Json {
  const out: Json = {};
  for (const key of [
    ...TOP_LEVEL_ORDER,
    ...Object.keys(doc)
      .filter((k) => !TOP_LEVEL_ORDER.includes(k))
      .sort(),
  ]) {
    if (doc[key] !== undefined) out[key] = doc[key];
  }
  if (out.paths) out.paths = sortedByKey(out.paths);
  if (out.webhooks) out.webhooks = sortedByKey(out.webhooks);
  if (out.components) out.components = Object.fromEntries(Object.entries<Json>(out.components).map(([k, v]) => [k, sortedByKey(v)]));
  return out;
}

export const BUNDLE_BANNER = "generated by codegen/bundle.ts from spec/openapi/*.yaml, spec/errors.yaml and spec/abilities.yaml; do not edit";

export interface BundleOptions {
  /**
   * Enforce the authoring rules (operation conventions, bounded inputs). On by default; the spec
   * diff turns them off to bundle an older ref, which was written before a rule existed.
   */
  authoringRules?: boolean;
}

export function bundle(fragments: OpenApiFragment[], abilities: AbilityCatalog, errors: ErrorDefinition[], options: BundleOptions = {}): Json {
  const rules = options.authoringRules ?? true;
  if (rules) checkAreas(fragments);
  const merged = mergeFragments(fragments);
  hoistPathItemParameters(merged);
  injectCatalogs(merged, abilities, errors);
  if (rules) check(merged, abilities);
  applyConventions(merged);
  if (rules) checkInputsBounded(merged);
  return { "x-generated": BUNDLE_BANNER, ...canonicalOrder(merged) };
}
