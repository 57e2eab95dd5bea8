// Errors of the authorization server ({auth_url}): `{error, error_description}` with the status the
// description gives (400 unless noted), never the REST envelope. Everything thrown below the
// surface's request context is answered in this shape, a rate limit included (429, Retry-After).
import type Koa from "koa";
import { ApiError } from "../../errors.ts";

export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

function asOAuthError(err: unknown): OAuthError | null {
  if (err instanceof OAuthError) return err;
  if (err instanceof ApiError) {
    if (err.code === "RATE_LIMITED") return new OAuthError("too_many_requests", err.message, 429, err.headers);
    if (err.status === 404) return new OAuthError("not_found", "Nothing exists at this address.", 404);
    if (err.status === 405) return new OAuthError("invalid_request", err.message, 405, err.headers);
    if (err.status < 500) return new OAuthError("invalid_request", err.message, 400);
    return null;
  }
  const status = (err as { status?: number } | null)?.status;
  if (status === 404) return new OAuthError("not_found", "Nothing exists at this address.", 404);
  if (status === 405) return new OAuthError("invalid_request", "This address does not accept this method.", 405);
  if (typeof status === "number" && status >= 400 && status < 500) return new OAuthError("invalid_request", "The request could not be read.", 400);
  return null;
}

/** Answers what `next` throws as `{error, error_description}`; anything unexpected is left to the request context (500). */
export function oauthErrors(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const oauth = asOAuthError(err);
      if (!oauth) throw err;
      ctx.status = oauth.status;
      ctx.set("Cache-Control", "no-store");
      for (const [name, value] of Object.entries(oauth.headers)) ctx.set(name, value);
      ctx.body = { error: oauth.error, error_description: oauth.description };
    }
  };
}
