// Reading requests to the authorization server: the token endpoint takes
// application/x-www-form-urlencoded (RFC 6749), the agent and registration endpoints JSON, the
// pages forms and query strings. Every reader applies the REST pipeline's input rules
// (src/pipeline/input-safety.ts): no NUL, no unpaired surrogate, no percent-encoding that is not
// UTF-8, bounded nesting. A body that cannot be read is refused naming why, never stored.
import type Koa from "koa";
import { emptyFieldErrors } from "../../errors.ts";
import { readBodyText } from "../../http/body.ts";
import { parseQuery } from "../../http/query.ts";
import { collectUnsafeValues, ITEMS_MESSAGE, NESTING_MESSAGE, nestsDeeperThan, overlongArrays } from "../../pipeline/input-safety.ts";
import { OAuthError } from "../../modules/oauth/oauth-error.ts";

const mediaType = (ctx: Koa.Context) => ctx.get("content-type").split(";")[0]!.trim().toLowerCase();

async function text(ctx: Koa.Context): Promise<string> {
  try {
    return (await readBodyText(ctx)).text;
  } catch {
    throw new OAuthError("invalid_request", "The request body could not be read (at most 1 MiB of UTF-8).");
  }
}

/**
 * The first value the input rules refuse, as a sentence's start ("email must not contain the NUL
 * character"), or null. `value` is a parsed JSON body or a map of form or query fields.
 */
export function refusedInput(value: unknown): string | null {
  if (nestsDeeperThan(value)) return `body ${NESTING_MESSAGE}`;
  const [overlong] = overlongArrays(value, "");
  if (overlong) return `${overlong} ${ITEMS_MESSAGE}`;
  const fields = emptyFieldErrors();
  collectUnsafeValues(value, "", fields);
  const [first] = Object.entries(fields);
  return first ? `${first[0]} ${first[1][0]}` : null;
}

export interface UrlencodedFields {
  /** Each name's values, in order. */
  values: Map<string, string[]>;
  /** The first field the input rules refuse (see refusedInput), or null. */
  refused: string | null;
}

/** Form or query text, decoded strictly (src/http/query.ts) and checked by the input rules. */
export function readUrlencoded(text: string): UrlencodedFields {
  const { query, undecodable } = parseQuery(text);
  const values = new Map<string, string[]>();
  for (const [name, value] of Object.entries(query)) values.set(name, Array.isArray(value) ? value : [value]);
  const refused = undecodable.length ? `${undecodable[0]} is not valid UTF-8 once percent-decoded` : refusedInput(query);
  return { values, refused };
}

/** A form body's fields; a field given twice is invalid_request (RFC 6749 section 3.2). */
export async function readForm(ctx: Koa.Context): Promise<Record<string, string>> {
  if (mediaType(ctx) !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "The token endpoint takes application/x-www-form-urlencoded.");
  }
  const { values, refused } = readUrlencoded(await text(ctx));
  if (refused) throw new OAuthError("invalid_request", `The parameter ${refused}.`);
  const fields: Record<string, string> = {};
  for (const [name, given] of values) {
    if (given.length > 1) throw new OAuthError("invalid_request", `The parameter ${name} is given more than once.`);
    fields[name] = given[0]!;
  }
  return fields;
}

/**
 * A JSON object body. A field the input rules refuse is `invalid`: invalid_request, or
 * invalid_client_metadata for client registration (RFC 7591 section 3.2.2).
 */
export async function readJsonObject(ctx: Koa.Context, invalid = "invalid_request"): Promise<Record<string, unknown>> {
  const type = mediaType(ctx);
  if (type !== "application/json" && !type.endsWith("+json")) throw new OAuthError("invalid_request", "This endpoint takes application/json.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(await text(ctx));
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    throw new OAuthError("invalid_request", "The body is not valid JSON.");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new OAuthError("invalid_request", "The body must be a JSON object.");
  const refused = refusedInput(parsed);
  if (refused) throw new OAuthError(invalid, `The field ${refused}.`);
  return parsed as Record<string, unknown>;
}
