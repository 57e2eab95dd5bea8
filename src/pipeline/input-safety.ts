// Rules every operation's input obeys before and beyond its JSON Schema, for what a schema cannot
// say or what ajv gets wrong: how deep a value may nest, which strings a text column (and a
// person) can take, and that numbers are finite. Client data may be arbitrarily deep, so nothing
// here recurses: every walk keeps its own stack.
import { addFieldError, type FieldErrors } from "../errors.ts";

/**
 * The deepest nesting of arrays and objects an input may have (documented in the spec): far more
 * than any operation's schema needs, and small enough that validation, comparisons and the
 * activity log's redaction stay cheap and never exhaust the stack.
 */
export const MAX_INPUT_DEPTH = 32;

/**
 * The most items an array in an input may have (documented in the spec): twice the longest list
 * any operation accepts (a test keeps every input's maxItems under half of it). Longer arrays are
 * refused before the validators run: with every item wrong, their work (and the error list they
 * build) grows with the square of the length, seconds of CPU for one request of 10,000 items.
 */
export const MAX_INPUT_ITEMS = 1_000;

export const NESTING_MESSAGE = `nests arrays or objects deeper than ${MAX_INPUT_DEPTH} levels`;
export const ITEMS_MESSAGE = `must have at most ${MAX_INPUT_ITEMS} items (it has more)`;
export const NUL_MESSAGE = "must not contain the NUL character";
export const SURROGATE_MESSAGE = "must be valid Unicode text (it holds an unpaired UTF-16 surrogate)";
export const NON_FINITE_MESSAGE = "must be a finite number";

/** A field path safe to print (a key may itself hold a lone surrogate or a NUL). */
const printable = (path: string) => path.replace(/\u0000/g, "\\u0000").toWellFormed();

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => value !== null && typeof value === "object";

/** Whether `value` nests arrays and objects more than `max` levels deep (a scalar is level 0). */
export function nestsDeeperThan(value: unknown, max = MAX_INPUT_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!isContainer(node)) continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The dotted paths under `root` of the arrays holding more than `max` items ("body" for a body that
 * is one). Call only on a value already known to nest at most MAX_INPUT_DEPTH levels.
 */
export function overlongArrays(value: unknown, root: string, max = MAX_INPUT_ITEMS): string[] {
  const found: string[] = [];
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (!isContainer(node)) continue;
    if (Array.isArray(node) && node.length > max) {
      found.push(printable(path || "body"));
      continue;
    }
    for (const [key, child] of Object.entries(node)) if (isContainer(child)) stack.push([child, path ? `${path}.${key}` : key]);
  }
  return found;
}

/** Why a string cannot be stored or shown as text, or null when it can. */
export function textProblem(text: string): string | null {
  if (text.includes("\u0000")) return NUL_MESSAGE;
  if (!text.isWellFormed()) return SURROGATE_MESSAGE;
  return null;
}

/**
 * Adds to `fields` every string (value or key) that is not storable text and every number that
 * is not finite, named by its dotted path under `root` (a query parameter name, or "" for a body
 * whose fields are named from its top level; the body itself is "body"). Call only on a value
 * already known to nest at most MAX_INPUT_DEPTH levels.
 */
export function collectUnsafeValues(value: unknown, root: string, fields: FieldErrors): void {
  const stack: [unknown, string][] = [[value, root]];
  const name = (path: string) => printable(path || "body");
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === "string") {
      const problem = textProblem(node);
      if (problem) addFieldError(fields, name(path), problem);
    } else if (typeof node === "number") {
      if (!Number.isFinite(node)) addFieldError(fields, name(path), NON_FINITE_MESSAGE);
    } else if (isContainer(node)) {
      for (const [key, child] of Object.entries(node)) {
        const childPath = path ? `${path}.${key}` : key;
        if (!Array.isArray(node)) {
          const problem = textProblem(key);
          if (problem) addFieldError(fields, name(childPath), `key ${problem}`);
        }
        stack.push([child, childPath]);
      }
    }
  }
}
