// The page of the link the bot sends after /start auth_<token> (GET/POST
// /<handle>/sign-in/confirm/<secret>): it says who would be signed in (the member, through which
// connector), in which browser the sign-in was asked for and when, and only its button claims the
// handoff. It opens on whatever device the member reads the bot on; the secret in the address,
// sent only in that member's chat, is what lets it act (no portal session is needed).
import type Koa from "koa";
import { html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";
import { readPageForm } from "../auth/pages/forms.ts";
import { PageError } from "../auth/pages/page-error.ts";
import { confirmHandoff, handoffToConfirm } from "../../modules/portal/handoffs.ts";
import { membersTable, type MemberRow } from "../../modules/members/tables.ts";
import type { PortalProject } from "../../modules/projects/handles.ts";
import type { RequestState } from "../../http/request.ts";
import { portalContext } from "./catalog.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";
import { memberName } from "./project-page.ts";

const SECRET = /^[A-Za-z0-9_-]{20,100}$/;
const TITLE = "Confirm a sign-in";

const domainOf = (ctx: Koa.Context, deps: PortalDeps, project: PortalProject, db = deps.db) =>
  portalContext(deps, project, (ctx.state as RequestState).requestId ?? null, db);

/** "14:02 UTC on 2026-11-27, 3 minutes ago". */
function askedAt(at: Date, now: Date): string {
  const iso = at.toISOString();
  const minutes = Math.max(0, Math.round((now.getTime() - at.getTime()) / 60_000));
  return `${iso.slice(11, 16)} UTC on ${iso.slice(0, 10)}, ${minutes < 1 ? "less than a minute" : `${minutes} minute${minutes === 1 ? "" : "s"}`} ago`;
}

async function confirmation(ctx: Koa.Context, deps: PortalDeps, project: PortalProject, db = deps.db) {
  const secret = String(ctx.params.secret ?? "");
  const found = SECRET.test(secret) ? await handoffToConfirm(domainOf(ctx, deps, project, db), { projectId: project.id, secret }) : null;
  if (!found) throw new PageError(404, "This confirmation link is not valid. Start the sign-in again from the portal.");
  if (found.state === "expired") throw new PageError(410, "This sign-in has expired (it lasts 10 minutes). Start again from the portal.");
  if (found.state === "used") throw new PageError(410, "This sign-in was already used. Start again from the portal.");
  return { secret, ...found };
}

function confirmedPage(ctx: Koa.Context, project: PortalProject, browser: string): void {
  renderPortalPage(ctx, {
    title: TITLE,
    project,
    body: html`<h1>${TITLE}</h1>
      ${portalNotice("success", html`Confirmed. Go back to <strong>${browser}</strong> and press Continue there.`)}`,
  });
}

export async function showSignInConfirmation(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  const { row, state, secret } = await confirmation(ctx, deps, project);
  if (state === "confirmed") return confirmedPage(ctx, project, row.browser_summary);
  const member = (await membersTable
    .rows(domainOf(ctx, deps, project))
    .where({ id: row.proposed_member_id })
    .first()) as MemberRow;
  const via = member.connector_key ? (deps.connectors.card(member.connector_key)?.name ?? member.connector_key) : null;
  renderPortalPage(ctx, {
    title: TITLE,
    project,
    body: html`<h1>${TITLE}</h1>
      <p>A sign-in to <strong>${project.name}</strong> as <strong>${memberName(member)}</strong>${via ? ` (${via})` : ""} was asked for from:</p>
      <dl class="sign-in-request">
        <dt>Browser</dt>
        <dd><strong>${row.browser_summary}</strong></dd>
        <dt>Asked at</dt>
        <dd>${askedAt(new Date(row.created_at), deps.now())}</dd>
      </dl>
      <p>Confirm only if you started this sign-in yourself, just now, in that browser. If not, close this page: nobody is signed in.</p>
      <form method="post" action="${portalPath(project.handle, `/sign-in/confirm/${secret}`)}">
        ${csrfField(ctx)}<button type="submit">Yes, sign in ${row.browser_summary}</button>
      </form>`,
  });
}

export async function confirmSignIn(ctx: Koa.Context, deps: PortalDeps, project: PortalProject): Promise<void> {
  await readPageForm(ctx);
  const browser = await deps.db.transaction(async (trx) => {
    const { row, state, secret } = await confirmation(ctx, deps, project, trx);
    if (state === "waiting" && !(await confirmHandoff(domainOf(ctx, deps, project, trx), { projectId: project.id, secret })))
      throw new PageError(410, "This sign-in was already used. Start again from the portal.");
    return row.browser_summary;
  });
  confirmedPage(ctx, project, browser);
}
