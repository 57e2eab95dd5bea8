// What a pattern of the spec asks for, in words: a refused value's message names the rule and says
// it plainly ("must match ^[A-Z]{3}$: three upper-case letters ..."), so a model or a person can
// correct the value without reading regular expressions.
import { ONE_LINE_MESSAGE, ONE_LINE_PATTERN } from "../one-line.ts";

const UUID = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

/** The patterns of spec/ by what they mean; a pattern not listed is named without words. */
const RULES: Record<string, string> = {
  "^[a-z][a-z0-9_-]*$": "a lower-case letter, then lower-case letters, digits, underscores and dashes",
  "^[a-z][a-z0-9_-]{0,63}$": "a lower-case letter, then up to 63 lower-case letters, digits, underscores and dashes",
  "^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$": "lower-case letters, digits and dashes, neither starting nor ending with a dash",
  "\\S": "at least one character that is not a space",
  "^[A-Z]{3}$": "three upper-case letters, an ISO 4217 currency code such as EUR",
  "^\\d{4}-\\d{2}-\\d{2}$": "a date written YYYY-MM-DD",
  "^https://\\S+$": "an https:// address without spaces",
  "^https://": "an address starting with https://",
  "^[1-9][0-9]{0,17}$": "a whole number above zero written without leading zeros, up to 18 digits",
  "^[A-Za-z0-9_-]+$": "letters, digits, underscores and dashes",
  "^[A-Za-z0-9_-]{1,64}$": "1 to 64 letters, digits, underscores and dashes",
  "^[A-Za-z0-9_-]{3,64}$": "3 to 64 letters, digits, underscores and dashes",
  "^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$": "an IPv4 or IPv6 address, optionally with a /prefix length (CIDR)",
  "^(portal|plan:[0-9a-fA-F-]{36})$": 'either "portal" or "plan:" followed by a plan id',
  "^evt_[0-9A-HJKMNP-TV-Z]{26}$": "an event id: evt_ and 26 upper-case letters and digits",
  "^whsec_[A-Za-z0-9]{40}$": "whsec_ and 40 letters and digits",
  "^sbt_(live|test)_[1-9][0-9]*_[A-Za-z0-9]+$": "a SubBridge token: sbt_live_ or sbt_test_, its number, _ and its secret",
  "^scope:(team|project):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$": "scope:team:<team id> or scope:project:<project id>",
  [UUID]: "an id (a lower-case UUID)",
};

/** The message for a value that does not match `pattern`. */
export function patternMessage(pattern: string | undefined): string {
  if (pattern === undefined) return "has an invalid format";
  if (pattern === ONE_LINE_PATTERN) return ONE_LINE_MESSAGE;
  const words = RULES[pattern];
  return words ? `must match ${pattern}: ${words}` : `must match ${pattern}`;
}

/**
 * Why a path parameter names nothing that could exist: it is not an id (`rule` null), or it breaks
 * the parameter's own rule (a key, a slug).
 */
export function notAnIdMessage(name: string, value: unknown, rule: string | null): string {
  const shown = typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value) : "(not text)";
  if (rule) return `${name} ${shown} names nothing: it ${rule}.`;
  return `${name} ${shown} is not an id: ids are UUIDs (such as 6ba7b810-9dad-41d1-80b4-00c04fd430c8), as the list and create results return them.`;
}
