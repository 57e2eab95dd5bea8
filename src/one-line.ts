// Names are one line (issue 43): every name a request sets takes the spec's Name pattern, so a name
// cannot split or reorder the mail and bot text it is shown in. One rule for the validators' message,
// the forms outside the spec, and mail that shows a name stored before the rule.
/**
 * The characters a name refuses: C0 and C1 controls (line breaks and tabs among them), the Unicode
 * line and paragraph separators, and the bidirectional embeddings, overrides and isolates.
 */
const NOT_ONE_LINE = "\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069";
/** The spec's pattern for every name a request sets (common.yaml, Name); a test holds them equal. */
export const ONE_LINE_PATTERN = `^[^${NOT_ONE_LINE}]*$`;
export const ONE_LINE_MESSAGE = "must be one line: no line breaks, control characters or bidirectional overrides";
const NOT_ONE_LINE_RUNS = new RegExp(`[${NOT_ONE_LINE}]+`, "gu");
const NOT_ONE_LINE_CHARACTER = new RegExp(`[${NOT_ONE_LINE}]`, "u");

/** `text` on one line, for a name stored before names were refused otherwise: each run of refused characters becomes a space. */
export function oneLine(text: string): string {
  return text.replace(NOT_ONE_LINE_RUNS, " ");
}

/** Whether `text` is a name as the spec's pattern takes it (one line). */
export function isOneLine(text: string): boolean {
  return !NOT_ONE_LINE_CHARACTER.test(text);
}
