// The agent-registration claim page: claim.verification_uri = {auth_url}/agent/claim (claim_url adds
// ?registration_id=<uuid>). The signed-in creator sees the agent's client_name, the abilities it
// asked for (its token carries exactly these; any the creator's role on the team lacks are listed,
// and then there is nothing to confirm), the team it will act on (the session's, changed with the team switcher), and
// types the 6-digit code. Only the named creator may confirm: any other account is refused without
// the page naming the address. Without registration_id the code alone finds the registration among
// the creator's open ones, and the page then shows it with a button to confirm: nothing is
// confirmed before the person has seen what. The rules (10-minute code, 5 wrong codes end the
// registration, abilities bounded by the role at confirmation) live in src/modules/agent-registrations/confirmation.ts.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import {
  confirmAgentRegistration,
  describeAgentRegistration,
  identifyAgentRegistration,
  type AgentRegistrationView,
} from "../../../modules/agent-registrations/confirmation.ts";
import { AgentRegistrationError } from "../../../modules/agent-registrations/registrations.ts";
import type { RequestState } from "../../../http/request.ts";
import { field } from "./account-pages.ts";
import { csrfField } from "./csrf.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { readPageForm } from "./forms.ts";
import { PageError } from "./page-error.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";

const TITLE = "Connect an agent";
const CODE = /^[0-9]{6}$/;

/** What a refusal tells the person; the form stays for the codes worth another try. */
const MESSAGES: Record<string, { status: number; text: string; retry?: boolean }> = {
  not_found: { status: 404, text: "No open agent registration for your account matches. Check the link or the code the agent shows." },
  wrong_account: {
    status: 403,
    text: "This agent registration was made for another account. Sign out, then sign in as the creator the agent named.",
  },
  team_not_visible: { status: 403, text: "You do not own or belong to that team. Choose one of your teams with the team switcher.", retry: true },
  already_confirmed: { status: 409, text: "This agent registration is already confirmed: the agent collects its token on its next poll." },
  registration_expired: {
    status: 410,
    text: "This agent registration has ended (30 minutes passed or 5 wrong codes were typed). Ask the agent to register again.",
  },
  code_expired: {
    status: 400,
    text: "That code has expired (a code lasts 10 minutes). Ask the agent for a fresh code, then type it here.",
    retry: true,
  },
  wrong_code: {
    status: 400,
    text: "That code is not right. Check the code the agent shows and type it again: 5 wrong codes end the registration.",
    retry: true,
  },
  abilities_not_granted: {
    status: 403,
    text:
      "Your role on this team does not grant every ability this agent asks for (listed as missing), and the agent's token carries exactly what it asked for. " +
      "Choose another team with the team switcher, ask someone whose role grants them to confirm, or have the agent register again asking for less.",
    retry: true,
  },
};

function refusal(err: AgentRegistrationError): { status: number; text: string; retry?: boolean } {
  return MESSAGES[err.code] ?? { status: 400, text: "The agent registration could not be confirmed." };
}

const abilityList = (abilities: string[]) =>
  html`<ul class="plain columns">
    ${abilities.map((a) => html`<li><code>${a}</code></li>`)}
  </ul>`;

function details(view: AgentRegistrationView, confirmed = false): Html {
  const count = (n: number) => `${n} abilit${n === 1 ? "y" : "ies"}`;
  return html`<dl class="claim">
      <dt>Agent</dt>
      <dd><strong>${view.client_name}</strong></dd>
      <dt>Team</dt>
      <dd>${view.team.name} <span class="hint">(the team you are working in; change it with the team switcher above)</span></dd>
      <dt>Asked for (${view.abilities.length})</dt>
      <dd>${abilityList(view.abilities)}</dd>
      ${
        view.dropped.length
          ? html`<dt>Your role lacks (${view.dropped.length})</dt>
              <dd>
                <p class="hint">Your role on ${view.team.name} does not grant these, so you cannot give the agent a token with them.</p>
                ${abilityList(view.dropped)}
              </dd>`
          : html`<dt>${confirmed ? "Granted" : "It will get"}</dt>
              <dd>All ${view.abilities.length}: your role on ${view.team.name} grants each of them.</dd>`
      }
    </dl>
    <p>
      ${confirmed ? "The agent receives" : "Once you confirm, the agent receives"} a personal access token with the ${count(view.granted.length)} it
      gets, on ${view.team.name}. It appears on your <a href="/tokens">tokens page</a>, marked as an agent registration, where you can delete it.
    </p>`;
}

/** The code form; with `code` (the code-only page's second step) the typed code rides along and only the button is left. */
function codeForm(ctx: Koa.Context, teamId: string, registrationId: string | null, options: { error?: string; code?: string } = {}): Html {
  return html`<form method="post" action="/agent/claim" class="stack">
    ${csrfField(ctx)}<input type="hidden" name="team_id" value="${teamId}" />
    ${registrationId ? html`<input type="hidden" name="registration_id" value="${registrationId}" />` : ""}
    ${
      options.code
        ? html`<input type="hidden" name="code" value="${options.code}" />`
        : field({
            name: "code",
            label: "Code",
            autocomplete: "one-time-code",
            hint: "The 6 digits the agent shows you.",
            ...(options.error ? { error: options.error } : {}),
          })
    }
    <button type="submit">${registrationId ? "Confirm and connect the agent" : "Show the agent"}</button>
  </form>`;
}

/** A page that ends the claim (refused, ended or already confirmed), with the navigation (sign-out, tokens). */
function outcomePage(ctx: Koa.Context, creator: SignedIn, status: number, text: string, kind: "error" | "info" = "error"): void {
  renderPage(ctx, {
    title: status === 403 ? "Not allowed" : TITLE,
    creator,
    status,
    body: html`${notice(kind, text)}
      <p><a href="/tokens">Go to your tokens</a></p>`,
  });
}

function teamName(creator: SignedIn, teamId: string): string {
  return creator.teams.find((t) => t.id === teamId)?.name ?? "";
}

/**
 * The page before confirming: the registration (when known) with what it asks for and gets, and the
 * form. Known through the code alone, the typed code rides along and the button confirms; when the
 * creator's role lacks an asked-for ability there is nothing to confirm here.
 */
function claimPage(
  ctx: Koa.Context,
  creator: SignedIn,
  teamId: string,
  view: AgentRegistrationView | null,
  options: { error?: { status: number; text: string }; code?: string } = {},
): void {
  const form = codeForm(ctx, teamId, view?.registration_id ?? null, {
    ...(options.error ? { error: options.error.text } : {}),
    ...(options.code ? { code: options.code } : {}),
  });
  renderPage(ctx, {
    title: TITLE,
    creator,
    status: options.error?.status ?? 200,
    body: html`${
      view
        ? details(view)
        : html`<p>
            Type the code your agent shows to give it a token on <strong>${teamName(creator, teamId)}</strong> (the team you are working in; change it
            with the team switcher above). The next page shows the agent's name and the abilities it asks for; nothing is connected until you confirm
            there.
          </p>`
    }
    ${view && view.dropped.length ? notice("error", MESSAGES.abilities_not_granted!.text) : form}`,
  });
}

export function mountClaimPages(router: Router, deps: AuthDeps): void {
  /** The claim page, with the registration when the link names it, else the code alone. */
  async function showClaim(
    ctx: Koa.Context,
    creator: SignedIn,
    teamId: string,
    registrationId: string | null,
    options: { error?: { status: number; text: string }; code?: string } = {},
  ) {
    let view: AgentRegistrationView | null = null;
    if (registrationId) {
      try {
        view = await describeAgentRegistration(deps.db, { registrationId, userId: creator.userId, teamId, now: deps.now() });
      } catch (err) {
        if (err instanceof AgentRegistrationError) return outcomePage(ctx, creator, refusal(err).status, refusal(err).text);
        throw err;
      }
      if (view.state === "claimed" || view.state === "collected") return outcomePage(ctx, creator, 200, MESSAGES.already_confirmed!.text, "info");
      if (view.state === "expired") return outcomePage(ctx, creator, 410, MESSAGES.registration_expired!.text);
    }
    claimPage(ctx, creator, teamId, view, options);
  }

  router.register(
    "/agent/claim",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      if (!creator.teamId) throw new PageError(403, "You belong to no team: an agent's token acts on one team. Create or join a team first.");
      const registrationId = typeof ctx.query.registration_id === "string" && ctx.query.registration_id ? ctx.query.registration_id : null;
      await showClaim(ctx, creator, creator.teamId, registrationId);
    }),
  );

  router.register(
    "/agent/claim",
    ["POST"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const { fields } = await readPageForm(ctx);
      // The team the page showed: confirming acts on what the creator saw, even if another tab switched since.
      const teamId = fields.team_id ?? creator.teamId ?? "";
      const registrationId = fields.registration_id || null;
      const code = (fields.code ?? "").replace(/\s+/g, "");
      if (!CODE.test(code))
        return showClaim(ctx, creator, teamId, registrationId, { error: { status: 400, text: "Type the 6 digits the agent shows." } });
      const input = { code, userId: creator.userId, teamId, now: deps.now() };
      let view: AgentRegistrationView;
      try {
        // The code alone identifies the registration first: the person sees the agent and its abilities, then confirms.
        if (!registrationId) return claimPage(ctx, creator, teamId, await identifyAgentRegistration(deps.db, input), { code });
        view = await confirmAgentRegistration(deps.db, { ...input, registrationId, requestId: (ctx.state as RequestState).requestId ?? null });
      } catch (err) {
        if (!(err instanceof AgentRegistrationError)) throw err;
        const refused = refusal(err);
        if (refused.retry) return showClaim(ctx, creator, teamId, registrationId, { error: refused });
        // The domain's words for an ended registration say why it ended (time, or the 5th wrong code).
        const text = err.code === "registration_expired" ? `${err.message}` : refused.text;
        return outcomePage(ctx, creator, refused.status, text, err.code === "already_confirmed" ? "info" : "error");
      }
      renderPage(ctx, {
        title: "Agent connected",
        creator,
        body: html`${notice("success", `You confirmed ${view.client_name}. It receives its token on its next poll.`)} ${details(view, true)}`,
      });
    }),
  );
}
