// The member's sign-in through the connector handoff: POST /<handle>/sign-in starts a handoff bound
// to this browser (named from its User-Agent) and shows the waiting page (GET /<handle>/sign-in/<id>:
// the bot link with auth_<token>, and Continue); when the member presses Start the bot sends a link
// to a page naming this browser, where they confirm (./confirm-sign-in.ts); Continue (POST, CSRF)
// then completes it once into a portal session for this project. A sign-in started from a plan
// (return_to, a page of this project on this host only) comes back to it, else to the account.
import type Koa from "koa";
import { html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";
import { readPageForm, safeReturnTo } from "../auth/pages/forms.ts";
import { PageError } from "../auth/pages/page-error.ts";
import { UUID } from "../../uuid.ts";
import { completeHandoff, handoffOfBrowser, startHandoff, HANDOFF_TTL_MS } from "../../modules/portal/handoffs.ts";
import { openPortalSession } from "../../modules/portal/sessions.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import type { RequestState } from "../../http/request.ts";
import { connectedInstallations, portalContext, startLink } from "./catalog.ts";
import { browserKeyOf, ensureBrowserKey, setBrowserKey } from "./browser-key.ts";
import { browserSummary } from "./browser-summary.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";

const requestId = (ctx: Koa.Context) => (ctx.state as RequestState).requestId ?? null;

function refuse(message: string, status: number): never {
  throw new PageError(status, message);
}

/** Where the member returns after signing in: `value` when it is a page of this project's portal (same origin), else null. */
function projectReturnTo(deps: PortalDeps, project: PortalProject, value: unknown): string | null {
  if (typeof value !== "string" || !value) return null;
  const path = safeReturnTo(value, new URL(deps.portalUrl).origin);
  const home = portalPath(project.handle);
  return path === home || path.startsWith(`${home}?`) || path.startsWith(`${home}/`) ? path : null;
}

/** The waiting page's address, carrying the return address along. */
function waitingPath(project: PortalProject, id: string, returnTo: string | null, waiting = false): string {
  const query = [waiting ? "waiting" : null, returnTo ? `return_to=${encodeURIComponent(returnTo)}` : null].filter((q) => q !== null);
  return portalPath(project.handle, `/sign-in/${id}${query.length ? `?${query.join("&")}` : ""}`);
}

export async function startSignIn(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const { fields } = await readPageForm(ctx);
  const installations = await connectedInstallations(portalContext(deps, project, requestId(ctx)), deps.connectors, project.id, deps.platforms);
  const chosen = installations.find((i) => i.installation.id === fields.installation && i.signIn);
  if (!chosen) refuse("Signing in through that connector is not available here. Go back and choose another.", 400);
  const browserKey = ensureBrowserKey(ctx);
  const handoff = await deps.db.transaction((trx) =>
    startHandoff(portalContext(deps, project, requestId(ctx), trx), {
      appKey: deps.appKey,
      installation: chosen.installation,
      browserKey,
      browser: browserSummary(ctx.get("user-agent")),
    }),
  );
  ctx.status = 303;
  ctx.redirect(waitingPath(project, handoff.id, projectReturnTo(deps, project, fields.return_to)));
}

async function browserHandoff(ctx: Koa.Context, deps: PortalDeps, project: PortalProject, db = deps.db) {
  const id = String(ctx.params.id ?? "");
  const found = UUID.test(id)
    ? await handoffOfBrowser(portalContext(deps, project, requestId(ctx), db), {
        appKey: deps.appKey,
        projectId: project.id,
        id,
        browserKey: browserKeyOf(ctx),
      })
    : null;
  // Another browser (or none) learns nothing about the handoff.
  if (!found) refuse("This sign-in was not started in this browser. Go back to the community's page and sign in again.", 404);
  if (found.state === "expired") refuse("This sign-in has expired (it lasts 10 minutes). Go back and sign in again.", 410);
  if (found.state === "used") refuse("This sign-in was already used. Go back and sign in again.", 410);
  return found;
}

export async function showSignIn(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const handoff = await browserHandoff(ctx, deps, project);
  const installations = await connectedInstallations(portalContext(deps, project, requestId(ctx)), deps.connectors, project.id, deps.platforms);
  const via = installations.find((i) => i.installation.id === handoff.row.installation_id);
  if (!via) refuse("The community's bot is not connected any more. Go back and sign in again.", 410);
  const waiting = ctx.query.waiting !== undefined && handoff.state === "waiting";
  const returnTo = projectReturnTo(deps, project, ctx.query.return_to);
  const minutes = Math.round(HANDOFF_TTL_MS / 60_000);
  renderPortalPage(ctx, {
    title: `Sign in with ${via.connectorName}`,
    project,
    body: html`<h1>Sign in with ${via.connectorName}</h1>
      ${
        waiting
          ? portalNotice(
              "error",
              html`Not confirmed yet. Press <strong>Start</strong> in the bot, open the link it sends and confirm there, then Continue.`,
            )
          : ""
      }
      ${handoff.state === "confirmed" ? portalNotice("success", `${via.connectorName} confirmed your account. Press Continue.`) : ""}
      <ol class="steps">
        <li>
          <a class="button" href="${startLink(via.installation, handoff.payload)}" rel="noopener noreferrer">Open ${via.connectorName}</a>
          and press <strong>Start</strong>.
        </li>
        <li>
          The bot sends you a link. Open it and confirm the sign-in: it names this browser as
          <strong>${handoff.row.browser_summary}</strong>.
        </li>
        <li>
          Come back to this page and press Continue.
          <form method="post" action="${waitingPath(project, handoff.row.id, returnTo)}">
            ${csrfField(ctx)}<button type="submit">Continue</button>
          </form>
        </li>
      </ol>
      <p class="hint">This sign-in works once, in this browser only, for ${minutes} minutes.</p>`,
  });
}

export async function continueSignIn(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  await readPageForm(ctx);
  const returnTo = projectReturnTo(deps, project, ctx.query.return_to);
  const signedIn = await deps.db.transaction(async (trx) => {
    const handoff = await browserHandoff(ctx, deps, project, trx);
    const domain = portalContext(deps, project, requestId(ctx), trx);
    if (handoff.state === "waiting") return null;
    const memberId = await completeHandoff(domain, handoff);
    if (!memberId) refuse("This sign-in was already used. Go back and sign in again.", 410);
    return openPortalSession(domain, { projectId: project.id, memberId, oldKey: browserKeyOf(ctx) });
  });
  ctx.status = 303;
  if (!signedIn) return ctx.redirect(waitingPath(project, String(ctx.params.id), returnTo, true));
  setBrowserKey(ctx, signedIn);
  ctx.redirect(returnTo ?? portalPath(project.handle, "/account"));
}
