// The subscriber portal (PORTAL_PORT 4005): a project's members' web entry at <portal>/<handle>.
// Only a project's current handle opens its portal; an unknown or superseded handle answers 404.
// Pages are server-rendered with no script at all (CSP script-src 'self', nothing loaded), forms
// carry CSRF tokens (the auth pages' csrf), and the only cookies are the CSRF secret and the
// browser key (./browser-key.ts).
import Koa from "koa";
import { Router } from "@koa/router";
import { html } from "../auth/pages/html.ts";
import { PageError } from "../auth/pages/page-error.ts";
import { cookieSecurity } from "../auth/pages/cookies.ts";
import { readRepositoryText } from "../../repository-files.ts";
import { requestContext, type RequestState, clientNetworkOf } from "../../http/request.ts";
import { consumeBudget, type Window } from "../../pipeline/rate-limit.ts";
import { HANDLE_MAX, HANDLE_PATTERN, projectByPortalHandle, type PortalProject } from "../../modules/projects/handles.ts";
import { portalContext } from "./catalog.ts";
import { enterThroughPlatform, finishPlatformSignIn } from "./platform-sign-in.ts";
import { platformCallbackPath } from "../../modules/connectors/platform-entry.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, renderPortalPage } from "./layout.ts";
import { renderProjectPage } from "./project-page.ts";
import { continueSignIn, showSignIn, startSignIn } from "./sign-in.ts";
import { confirmSignIn, showSignInConfirmation } from "./confirm-sign-in.ts";
import { changeBroadcasts, currentMember, redeemCode, showAccount, signOut } from "./account-page.ts";
import { showCheckout, startPlanCheckout } from "./checkout-page.ts";
import { confirmCancel, showCancel } from "./cancel-page.ts";

export type { PortalDeps } from "./deps.ts";

const NOT_FOUND = "No community lives at this address. If someone gave you this link, ask them for the community's current one.";

function notFoundPage(ctx: Koa.Context, message = NOT_FOUND): void {
  renderPortalPage(ctx, {
    title: "Not found",
    status: 404,
    body: html`<h1>Not found</h1>
      ${portalNotice("error", message)}`,
  });
}

/** A portal route: finds the project by its current handle (404 page otherwise) and shows refusals as pages. */
function projectRoute(deps: PortalDeps, handler: (ctx: Koa.Context, deps: PortalDeps, project: PortalProject) => Promise<void>): Koa.Middleware {
  return async (ctx) => {
    const handle = String(ctx.params.handle ?? "");
    const project = handle.length <= HANDLE_MAX && HANDLE_PATTERN.test(handle) ? await projectByPortalHandle(deps.db, handle) : null;
    if (!project) return notFoundPage(ctx);
    try {
      await handler(ctx, deps, project);
    } catch (err) {
      if (!(err instanceof PageError)) throw err;
      for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
      renderPortalPage(ctx, {
        title: err.status === 404 ? "Not found" : "That did not work",
        status: err.status,
        project,
        body: html`<h1>${err.status === 404 ? "Not found" : "That did not work"}</h1>
          ${portalNotice("error", err.message)}
          <p><a href="/${project.handle}">Back to ${project.name}</a></p>`,
      });
    }
  };
}

/** A route of no project (the platform sign-in's entry and callback): a refusal is a page of its own. */
function platformRoute(deps: PortalDeps, handler: (ctx: Koa.Context, deps: PortalDeps) => Promise<void>): Koa.Middleware {
  return async (ctx) => {
    try {
      await handler(ctx, deps);
    } catch (err) {
      if (!(err instanceof PageError)) throw err;
      renderPortalPage(ctx, {
        title: err.status === 404 ? "Not found" : "That did not work",
        status: err.status,
        body: html`<h1>${err.status === 404 ? "Not found" : "That did not work"}</h1>
          ${portalNotice("error", err.message)}`,
      });
    }
  };
}

async function projectPage(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const member = await currentMember(ctx, deps, project);
  await renderProjectPage(ctx, deps, portalContext(deps, project, (ctx.state as RequestState).requestId ?? null), project, { member });
}

/** Portal actions (sign-in starts and continues, redemptions, sign-outs): 30 a minute per IP. */
export const PORTAL_ACTION_BUDGET: readonly Window[] = [{ name: "portal-action-minute", limit: 30, windowMs: 60_000 }];

/** An installation's platform sign-in entry (platform-entry.ts): /connectors/<connector>/<installation id>. */
const PLATFORM_ENTRY = /^\/connectors\/[a-z0-9-]+\/[0-9a-f-]{36}$/;

/** Every POST (and a platform sign-in's entry) spends the client address's budget first; beyond it, a page saying how long to wait. */
function limitPortalActions(deps: PortalDeps): Koa.Middleware {
  return async (ctx, next) => {
    // A platform sign-in's entry is a GET that writes (its handoff): it spends the same budget.
    if (ctx.method === "POST" || PLATFORM_ENTRY.test(ctx.path)) {
      const state = await consumeBudget(deps.kv, `portal-action:${clientNetworkOf(ctx)}`, PORTAL_ACTION_BUDGET, deps.now().getTime());
      if (state.retryAfter !== null) {
        ctx.set("Retry-After", String(state.retryAfter));
        renderPortalPage(ctx, {
          title: "Too many attempts",
          status: 429,
          body: portalNotice("error", `Too many attempts from this network. Wait ${state.retryAfter} seconds, then try again.`),
        });
        return;
      }
    }
    await next();
  };
}

export function createPortalApp(deps: PortalDeps): Koa {
  const stylesheet = readRepositoryText("src/apps/portal/assets/portal.css");
  const router = new Router();
  router.register("/up", ["GET"], async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "up", release: deps.release };
  });
  router.register("/assets/portal.css", ["GET"], async (ctx) => {
    ctx.type = "text/css; charset=utf-8";
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.body = stylesheet;
  });
  // Before the project routes: "connectors" is a reserved handle, so no project's pages live there.
  router.register(platformCallbackPath(":connector"), ["GET"], platformRoute(deps, finishPlatformSignIn));
  router.register("/connectors/:connector/:installation", ["GET"], platformRoute(deps, enterThroughPlatform));
  router.register("/:handle", ["GET"], projectRoute(deps, projectPage));
  router.register(
    "/:handle/account",
    ["GET"],
    projectRoute(deps, (ctx, d, p) => showAccount(ctx, d, p)),
  );
  router.register("/:handle/account/broadcasts", ["POST"], projectRoute(deps, changeBroadcasts));
  router.register("/:handle/redeem", ["POST"], projectRoute(deps, redeemCode));
  router.register("/:handle/plans/:plan/checkout", ["POST"], projectRoute(deps, startPlanCheckout));
  router.register("/:handle/checkout/:id", ["GET"], projectRoute(deps, showCheckout));
  router.register("/:handle/subscriptions/:subscription/cancel", ["GET"], projectRoute(deps, showCancel));
  router.register("/:handle/subscriptions/:subscription/cancel", ["POST"], projectRoute(deps, confirmCancel));
  router.register("/:handle/sign-in", ["POST"], projectRoute(deps, startSignIn));
  router.register("/:handle/sign-in/:id", ["GET"], projectRoute(deps, showSignIn));
  router.register("/:handle/sign-in/:id", ["POST"], projectRoute(deps, continueSignIn));
  router.register("/:handle/sign-in/confirm/:secret", ["GET"], projectRoute(deps, showSignInConfirmation));
  router.register("/:handle/sign-in/confirm/:secret", ["POST"], projectRoute(deps, confirmSignIn));
  router.register("/:handle/sign-out", ["POST"], projectRoute(deps, signOut));

  const app = new Koa();
  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "portal",
      publicUrl: deps.portalUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(cookieSecurity(deps.portalUrl));
  app.use(limitPortalActions(deps));
  app.use(router.routes());
  // Anything else (the host's root, a path no route knows, a method a route does not take): the not-found page.
  app.use(async (ctx) => {
    if (ctx.body === undefined && ctx.status === 404)
      notFoundPage(ctx, ctx.path === "/" ? "Each community has its own address here: open the link the community gave you." : NOT_FOUND);
  });
  return app;
}
