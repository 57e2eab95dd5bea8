// Classifies one described difference by the Versioning rules of the service description:
//   1. the REST API is versioned in the path (/v1);
//   2. breaking changes never happen within a major version; additive changes (new fields,
//      endpoints, error codes) can appear at any time and clients ignore unknown fields.
// api-smart-diff's classification is the starting point; the overrides below say where our rules
// differ from its defaults, and each names its reason (reported as `rule`).
import type { Diff } from "api-smart-diff";
import { counterpartAt, nodeAt, type DiffDescription, type DiffDocuments, type JsonPath } from "./describe-diff.ts";

export type Severity = "breaking" | "non-breaking" | "documentation";

export interface Classification {
  severity: Severity;
  /** Why the library's classification was overridden; absent when it was kept. */
  rule?: string;
}

const ALL_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];

/** The JSON types a schema admits, by its `type` keyword (a number admits every integer). */
function typeSet(schema: unknown): Set<string> {
  const declared = (schema as { type?: unknown } | undefined)?.type;
  const types = new Set(declared === undefined ? ALL_TYPES : Array.isArray(declared) ? (declared as string[]) : [String(declared)]);
  if (types.has("number")) types.add("integer");
  return types;
}

const isSubset = (a: Set<string>, b: Set<string>) => [...a].every((t) => b.has(t));
const typeText = (types: Set<string>) =>
  types.size === ALL_TYPES.length ? "any" : [...types].filter((t) => !(t === "integer" && types.has("number"))).join(" | ");

/** The path of the schema whose `type` changed (the diff may point at one entry of a type array). */
function schemaPathOfType(path: JsonPath): JsonPath {
  const at = path.lastIndexOf("type");
  return path.slice(0, at);
}

function classifyTypeChange(diff: Diff, description: DiffDescription, docs: DiffDocuments): { severity: Severity; rule: string; what: string } {
  const schemaPath = schemaPathOfType(diff.path as JsonPath);
  const before = typeSet(nodeAt(docs.before, schemaPath));
  const after = typeSet(counterpartAt(docs, schemaPath));
  const subject = description.field ? `field \`${description.field}\`` : "the value";
  const what = `type of ${subject} changed from ${typeText(before)} to ${typeText(after)}`;
  if (description.direction === "request") {
    return isSubset(before, after)
      ? { severity: "non-breaking", what, rule: "a request value accepting more types is additive" }
      : { severity: "breaking", what, rule: "a request value refusing a type it accepted breaks callers that send it" };
  }
  if (description.direction === "response") {
    if (isSubset(after, before))
      return { severity: "non-breaking", what, rule: "a response value taking fewer types is still understood by every client" };
    const nullable = after.has("null") && !before.has("null");
    return {
      severity: "breaking",
      what,
      rule: nullable
        ? "a response field becoming nullable breaks clients that read it as always present"
        : "a response value of a new type breaks clients that parse it",
    };
  }
  return { severity: "breaking", what, rule: "type change" };
}

const TYPE_OF: Record<string, Severity> = {
  breaking: "breaking",
  "non-breaking": "non-breaking",
  deprecated: "non-breaking",
  annotation: "documentation",
};

/** Classifies `diff`. May rewrite `description.what` (type changes are worded from both documents). */
export function classifyChange(diff: Diff, description: DiffDescription, docs: DiffDocuments): Classification {
  const library = TYPE_OF[diff.type];
  const overrule = (severity: Severity, rule: string): Classification => (severity === library ? { severity } : { severity, rule });

  if (description.documentation) return overrule("documentation", "descriptions, summaries, tags and examples do not change the contract");
  if (description.operationKey === "operationId") return overrule("breaking", "the operationId is also the MCP tool name and the SDK method name");
  if (description.operationKey === "x-ability") return overrule("breaking", "a token that holds only the old ability would be refused (auth change)");
  if (description.operationKey === "security") return overrule("breaking", "authentication requirements changed (auth change)");
  if (description.operationKey === "x-destructive") return overrule("non-breaking", "x-destructive only changes the MCP tool's hints");
  if (diff.path[0] === "x-mcp-toolsets") {
    return overrule("non-breaking", "the MCP toolsets listed by default; every tool stays reachable with X-MCP-Toolsets and the dynamic mode");
  }
  if (description.keyword === "type" && description.direction !== "none") {
    const result = classifyTypeChange(diff, description, docs);
    description.what = result.what;
    return overrule(result.severity, result.rule);
  }
  if (description.direction === "request" && description.keyword === undefined && description.field && diff.action === "remove") {
    return overrule("breaking", "request bodies refuse unknown fields (additionalProperties: false), so callers still sending it would fail");
  }
  if (description.where === "request body" && description.keyword === "required" && diff.action === "add" && description.field === undefined) {
    return overrule("breaking", "a new required request body breaks callers that send none");
  }
  if (description.direction === "response" && description.keyword === "enum" && diff.action === "remove") {
    return overrule("breaking", "removing a value is not additive (Versioning rule 2); clients may act on it");
  }
  if (description.direction === "response" && description.keyword === "enum" && diff.action === "add") {
    return overrule(
      "non-breaking",
      "Versioning rule 2: new values (error codes among them) are additive; clients treat unknown values like unknown fields",
    );
  }
  if (description.direction === "response" && description.keyword === "additionalProperties") {
    return overrule("non-breaking", "Versioning rule 2: clients ignore unknown fields");
  }
  if (diff.type === "unclassified" || library === undefined) {
    return {
      severity: "breaking",
      rule: "api-smart-diff left this unclassified; treated as breaking until a rule in scripts/spec/classify-change.ts covers it",
    };
  }
  return { severity: library };
}
