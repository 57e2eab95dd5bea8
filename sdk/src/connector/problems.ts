// Turns the compiled validator's raw failures into problems a connector author can act on: a JSON
// pointer to the field and one plain sentence, every problem at once, without repeats.
import type { CompiledValidatorError } from "./compiled-validator.js";
import { childPointer, pointerLabel, pointerTokens, valueAt } from "./pointer.js";
import { problemMessage } from "./rules.js";
import { schemaFor, type SchemaNode } from "./schema-node.js";

export interface ManifestProblem {
  /**
   * JSON pointer to the offending value ("/listing/tagline"); for a missing or unknown property,
   * the pointer of that property ("/listing/marketing/audience"). "" is the whole document.
   */
  pointer: string;
  /** One sentence naming the field and the rule, e.g. "listing.tagline must be at most 80 characters (it has 93)". */
  message: string;
  /** The JSON Schema keyword that failed (required, pattern, enum, ...), or "json" when the text is not JSON. */
  keyword: string;
  /** The keyword's details (limit, pattern, allowedValues, missingProperty, ...). */
  params: Record<string, unknown>;
  /** What to change, when the message alone does not say it (rules the schema cannot state). */
  fix?: string;
}

/** The property a required or additionalProperties failure is about, when there is one. */
function namedProperty(error: CompiledValidatorError): string | undefined {
  if (error.keyword === "required") return error.params.missingProperty;
  if (error.keyword === "additionalProperties") return error.params.additionalProperty;
  return undefined;
}

function allowedProperties(schema: SchemaNode, error: CompiledValidatorError): string[] {
  if (error.keyword !== "additionalProperties") return [];
  return Object.keys(schemaFor(schema, pointerTokens(error.instancePath))?.node.properties ?? {});
}

export function describeProblem(error: CompiledValidatorError, manifest: unknown, schema: SchemaNode): ManifestProblem {
  const property = namedProperty(error);
  const pointer = property === undefined ? error.instancePath : childPointer(error.instancePath, property);
  const message = problemMessage({
    keyword: error.keyword,
    params: error.params,
    definition: schemaFor(schema, pointerTokens(pointer))?.definition ?? null,
    subject: pointerLabel(manifest, pointer),
    container: pointerLabel(manifest, error.instancePath),
    value: valueAt(manifest, pointer),
    allowedProperties: allowedProperties(schema, error),
  });
  return { pointer, message, keyword: error.keyword, params: { ...error.params } };
}

/**
 * A link is checked twice (its pattern and the uri format) but is one rule for its author: when
 * both fail, only the pattern's problem (worded for links) is kept.
 */
export function withoutRepeats(problems: ManifestProblem[]): ManifestProblem[] {
  const patternFailures = new Set(problems.filter((p) => p.keyword === "pattern").map((p) => p.pointer));
  return problems.filter((p) => !(p.keyword === "format" && patternFailures.has(p.pointer)));
}

export function manifestProblems(errors: CompiledValidatorError[], manifest: unknown, schema: SchemaNode): ManifestProblem[] {
  return withoutRepeats(errors.map((error) => describeProblem(error, manifest, schema)));
}
