// OAuth 2.1 for MCP clients (service description, "OAuth 2.1"): dynamic client registration and
// the authorization_code and refresh_token grants. The rules and the storage live in
// src/modules/oauth; this file only translates HTTP. The authorization endpoint is a page (sign-in,
// then the creator's approval): src/apps/auth/pages/consent-pages.ts.
import type { Router } from "@koa/router";
import type { AuthDeps } from "../deps.ts";
import type { Grant } from "../token-endpoint.ts";
import { readJsonObject } from "../requests.ts";
import { clientNetworkOf } from "../../../http/request.ts";
import { consumeBudget, rateLimited, type Window } from "../../../pipeline/rate-limit.ts";
import { registerClient } from "../../../modules/oauth/clients.ts";
import { exchangeAuthorizationCode, renewWithRefreshToken } from "../../../modules/oauth/tokens.ts";

/** Limits: the registration endpoint, 60 requests per minute per IP. */
export const REGISTRATION_BUDGET: readonly Window[] = [{ name: "oauth-register-minute", limit: 60, windowMs: 60_000 }];

export function mountOAuthRoutes(router: Router, deps: AuthDeps): void {
  router.register("/oauth/register", ["POST"], async (ctx) => {
    const now = deps.now();
    const rate = await consumeBudget(deps.kv, `oauth-register:${clientNetworkOf(ctx)}`, REGISTRATION_BUDGET, now.getTime());
    if (rate.retryAfter !== null) throw rateLimited(rate);
    const client = await registerClient(deps.db, await readJsonObject(ctx, "invalid_client_metadata"), now);
    ctx.status = 201;
    ctx.set("Cache-Control", "no-store");
    ctx.body = client;
  });
}

export const oauthGrants: Readonly<Record<string, Grant>> = {
  authorization_code: (form, deps) => exchangeAuthorizationCode(deps.db, form, deps.now(), deps.environment ?? "live"),
  refresh_token: (form, deps) => renewWithRefreshToken(deps.db, form, deps.now(), deps.environment ?? "live"),
};
