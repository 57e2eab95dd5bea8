// The OAuth 2.1 authorization endpoint as a page (service description, "OAuth 2.1 (MCP clients)"):
// GET /oauth/authorize checks the client's request, signs the creator in (second factor included;
// sign-in returns to this same URL) and asks them to approve; POST /oauth/authorize carries their
// answer. Nothing is granted without Approve: only that button issues a code.
//
// Refusals follow RFC 6749 section 4.1.2.1: when the client or its redirect URI cannot be trusted
// the person sees why (the browser is never sent to an unverified address); every other fault, and
// Deny, goes back to the registered redirect URI with error and state.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { OAuthError } from "../../../modules/oauth/oauth-error.ts";
import {
  issueAuthorizationCode,
  redirectWithParams,
  validateAuthorizationRequest,
  type AuthorizationRequest,
} from "../../../modules/oauth/authorization.ts";
import { csrfField } from "./csrf.ts";
import { requireCreator, signedInCreator, type SignedIn } from "./creator.ts";
import { readPageForm } from "./forms.ts";
import { PageError } from "./page-error.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";
import { placeOnTeam } from "./team-place.ts";

/** The request's parameters, carried from the consent page to its POST and checked again there. */
const REQUEST_FIELDS = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"] as const;

/** The request's fields; state only when the client sent one (it is optional with PKCE). */
function requestFields(request: AuthorizationRequest): Partial<Record<(typeof REQUEST_FIELDS)[number], string>> {
  return {
    response_type: "code",
    client_id: request.client.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    ...(request.state !== undefined ? { state: request.state } : {}),
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallengeMethod,
  };
}

/** The request's fields as the hidden inputs of a consent form. */
function hiddenRequestFields(request: AuthorizationRequest): Html[] {
  const fields = requestFields(request);
  return REQUEST_FIELDS.filter((name) => fields[name] !== undefined).map(
    (name) => html`<input type="hidden" name="${name}" value="${fields[name]!}" />`,
  );
}

const isWeb = (url: URL) => url.protocol === "https:" || url.protocol === "http:";

/**
 * Where the person lands after the app: a website's host, or the whole URI of a native client's
 * private-use scheme, said to be an app (vscode://github.com/cb is not the website github.com).
 */
function destinationOf(redirectUri: string): Html {
  const url = new URL(redirectUri);
  if (isWeb(url)) return html`<code>${url.host}</code>`;
  return html`<code>${redirectUri}</code> <span class="hint">An app on this device that opens ${url.protocol} addresses, not a website.</span>`;
}

/**
 * The CSP form-action source that lets the answer's redirect reach the app (Chromium checks the
 * redirects after a form is sent): the redirect URI's origin, or its scheme for a private-use URI
 * or an IPv6 loopback (Chromium takes no IPv6 literal as a source). Only a value that is one plain
 * source is given, so a redirect URI cannot add to the policy.
 */
function formTargetsOf(request: AuthorizationRequest): string[] {
  const url = new URL(request.redirectUri);
  const source = isWeb(url) && !url.hostname.startsWith("[") ? url.origin : url.protocol;
  return /^[a-z][a-z0-9+.-]*:(\/\/[a-z0-9.-]+(:\d+)?)?$/i.test(source) ? [source] : [];
}

/** The client or its redirect URI cannot be trusted: said to the person, never sent to the URI. */
function untrustedRequestPage(ctx: Koa.Context, creator: SignedIn | null, error: string, description: string): void {
  renderPage(ctx, {
    title: "This app cannot be connected",
    status: 400,
    creator,
    body: html`${notice("error", "The app that sent you here made a request SubBridge cannot trust, so nothing was connected.")}
      <p>
        You were not sent back to the app because SubBridge could not confirm where it wanted you to go. Return to the app and start connecting again;
        if this keeps happening, tell the app's developer what SubBridge found:
      </p>
      <p class="consent-detail"><code>${error}</code>: ${description}</p>
      <p><a href="/">Go to your account</a></p>`,
  });
}

/** Deny on a page where the creator cannot approve (no team): the app learns it was refused. */
function denyForm(ctx: Koa.Context, request: AuthorizationRequest, label: string) {
  return html`<form method="post" action="/oauth/authorize" class="consent-actions">
    ${csrfField(ctx)}${hiddenRequestFields(request)}
    <button type="submit" name="decision" value="deny" class="secondary">${label}</button>
  </form>`;
}

function noTeamPage(ctx: Koa.Context, creator: SignedIn, request: AuthorizationRequest, why: string): void {
  renderPage(ctx, {
    title: "Join a team first",
    status: 403,
    creator,
    formTargets: formTargetsOf(request),
    body: html`${notice("error", why)}
      <p>
        <strong>${request.client.clientName}</strong> would act on one team, as you, with what your role there grants. Ask a team's owner to invite
        you (or open an account with a team of its own), then connect the app again.
      </p>
      ${denyForm(ctx, request, "Cancel and tell the app")}`,
  });
}

async function consentPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, request: AuthorizationRequest): Promise<void> {
  const team = creator.teams.find((t) => t.id === creator.teamId);
  const place = team ? await placeOnTeam(deps.db, creator.userId, team.id) : null;
  if (!team || !place) {
    noTeamPage(ctx, creator, request, "Your account belongs to no team, so there is nothing an app could act on yet.");
    return;
  }
  const role = place === "owner" ? "every ability (you own it)" : html`every ability your role there (<strong>${place}</strong>) grants`;
  renderPage(ctx, {
    title: `Connect ${request.client.clientName}?`,
    creator,
    formTargets: formTargetsOf(request),
    body: html`<p class="consent-lead"><strong>${request.client.clientName}</strong> asks to use the SubBridge MCP server as you.</p>
      <p class="hint">
        The app chose this name itself when it registered; SubBridge did not check it. Approve only if you started connecting from this app yourself.
      </p>
      <dl class="consent-facts">
        <dt>App</dt>
        <dd>${request.client.clientName}</dd>
        <dt>Sends you back to</dt>
        <dd>${destinationOf(request.redirectUri)}</dd>
        <dt>Team</dt>
        <dd>
          <strong>${team.name}</strong>
          <span class="hint">To connect another of your teams, pick it with the team switcher at the top; you come back to this page.</span>
        </dd>
      </dl>
      <h2>If you approve, the app can</h2>
      <ul class="consent-grants">
        <li>act as you (${creator.email}) on the team <strong>${team.name}</strong>, with ${role}, and nothing more;</li>
        <li>do so on the MCP server only (<code>${deps.mcpUrl}</code>): its tokens do not work on the REST API;</li>
        <li>
          keep going while it holds the connection: each access token lasts 1 hour and is renewed with a refresh token that lasts 30 days from its
          last use. The connection ends when the app discards its refresh token.
        </li>
      </ul>
      <form method="post" action="/oauth/authorize" class="consent-actions">
        ${csrfField(ctx)}${hiddenRequestFields(request)}
        <input type="hidden" name="team_id" value="${team.id}" />
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>`,
  });
}

/**
 * The deployment's own dashboard (src/modules/oauth/first-party.ts) asks no approval: signing in to
 * it is signing in to SubBridge. The code goes to its one registered callback, for the team the
 * creator has selected here (the switcher at the top picks another).
 */
async function firstPartyCode(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, request: AuthorizationRequest): Promise<void> {
  const teamId = creator.teamId;
  if (!teamId || !creator.teams.some((t) => t.id === teamId)) {
    noTeamPage(ctx, creator, request, "Your account belongs to no team, so there is nothing the dashboard could show yet.");
    return;
  }
  const code = await issueAuthorizationCode(deps.db, {
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    scope: request.scope,
    userId: creator.userId,
    teamId,
    now: deps.now(),
  });
  ctx.redirect(redirectWithParams(request.redirectUri, { code, state: request.state }));
}

export function mountConsentPages(router: Router, deps: AuthDeps): void {
  router.register(
    "/oauth/authorize",
    ["GET"],
    pageRoute(async (ctx) => {
      ctx.set("Cache-Control", "no-store");
      const check = await validateAuthorizationRequest(deps.db, ctx.query);
      if (check.kind === "show") {
        untrustedRequestPage(ctx, await signedInCreator(ctx, deps.db), check.error, check.description);
        return;
      }
      if (check.kind === "redirect") {
        ctx.redirect(check.location);
        return;
      }
      // Sign-in (and its second factor) comes back to this same URL.
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      if (check.request.client.firstParty) await firstPartyCode(ctx, deps, creator, check.request);
      else await consentPage(ctx, deps, creator, check.request);
    }),
  );

  router.register(
    "/oauth/authorize",
    ["POST"],
    pageRoute(async (ctx) => {
      ctx.set("Cache-Control", "no-store");
      const { fields, all } = await readPageForm(ctx);
      // Checked again: the form's fields are the browser's to change. A repeated one stays an array
      // so validateAuthorizationRequest refuses it as it does on GET.
      const query: Record<string, string | string[]> = {};
      for (const name of REQUEST_FIELDS) {
        const values = all(name);
        if (values.length) query[name] = values.length === 1 ? values[0]! : values;
      }
      const check = await validateAuthorizationRequest(deps.db, query);
      const creator = await signedInCreator(ctx, deps.db);
      if (check.kind === "show") {
        untrustedRequestPage(ctx, creator, check.error, check.description);
        return;
      }
      if (check.kind === "redirect") {
        ctx.redirect(check.location);
        return;
      }
      const { request } = check;
      // Deny grants nothing, so it needs no session (the CSRF token proves the page was ours).
      if (fields.decision === "deny") {
        ctx.redirect(
          redirectWithParams(request.redirectUri, {
            error: "access_denied",
            error_description: "The creator denied the request.",
            state: request.state,
          }),
        );
        return;
      }
      if (fields.decision !== "approve") throw new PageError(400, "Choose Approve or Deny.");
      if (!creator) {
        // The session ended while the page was open: sign in again, then see the page again.
        const again = `/oauth/authorize?${new URLSearchParams(requestFields(request) as Record<string, string>)}`;
        ctx.redirect(`/sign-in?return_to=${encodeURIComponent(again)}`);
        return;
      }
      const teamId = fields.team_id ?? "";
      if (!creator.teams.some((t) => t.id === teamId)) {
        noTeamPage(ctx, creator, request, "You do not belong to the team this page named (any longer), so nothing was connected.");
        return;
      }
      let code: string;
      try {
        code = await issueAuthorizationCode(deps.db, {
          clientId: request.client.clientId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          codeChallengeMethod: request.codeChallengeMethod,
          scope: request.scope,
          userId: creator.userId,
          teamId,
          now: deps.now(),
        });
      } catch (err) {
        if (err instanceof OAuthError && err.error === "access_denied") {
          noTeamPage(ctx, creator, request, "You do not belong to the team this page named (any longer), so nothing was connected.");
          return;
        }
        if (err instanceof OAuthError) {
          untrustedRequestPage(ctx, creator, err.error, err.description);
          return;
        }
        throw err;
      }
      ctx.redirect(redirectWithParams(request.redirectUri, { code, state: request.state }));
    }),
  );
}
