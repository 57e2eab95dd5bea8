// A member's way in through the platform's own sign-in (Discord's OAuth2, for platforms with no
// start links). An installation's entry, GET /connectors/<connector>/<installation> (its bot_url:
// deep links add ?start=<payload>, the portal's "Sign in with …" adds ?return_to=<page>), starts a
// handoff bound to this browser and sends it to the platform's consent screen with the handoff as
// `state`; the platform answers GET /connectors/<connector>/callback, where the code is exchanged
// for the member's account and grant (kept sealed: paying adds them to the server), the member is
// found or created exactly as a bot's /start does, the handoff completes once into a portal
// session, and a start payload runs as the bot runs it (a plan, an access code). Both are GETs: a
// link, not a form, leads off the portal, so its CSP's form-action stays 'self'.
import type Koa from "koa";
import { html } from "../auth/pages/html.ts";
import { PageError } from "../auth/pages/page-error.ts";
import { safeReturnTo } from "../auth/pages/forms.ts";
import { unscoped } from "../../db/tenant.ts";
import { UUID } from "../../uuid.ts";
import { completePlatformHandoff, handoffOfBrowser, startHandoff, AUTH_PAYLOAD_PREFIX } from "../../modules/portal/handoffs.ts";
import { openPortalSession } from "../../modules/portal/sessions.ts";
import { findOrCreateMember } from "../../modules/members/members.ts";
import { projectByPortalHandle, type PortalProject } from "../../modules/projects/handles.ts";
import { driverFor } from "../../modules/connectors/drivers/index.ts";
import { PlatformError, type PlatformSignIn } from "../../modules/connectors/drivers/driver.ts";
import { rememberMemberGrant } from "../../modules/connectors/member-grants.ts";
import { openStart } from "../../modules/connectors/bot/start.ts";
// The portal is written in English, so the bot's answer shown on it is too.
import { ENGLISH_TEXTS } from "../../modules/connectors/bot/texts.ts";
import { syncPlatformAccess } from "../../modules/connectors/access-sync.ts";
import type { InstallationRow } from "../../modules/connectors/tables.ts";
import { platformCallbackUrl } from "../../modules/connectors/platform-entry.ts";
import type { RequestState } from "../../http/request.ts";
import { portalContext } from "./catalog.ts";
import { browserKeyOf, ensureBrowserKey, setBrowserKey } from "./browser-key.ts";
import { browserSummary } from "./browser-summary.ts";
import type { PortalDeps } from "./deps.ts";
import { portalNotice, portalPath, renderPortalPage } from "./layout.ts";

const requestId = (ctx: Koa.Context) => (ctx.state as RequestState).requestId ?? null;

function signInOf(deps: PortalDeps, connector: string): PlatformSignIn {
  const signIn = driverFor(connector, deps.platforms)?.signIn;
  if (!signIn) throw new PageError(404, "This community cannot be joined that way.");
  return signIn;
}

/** A page of this project's portal (same origin), or null. */
function projectPage(deps: PortalDeps, project: PortalProject, value: unknown): string | null {
  if (typeof value !== "string" || !value) return null;
  const path = safeReturnTo(value, new URL(deps.portalUrl).origin);
  const home = portalPath(project.handle);
  return path === home || path.startsWith(`${home}?`) || path.startsWith(`${home}/`) ? path : null;
}

async function projectOf(deps: PortalDeps, projectId: string): Promise<PortalProject> {
  const row = (await unscoped(
    deps.db,
    "the platform sign-in: the project of an installation or handoff found by its id",
  )("projects")
    .where({ id: projectId })
    .first("handle")) as { handle: string } | undefined;
  const project = row ? await projectByPortalHandle(deps.db, row.handle) : null;
  if (!project) throw new PageError(404, "This community is not on the portal any more.");
  return project;
}

/** GET /connectors/:connector/:installation: off to the platform's consent screen. */
export async function enterThroughPlatform(ctx: Koa.Context, deps: PortalDeps): Promise<void> {
  const connector = String(ctx.params.connector ?? "");
  const id = String(ctx.params.installation ?? "");
  const signIn = signInOf(deps, connector);
  const installation = UUID.test(id)
    ? ((await unscoped(
        deps.db,
        "the platform sign-in: an installation's entry is public, named by its id",
      )("connector_installations")
        .where({ id, connector_key: connector, status: "active" })
        .first()) as InstallationRow | undefined)
    : undefined;
  if (!installation) throw new PageError(404, "This link does not lead to a community any more.");
  const project = await projectOf(deps, installation.project_id);
  const start = typeof ctx.query.start === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(ctx.query.start) ? ctx.query.start : null;
  const browserKey = ensureBrowserKey(ctx);
  const handoff = await deps.db.transaction((trx) =>
    startHandoff(portalContext(deps, project, requestId(ctx), trx), {
      appKey: deps.appKey,
      installation,
      browserKey,
      browser: browserSummary(ctx.get("user-agent")),
      returnTo: projectPage(deps, project, ctx.query.return_to),
      startPayload: start,
    }),
  );
  const state = `${handoff.id}.${handoff.payload.slice(AUTH_PAYLOAD_PREFIX.length)}`;
  ctx.set("Cache-Control", "no-store");
  ctx.redirect(signIn.authorizeUrl({ state, redirectUri: platformCallbackUrl(deps.portalUrl, connector) }));
}

/** GET /connectors/:connector/callback?code&state (or ?error): the member comes back signed in. */
export async function finishPlatformSignIn(ctx: Koa.Context, deps: PortalDeps): Promise<void> {
  const connector = String(ctx.params.connector ?? "");
  const signIn = signInOf(deps, connector);
  const [id, token] = String(ctx.query.state ?? "").split(".");
  const row =
    id && UUID.test(id)
      ? ((await unscoped(
          deps.db,
          "the platform sign-in callback: the handoff its state names, checked against this browser below",
        )("portal_handoffs")
          .where({ id })
          .first("project_id")) as { project_id: string } | undefined)
      : undefined;
  if (!row) throw new PageError(400, "This sign-in was not started here. Go back to the community's page and sign in again.");
  const project = await projectOf(deps, row.project_id);
  const handoff = await handoffOfBrowser(portalContext(deps, project, requestId(ctx)), {
    appKey: deps.appKey,
    projectId: project.id,
    id: id!,
    browserKey: browserKeyOf(ctx),
  });
  if (!handoff || handoff.payload !== `${AUTH_PAYLOAD_PREFIX}${token}`)
    throw new PageError(400, "This sign-in was not started in this browser. Go back to the community's page and sign in again.");
  if (handoff.state !== "waiting") throw new PageError(410, "This sign-in has expired or was already used (it lasts 10 minutes). Sign in again.");
  if (typeof ctx.query.error === "string" || typeof ctx.query.code !== "string") {
    return renderPortalPage(ctx, {
      title: "Sign-in cancelled",
      status: 400,
      project,
      body: html`<h1>Sign-in cancelled</h1>
        ${portalNotice("error", "The sign-in was not authorized, so nothing changed.")}
        <p><a class="button" href="${portalPath(project.handle)}">Back to ${project.name}</a></p>`,
    });
  }
  let signedIn: Awaited<ReturnType<PlatformSignIn["complete"]>>;
  try {
    signedIn = await signIn.complete({ code: ctx.query.code, redirectUri: platformCallbackUrl(deps.portalUrl, connector) });
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    throw new PageError(502, "The platform did not confirm who you are. Go back to the community's page and sign in again.");
  }
  const installation = (await unscoped(
    deps.db,
    "the platform sign-in callback: the handoff's installation",
  )("connector_installations")
    .where({ id: handoff.row.installation_id, status: "active" })
    .first()) as InstallationRow | undefined;
  if (!installation) throw new PageError(410, "The community's connection to the platform was removed. Go back to the community's page.");
  const account = { connectorKey: connector, externalUserId: signedIn.account.id, displayName: signedIn.account.name };
  const done = await deps.db.transaction(async (trx) => {
    const domain = portalContext(deps, project, requestId(ctx), trx);
    const { member } = await findOrCreateMember(domain, project.id, account);
    if (member.status === "banned") throw new PageError(403, "You cannot join this community.");
    await rememberMemberGrant(domain, deps.appKey, { id: member.id, project_id: project.id, connector_key: connector }, signedIn.grant);
    if (!(await completePlatformHandoff(domain, handoff, member.id))) throw new PageError(410, "This sign-in was already used. Sign in again.");
    const key = await openPortalSession(domain, { projectId: project.id, memberId: member.id, oldKey: browserKeyOf(ctx) });
    const start = handoff.row.start_payload
      ? await openStart(domain, { installation, account, payload: handoff.row.start_payload, portalUrl: deps.portalUrl, texts: ENGLISH_TEXTS })
      : null;
    return { key, member, start };
  });
  setBrowserKey(ctx, done.key);
  if (done.start?.outcome.kind === "redeemed") {
    // After the commit, as the bot does: the access the code gave is brought in line at once (the sweep retries a failure).
    await syncPlatformAccess(deps.db, deps, deps.now(), { memberId: done.member.id }).catch((err: unknown) =>
      deps.logger.warn({ member_id: done.member.id, err }, "access sync after a platform sign-in failed"),
    );
  }
  const start = done.start;
  if (start && start.outcome.kind !== "plan" && start.outcome.kind !== "home") {
    // What the bot would have answered (a redemption, a refusal), shown where the member is.
    return renderPortalPage(ctx, {
      title: `Signed in with ${signedIn.account.name ?? connector}`,
      project,
      body: html`<h1>Signed in</h1>
        ${portalNotice(start.outcome.kind === "refused" ? "error" : "success", start.text)}
        <p><a class="button" href="${portalPath(project.handle, "/account")}">Your membership</a></p>`,
    });
  }
  ctx.status = 303;
  ctx.set("Cache-Control", "no-store");
  const planPage = start?.outcome.kind === "plan" ? `${portalPath(project.handle)}?plan=${start.outcome.planId}` : null;
  ctx.redirect(handoff.row.return_to ?? planPage ?? portalPath(project.handle, "/account"));
}
