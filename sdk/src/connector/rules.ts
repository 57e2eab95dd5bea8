// The wording of every manifest problem, in one table: a sentence per JSON Schema keyword, with
// the rules whose keyword alone says too little (a regular expression, a format, the link
// definition) phrased in words. A message names the field, states the rule and, where it helps,
// shows the offending value or the allowed values.

/** What a message may draw on to describe one broken rule. */
export interface ProblemFacts {
  keyword: string;
  params: Record<string, any>;
  /** The schema definition the value follows, e.g. "#/$defs/link" (null when none). */
  definition: string | null;
  /** Label of the value the rule is about (for required and unknown properties: that property). */
  subject: string;
  /** Label of the object holding the value. */
  container: string;
  /** The offending value; undefined for a missing property. */
  value: unknown;
  /** For an unknown property: the property names the object accepts. */
  allowedProperties: string[];
}

/** Regular expressions of the schema, explained. A pattern missing here is a test failure. */
export const PATTERN_RULES: Record<string, string> = {
  "^[a-z][a-z0-9_-]*$": "must start with a lowercase letter and contain only a-z, 0-9, _ and -",
  "^[a-z][a-z0-9_]*$": "must start with a lowercase letter and contain only a-z, 0-9 and _",
  "^[0-9]+\\.[0-9]+\\.[0-9]+": "must start with three whole numbers separated by dots, like 1.4.0",
  "^[^A-Z]*$": "must be written in lower case",
};

export const FORMAT_RULES: Record<string, string> = {
  date: "must be a full date written YYYY-MM-DD, like 2024-03-14",
  uri: "must be an absolute URI, like https://example.com/screenshot.png",
};

/**
 * Definitions whose keywords together express one rule: every pattern or format failure of a value
 * following them gets the same sentence.
 */
export const DEFINITION_RULES: Record<string, string> = {
  "#/$defs/link": "must be an https URL (https://...) or a mailto address (mailto:name@example.com)",
};

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  integer: "a whole number",
  number: "a number",
  boolean: "true or false",
  object: "an object ({ ... })",
  array: "an array ([ ... ])",
  null: "null",
};

export const KEYWORD_RULES: Record<string, (facts: ProblemFacts) => string> = {
  required: (f) => `${f.container} is missing required property ${f.params.missingProperty}`,
  additionalProperties: (f) => {
    const near = nearest(f.params.additionalProperty, f.allowedProperties);
    return (
      `${f.container} has an unknown property "${f.params.additionalProperty}"${near === undefined ? "" : ` (did you mean ${near}?)`}; ` +
      (f.allowedProperties.length ? `allowed properties are ${wordList(f.allowedProperties)}` : "it accepts no properties")
    );
  },
  type: (f) =>
    `${f.subject} must be ${wordList(
      String(f.params.type)
        .split(",")
        .map((t) => TYPE_NAMES[t] ?? t),
      "or",
    )} (it is ${describe(f.value)})`,
  enum: (f) => {
    const allowed = f.params.allowedValues as unknown[];
    const near =
      typeof f.value === "string"
        ? nearest(
            f.value,
            allowed.filter((v): v is string => typeof v === "string"),
          )
        : undefined;
    return `${f.subject} must be one of ${wordList(allowed.map(show), "or")} (it is ${show(f.value)}${near === undefined ? "" : `; did you mean ${show(near)}?`})`;
  },
  const: (f) => `${f.subject} must be ${show(f.params.allowedValue)} (it is ${show(f.value)})`,
  minLength: (f) =>
    f.params.limit === 1
      ? `${f.subject} must not be empty`
      : `${f.subject} must be at least ${f.params.limit} characters (it has ${characters(f.value)})`,
  maxLength: (f) => `${f.subject} must be at most ${f.params.limit} characters (it has ${characters(f.value)})`,
  minimum: (f) => `${f.subject} must be at least ${f.params.limit} (it is ${show(f.value)})`,
  maximum: (f) => `${f.subject} must be at most ${f.params.limit} (it is ${show(f.value)})`,
  minItems: (f) =>
    `${f.subject} must list at least ${f.params.limit === 1 ? "one value" : `${f.params.limit} values`} (it has ${Array.isArray(f.value) ? f.value.length : 0})`,
  maxItems: (f) => `${f.subject} must list at most ${f.params.limit} values (it has ${Array.isArray(f.value) ? f.value.length : 0})`,
  uniqueItems: (f) =>
    `${f.subject} must not repeat a value: items ${f.params.j} and ${f.params.i} are both ${show(Array.isArray(f.value) ? f.value[f.params.i] : undefined)}`,
  pattern: (f) =>
    `${f.subject} ${definitionRule(f) ?? PATTERN_RULES[f.params.pattern] ?? `must match the pattern ${f.params.pattern}`} (it is ${show(f.value)})`,
  format: (f) =>
    `${f.subject} ${definitionRule(f) ?? FORMAT_RULES[f.params.format] ?? `must be a valid ${f.params.format}`} (it is ${show(f.value)})`,
};

/** The sentence for one broken rule. */
export function problemMessage(facts: ProblemFacts): string {
  const rule = KEYWORD_RULES[facts.keyword];
  return rule ? rule(facts) : `${facts.subject} breaks the schema rule "${facts.keyword}" (${JSON.stringify(facts.params)})`;
}

function definitionRule(facts: ProblemFacts): string | undefined {
  return facts.definition === null ? undefined : DEFINITION_RULES[facts.definition];
}

/** The allowed word a name is a likely typo of (other case, - for _, or two letters off). */
function nearest(name: string, allowed: string[]): string | undefined {
  const normal = (word: string) => word.toLowerCase().replace(/-/g, "_");
  return allowed.find((candidate) => normal(candidate) === normal(name) || (name.length > 3 && editDistance(candidate, name) <= 2));
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** `a, b or c` */
function wordList(words: string[], last = "and"): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} ${last} ${words[words.length - 1]}`;
}

/** A value as it appears in JSON, shortened. */
function show(value: unknown): string {
  if (value === undefined) return "missing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${show(value)}`;
  if (typeof value === "number") return Number.isInteger(value) ? `the number ${value}` : `the number ${value}, which has a fraction`;
  return show(value);
}

/** Characters as JSON Schema counts them (Unicode code points, like ajv). */
function characters(value: unknown): number {
  return typeof value === "string" ? [...value].length : 0;
}
