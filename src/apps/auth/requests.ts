// Reading requests to the authorization server: the token endpoint takes
// application/x-www-form-urlencoded (RFC 6749), the agent and registration endpoints JSON. A body
// that cannot be read is invalid_request, naming why.
import type Koa from "koa";
import { readBodyText } from "../../http/body.ts";
import { OAuthError } from "../../modules/oauth/oauth-error.ts";

const mediaType = (ctx: Koa.Context) => ctx.get("content-type").split(";")[0]!.trim().toLowerCase();

async function text(ctx: Koa.Context): Promise<string> {
  try {
    return (await readBodyText(ctx)).text;
  } catch {
    throw new OAuthError("invalid_request", "The request body could not be read (at most 1 MiB of UTF-8).");
  }
}

/** A form body's fields; a field given twice is invalid_request (RFC 6749 section 3.2). */
export async function readForm(ctx: Koa.Context): Promise<Record<string, string>> {
  if (mediaType(ctx) !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "The token endpoint takes application/x-www-form-urlencoded.");
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(await text(ctx))) {
    if (name in fields) throw new OAuthError("invalid_request", `The parameter ${name} is given more than once.`);
    fields[name] = value;
  }
  return fields;
}

/** A JSON object body. */
export async function readJsonObject(ctx: Koa.Context): Promise<Record<string, unknown>> {
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
  return parsed as Record<string, unknown>;
}
