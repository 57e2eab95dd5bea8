// The page an invitation's mailed link opens ({auth_url}/invitations/accept?token=...): it shows the
// team, the role and the invited address, and then, by who is looking:
// - nobody signed in: Sign in or Open an account, both coming back here afterwards;
// - the invited address: an Accept button (a POST: mail scanners that open links must not join
//   anyone to a team); accepting switches the session to the joined team;
// - another account: a refusal that names no address, with a way to sign out and come back.
// Every refusal of the invitation rules (src/modules/teams/invitations.ts) becomes a page.
import type { Router } from "@koa/router";
import type Koa from "koa";
import { ApiError } from "../../../errors.ts";
import { unscoped } from "../../../db/tenant.ts";
import { acceptInvitation, describeInvitation, type InvitationSummary, type RefusedAcceptance } from "../../../modules/teams/invitations.ts";
import type { RequestState } from "../../../http/request.ts";
import type { AuthDeps } from "../deps.ts";
import { csrfField } from "./csrf.ts";
import { signedInCreator, type SignedIn } from "./creator.ts";
import { readPageForm } from "./forms.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";
import { endSession, sessionOf } from "./session.ts";

const ACCEPT_PATH = "/invitations/accept";
const JOINED_PATH = "/invitations/joined";

/** The session's note, between the accepting POST and the page it redirects to. */
interface JoinedNote {
  teamName: string;
  roleName: string;
}

const acceptPathFor = (token: string) => `${ACCEPT_PATH}?token=${encodeURIComponent(token)}`;

/** Status, title and next steps of each refusal; the message itself comes from the rule. */
const REFUSALS: Record<RefusedAcceptance, { status: number; title: string; next: string }> = {
  unknown: {
    status: 404,
    title: "Invitation not found",
    next: "Check that you opened the whole link from the message, or ask the team for a new invitation.",
  },
  expired: { status: 410, title: "Invitation expired", next: "Invitations work for 7 days. Ask the team to invite you again." },
  no_longer_pending: { status: 410, title: "Invitation no longer open", next: "If you joined already, the team is in your account's team switcher." },
  email_mismatch: {
    status: 403,
    title: "Invitation for another address",
    next: "Sign out, then sign in with the address the invitation was sent to (or open an account with it).",
  },
  already_member: { status: 409, title: "Already in this team", next: "Choose the team in the team switcher to work in it." },
};

function reasonOf(err: unknown): RefusedAcceptance | null {
  if (!(err instanceof ApiError) || err.code !== "VALIDATION_FAILED") return null;
  const reason = err.context?.reason;
  return typeof reason === "string" && reason in REFUSALS ? (reason as RefusedAcceptance) : null;
}

function refusalPage(ctx: Koa.Context, reason: RefusedAcceptance, message: string, creator: SignedIn | null, token: string): void {
  const refusal = REFUSALS[reason];
  // The other account may sign out here and come back to this link to sign in with the right one.
  const switchAccount =
    reason === "email_mismatch"
      ? html`<form method="post" action="${ACCEPT_PATH}">
          ${csrfField(ctx)}<input type="hidden" name="token" value="${token}" /><input type="hidden" name="intent" value="sign-out" />
          <button type="submit">Sign out and use the invited address</button>
        </form>`
      : "";
  renderPage(ctx, {
    title: refusal.title,
    status: refusal.status,
    creator,
    body: html`${notice("error", message)}
      <p>${refusal.next}</p>
      ${switchAccount}
      <p><a href="/">Go to your account</a></p>`,
  });
}

function summary(invitation: InvitationSummary): Html {
  return html`<dl class="invitation-summary">
    <dt>Team</dt>
    <dd>${invitation.teamName}</dd>
    <dt>Role</dt>
    <dd>${invitation.roleName}</dd>
    <dt>Invited address</dt>
    <dd>${invitation.email}</dd>
    <dt>Expires</dt>
    <dd><time datetime="${invitation.expiresAt}">${invitation.expiresAt.slice(0, 16).replace("T", " ")} UTC</time></dd>
  </dl>`;
}

function signedOutPage(ctx: Koa.Context, invitation: InvitationSummary, token: string): void {
  const back = encodeURIComponent(acceptPathFor(token));
  renderPage(ctx, {
    title: `Join ${invitation.teamName}`,
    body: html`<p>You are invited to join the team <strong>${invitation.teamName}</strong> on SubBridge.</p>
      ${summary(invitation)}
      <p>Sign in with <strong>${invitation.email}</strong>, or open an account with that address if you have none. You come back here to accept.</p>
      <p class="actions">
        <a class="button" href="/sign-in?return_to=${back}">Sign in</a>
        <a class="button secondary" href="/sign-up?return_to=${back}">Open an account</a>
      </p>`,
  });
}

function acceptPage(ctx: Koa.Context, invitation: InvitationSummary, creator: SignedIn, token: string): void {
  renderPage(ctx, {
    title: `Join ${invitation.teamName}`,
    creator,
    body: html`<p>You are invited to join the team <strong>${invitation.teamName}</strong> on SubBridge.</p>
      ${summary(invitation)}
      <form method="post" action="${ACCEPT_PATH}">
        ${csrfField(ctx)}<input type="hidden" name="token" value="${token}" /><input type="hidden" name="intent" value="accept" />
        <button type="submit">Accept and join ${invitation.teamName}</button>
      </form>`,
  });
}

export function mountInvitationPages(router: Router, deps: AuthDeps): void {
  router.register(
    ACCEPT_PATH,
    ["GET"],
    pageRoute(async (ctx) => {
      const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
      const creator = await signedInCreator(ctx, deps.db);
      let invitation: InvitationSummary;
      try {
        invitation = await describeInvitation(deps.db, { secret: token, now: deps.now() });
      } catch (err) {
        const reason = reasonOf(err);
        if (!reason) throw err;
        refusalPage(ctx, reason, (err as Error).message, creator, token);
        return;
      }
      if (!creator) return signedOutPage(ctx, invitation, token);
      // Decided here as acceptInvitation decides it, so the page never offers what would be refused.
      if (creator.email.toLowerCase() !== invitation.email.toLowerCase())
        return refusalPage(ctx, "email_mismatch", "This invitation was sent to another address.", creator, token);
      if (creator.teams.some((t) => t.id === invitation.teamId))
        return refusalPage(ctx, "already_member", "You already belong to this team.", creator, token);
      acceptPage(ctx, invitation, creator, token);
    }),
  );

  router.register(
    ACCEPT_PATH,
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const token = fields.token ?? "";
      if (fields.intent === "sign-out") {
        endSession(ctx);
        ctx.redirect(`/sign-in?return_to=${encodeURIComponent(acceptPathFor(token))}`);
        return;
      }
      const creator = await signedInCreator(ctx, deps.db);
      if (!creator) {
        // The session ended meanwhile: the page offers signing in again.
        ctx.status = 303;
        ctx.redirect(acceptPathFor(token));
        return;
      }
      const now = deps.now();
      let joined: { teamId: string };
      let invitation: InvitationSummary;
      try {
        invitation = await describeInvitation(deps.db, { secret: token, now });
        joined = await acceptInvitation(deps.db, { secret: token, userId: creator.userId, now, requestId: (ctx.state as RequestState).requestId });
      } catch (err) {
        const reason = reasonOf(err);
        if (!reason) throw err;
        refusalPage(ctx, reason, (err as Error).message, creator, token);
        return;
      }
      // The creator came to work in this team: the session acts on it, and so does their next sign-in.
      const session = sessionOf(ctx);
      session.team = joined.teamId;
      session.joined = { teamName: invitation.teamName, roleName: invitation.roleName } satisfies JoinedNote;
      const users = unscoped(deps.db, "the creator's current team (where the next sign-in starts)");
      await users("users").where({ id: creator.userId }).update({ current_team_id: joined.teamId });
      ctx.status = 303;
      ctx.redirect(JOINED_PATH);
    }),
  );

  router.register(
    JOINED_PATH,
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await signedInCreator(ctx, deps.db);
      const session = sessionOf(ctx);
      const note = session.joined as JoinedNote | undefined;
      if (!creator || !note) {
        ctx.redirect("/");
        return;
      }
      delete session.joined;
      renderPage(ctx, {
        title: `Welcome to ${note.teamName}`,
        creator,
        body: html`${notice("success", html`You joined the team <strong>${note.teamName}</strong> as ${note.roleName}.`)}
          <p>You are now working in ${note.teamName}; the team switcher at the top changes that.</p>
          <ul>
            <li><a href="/">Your account</a></li>
            <li><a href="/tokens">Tokens</a>: a token for this team, for the API or an agent.</li>
          </ul>`,
      });
    }),
  );
}
