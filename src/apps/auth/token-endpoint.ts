// POST {auth_url}/oauth/token: form-encoded, dispatched on grant_type to the grant that answers it.
// Each grant lives with its flow (agent registration's claim grant, OAuth's authorization_code and
// refresh_token) and registers here by name; an unknown grant_type is unsupported_grant_type. Token
// answers are never cached (RFC 6749 section 5.1).
import type Koa from "koa";
import { OAuthError } from "../../modules/oauth/oauth-error.ts";
import { readForm } from "./requests.ts";
import type { AuthDeps } from "./deps.ts";

/** Answers one grant: the JSON body of a successful token response, or throws OAuthError. */
export type Grant = (form: Record<string, string>, deps: AuthDeps, ctx: Koa.Context) => Promise<Record<string, unknown>>;

export function tokenEndpoint(deps: AuthDeps, grants: Readonly<Record<string, Grant>>): Koa.Middleware {
  return async (ctx) => {
    const form = await readForm(ctx);
    const type = form.grant_type;
    if (!type) throw new OAuthError("invalid_request", "grant_type is required.");
    const grant = Object.hasOwn(grants, type) ? grants[type] : undefined;
    if (!grant) throw new OAuthError("unsupported_grant_type", `The grant type ${type} is not supported here.`);
    const answer = await grant(form, deps, ctx);
    ctx.set("Cache-Control", "no-store");
    ctx.set("Pragma", "no-cache");
    ctx.body = answer;
  };
}
