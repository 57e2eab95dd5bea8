// The authorization server ({auth_url}, AUTH_PORT 4002): its metadata, the token endpoint, and
// the routes of each flow - agent registration (./agent) and OAuth 2.1 for MCP clients (./oauth) -
// mounted on one router, and the pages (./pages: accounts, sessions, tokens, claim, consent).
// Errors of the endpoints are `{error, error_description}` (./oauth-error.ts); pages show a
// person-readable page (./pages/page-route.ts).
import Koa from "koa";
import { Router } from "@koa/router";
import { discoveryDocument } from "../../http/discovery-document.ts";
import { requestContext } from "../../http/request.ts";
import { routeFallback } from "../../http/route-fallback.ts";
import { compression } from "../../http/compression.ts";
import { mountAgentRoutes, agentGrants } from "./agent/routes.ts";
import { mountOAuthRoutes, oauthGrants } from "./oauth/routes.ts";
import type { AuthDeps } from "./deps.ts";
import { authorizationServerMetadata } from "../../modules/oauth/metadata.ts";
import { oauthErrors } from "../../modules/oauth/oauth-error.ts";
import { tokenEndpoint } from "./token-endpoint.ts";
import { mountAccountPages } from "./pages/account-pages.ts";
import { mountInvitationPages } from "./pages/invitation-pages.ts";
import { mountAssets } from "./pages/assets.ts";
import { mountSecondFactorPages } from "./pages/second-factor-pages.ts";
import { mountConsentPages } from "./pages/consent-pages.ts";
import { mountClaimPages } from "./pages/claim-pages.ts";
import { mountTokenPages } from "./pages/tokens-pages.ts";
import { mountBillingPages } from "./pages/billing-pages.ts";
import { mountPaymentPages } from "./pages/payments-pages.ts";
import { mountRefundPages } from "./pages/refunds-pages.ts";
import { mountIdentityPages } from "./pages/identities-pages.ts";
import { mountPasswordResetPages } from "./pages/password-reset-pages.ts";
import { cookieSecurity } from "./pages/cookies.ts";
import { pageNotFound } from "./pages/page-route.ts";
import { sessionMiddleware } from "./pages/session.ts";

export type { AuthDeps } from "./deps.ts";

export function createAuthApp(deps: AuthDeps): Koa {
  const router = new Router();
  const metadata = discoveryDocument(deps, authorizationServerMetadata(deps));
  // GET routes answer HEAD too; the same RFC 8414 document at both addresses.
  router.register("/.well-known/oauth-authorization-server", ["GET"], metadata);
  router.register("/.well-known/openid-configuration", ["GET"], metadata);
  router.register("/up", ["GET"], async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "up", release: deps.release };
  });
  // Browser clients (the dashboard, an MCP client in a page) read the answer: a token response is
  // no secret to the page that sent the code and verifier, and cookies are never read here.
  const tokens = tokenEndpoint(deps, { ...agentGrants, ...oauthGrants });
  router.register("/oauth/token", ["POST"], async (ctx, next) => {
    ctx.set("Access-Control-Allow-Origin", "*");
    await tokens(ctx, next);
  });
  mountAgentRoutes(router, deps);
  mountOAuthRoutes(router, deps);
  mountAssets(router);
  mountAccountPages(router, deps);
  mountPasswordResetPages(router, deps);
  mountSecondFactorPages(router, deps);
  mountConsentPages(router, deps);
  mountTokenPages(router, deps);
  mountBillingPages(router, deps);
  mountPaymentPages(router, deps);
  mountRefundPages(router, deps);
  mountIdentityPages(router, deps);
  mountClaimPages(router, deps);
  mountInvitationPages(router, deps);

  const app = new Koa();
  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "auth",
      publicUrl: deps.authUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(oauthErrors());
  // The pages' navigation links to the dashboard (./pages/layout.ts).
  app.use(async (ctx, next) => {
    if (deps.dashboardUrl) (ctx.state as { dashboardUrl?: string }).dashboardUrl = deps.dashboardUrl;
    await next();
  });
  // Pages only: the session is read (and its cookie set) when a page asks for it.
  app.use(cookieSecurity(deps.authUrl));
  app.use(sessionMiddleware(app, deps));
  app.use(compression());
  app.use(router.routes());
  app.use(pageNotFound(router));
  app.use(routeFallback(router, `The authorization server's metadata is at ${deps.authUrl}/.well-known/oauth-authorization-server.`));
  return app;
}
