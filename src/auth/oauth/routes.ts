// OAuth 2.1 for MCP clients (service description, "OAuth 2.1"): dynamic client registration,
// the authorization endpoint, and the authorization_code and refresh_token grants. The rules and
// the storage live in src/modules/oauth; this file only translates HTTP.
//
// GET /oauth/authorize, until the sign-in and consent pages exist: an invalid request is answered
// as RFC 6749 section 4.1.2.1 says (shown as {error, error_description} when the client or its
// redirect URI cannot be trusted, otherwise redirected to the redirect URI with error and state);
// a valid one is sent to {auth_url}/sign-in?return_to=<this authorize URL>, where the pages will
// sign the creator in, ask for approval and call issueAuthorizationCode.
import type { Router } from "@koa/router";
import type { AuthDeps } from "../deps.ts";
import type { Grant } from "../token-endpoint.ts";
import { OAuthError } from "../oauth-error.ts";
import { readJsonObject } from "../requests.ts";
import type { RequestState } from "../../transports/http/request.ts";
import { consumeBudget, rateLimited, type Window } from "../../pipeline/rate-limit.ts";
import { registerClient } from "../../modules/oauth/clients.ts";
import { validateAuthorizationRequest } from "../../modules/oauth/authorization.ts";
import { exchangeAuthorizationCode, renewWithRefreshToken } from "../../modules/oauth/tokens.ts";

/** Limits: the registration endpoint, 60 requests per minute per IP. */
export const REGISTRATION_BUDGET: readonly Window[] = [{ name: "oauth-register-minute", limit: 60, windowMs: 60_000 }];

export function mountOAuthRoutes(router: Router, deps: AuthDeps): void {
  router.register("/oauth/register", ["POST"], async (ctx) => {
    const now = deps.now();
    const rate = await consumeBudget(deps.kv, `oauth-register:${(ctx.state as RequestState).clientIp}`, REGISTRATION_BUDGET, now.getTime());
    if (rate.retryAfter !== null) throw rateLimited(rate);
    const client = await registerClient(deps.db, await readJsonObject(ctx), now);
    ctx.status = 201;
    ctx.set("Cache-Control", "no-store");
    ctx.body = client;
  });

  router.register("/oauth/authorize", ["GET"], async (ctx) => {
    const check = await validateAuthorizationRequest(deps.db, ctx.query);
    ctx.set("Cache-Control", "no-store");
    if (check.kind === "show") throw new OAuthError(check.error, check.description);
    ctx.status = 302;
    if (check.kind === "redirect") {
      ctx.redirect(check.location);
      return;
    }
    const returnTo = `${deps.authUrl}/oauth/authorize?${ctx.querystring}`;
    ctx.redirect(`${deps.authUrl}/sign-in?return_to=${encodeURIComponent(returnTo)}`);
  });
}

export const oauthGrants: Readonly<Record<string, Grant>> = {
  authorization_code: (form, deps) => exchangeAuthorizationCode(deps.db, form, deps.now()),
  refresh_token: (form, deps) => renewWithRefreshToken(deps.db, form, deps.now()),
};
