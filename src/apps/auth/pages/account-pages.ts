// Accounts on {auth_url}: sign-up (a person, confirmed by a mailed link), sign-in (password, then
// a second factor when the creator has one), sign-out, the team switcher, and the account home.
// Forms work without JavaScript; every POST is CSRF-checked; sign-in and sign-up are rate limited.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { consumeBudget, type Window } from "../../../pipeline/rate-limit.ts";
import { type RequestState, clientNetworkOf } from "../../../http/request.ts";
import { unscoped } from "../../../db/tenant.ts";
import { checkPassword } from "../../../modules/account/sign-in.ts";
import { alertSignIn } from "../../../modules/alerts/producers.ts";
import { confirmSignUp, describeSignUp, requestSignUp, signUpProblems } from "../../../modules/account/sign-ups.ts";
import { csrfField } from "./csrf.ts";
import { requireCreator, signedInCreator } from "./creator.ts";
import { safeReturnTo } from "../../../http/return-address.ts";
import { readPageForm } from "./forms.ts";
import { PageError } from "./page-error.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";
import { secondFactorsOf } from "./second-factor.ts";
import { jsonRefusal, PASSKEY_SCRIPTS, passkeySignIn } from "./passkey-endpoints.ts";

import { endSession, establishSession, sessionOf } from "./session.ts";
import { rememberDevice } from "./known-devices.ts";

/** Sign-in attempts: 10 per 15 minutes per address, 30 per 15 minutes per IP. */
export const SIGN_IN_PER_EMAIL: readonly Window[] = [{ name: "sign-in-email", limit: 10, windowMs: 15 * 60_000 }];
export const SIGN_IN_PER_IP: readonly Window[] = [{ name: "sign-in-ip", limit: 30, windowMs: 15 * 60_000 }];
/** Sign-ups: 10 per hour per IP. */
export const SIGN_UP_PER_IP: readonly Window[] = [{ name: "sign-up-ip", limit: 10, windowMs: 3_600_000 }];

function tooMany(retryAfter: number, what: string): PageError {
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return new PageError(429, `Too many ${what}. Wait ${minutes} minute${minutes === 1 ? "" : "s"}, then try again.`, {
    "Retry-After": String(retryAfter),
  });
}

export async function spend(deps: AuthDeps, subject: string, budget: readonly Window[], what: string): Promise<void> {
  const state = await consumeBudget(deps.kv, subject, budget, deps.now().getTime());
  if (state.retryAfter !== null) throw tooMany(state.retryAfter, what);
}

export const ipOf = clientNetworkOf;
const authOriginOf = (ctx: Koa.Context) => (ctx.state as { authOrigin: string }).authOrigin;

/** The network's sign-in budget before a JSON endpoint (its refusal is too_many_requests, 429). */
function signInBudget(deps: AuthDeps): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await spend(deps, `sign-in-ip:${ipOf(ctx)}`, SIGN_IN_PER_IP, "sign-in attempts from this network");
    } catch (err) {
      throw jsonRefusal(err);
    }
    await next();
  };
}

/** A labelled input with its error (if any) announced and linked by aria-describedby. */
export function field(input: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  autocomplete?: string;
  error?: string;
  hint?: string;
  required?: boolean;
}): Html {
  const id = `field-${input.name}`;
  const described = [input.hint ? `${id}-hint` : "", input.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return html`<p class="field">
    <label for="${id}">${input.label}</label>
    ${input.hint ? html`<span class="hint" id="${id}-hint">${input.hint}</span>` : ""}
    <input
      id="${id}"
      name="${input.name}"
      type="${input.type ?? "text"}"
      value="${input.value ?? ""}"
      ${input.autocomplete ? html`autocomplete="${input.autocomplete}"` : ""}
      ${input.required === false ? "" : html`required`}
      ${described ? html`aria-describedby="${described}"` : ""}
      ${input.error ? html`aria-invalid="true"` : ""}
    />
    ${input.error ? html`<span class="field-error" id="${id}-error">${input.error}</span>` : ""}
  </p>`;
}

function signInPage(ctx: Koa.Context, options: { returnTo: string; email?: string; error?: string; status?: number }): void {
  const signUpHref = `/sign-up?return_to=${encodeURIComponent(options.returnTo)}`;
  renderPage(ctx, {
    title: "Sign in",
    status: options.status ?? 200,
    body: html`${options.error ? notice("error", options.error) : ""}
      <form method="post" action="/sign-in" class="stack">
        ${csrfField(ctx)}<input type="hidden" name="return_to" value="${options.returnTo}" />
        ${field({ name: "email", label: "Email", type: "email", autocomplete: "username webauthn", value: options.email ?? "" })}
        ${field({ name: "password", label: "Password", type: "password", autocomplete: "current-password" })}
        <button type="submit">Sign in</button>
      </form>
      ${passkeySignIn(ctx, options.returnTo)}
      <p><a href="/password-reset">Forgot password?</a> No account yet? <a href="${signUpHref}">Open one</a>.</p>`,
    scripts: PASSKEY_SCRIPTS,
  });
}

function signUpPage(ctx: Koa.Context, options: { returnTo: string; email?: string; teamName?: string; problems?: Record<string, string> }): void {
  const problems = options.problems ?? {};
  const count = Object.keys(problems).length;
  renderPage(ctx, {
    title: "Open an account",
    status: count ? 422 : 200,
    body: html`${count ? notice("error", `Fix ${count === 1 ? "this field" : `these ${count} fields`} and send the form again.`) : ""}
      <p>A SubBridge account is for a person. We mail you a link to confirm your address; the account opens when you follow it.</p>
      <form method="post" action="/sign-up" class="stack">
        ${csrfField(ctx)}<input type="hidden" name="return_to" value="${options.returnTo}" />
        ${field({ name: "email", label: "Email", type: "email", autocomplete: "email", value: options.email ?? "", error: problems.email })}
        ${field({ name: "password", label: "Password", type: "password", autocomplete: "new-password", hint: "At least 8 characters.", error: problems.password })}
        ${field({ name: "team_name", label: "Team name (optional)", autocomplete: "organization", value: options.teamName ?? "", required: false, error: problems.team_name })}
        <button type="submit">Open my account</button>
      </form>
      <p>Already have an account? <a href="/sign-in?return_to=${encodeURIComponent(options.returnTo)}">Sign in</a>.</p>`,
  });
}

/** After the password: a second factor when the creator has one, else the session starts. */
export async function afterPassword(ctx: Koa.Context, deps: AuthDeps, userId: string, returnTo: string): Promise<void> {
  const factors = await secondFactorsOf(deps.db, userId);
  if (factors.totp || factors.passkeys) {
    const session = sessionOf(ctx);
    session.pending = { uid: userId, returnTo, at: deps.now().getTime() };
    ctx.redirect("/sign-in/two-factor");
    return;
  }
  await completeSignIn(ctx, deps, userId, returnTo);
}

/** Both factors given: a new session acts as the creator, on their current team. */
export async function completeSignIn(ctx: Koa.Context, deps: AuthDeps, userId: string, returnTo: string): Promise<void> {
  await startSignedInSession(ctx, deps, userId);
  ctx.redirect(returnTo);
}

/** The session part of completeSignIn, for the passkey endpoint (it answers JSON, not a redirect). */
export async function startSignedInSession(ctx: Koa.Context, deps: AuthDeps, userId: string): Promise<void> {
  const users = unscoped(deps.db, "the creator who just signed in");
  const user = (await users("users").where({ id: userId }).first("current_team_id")) as { current_team_id: string | null } | undefined;
  await establishSession(ctx, userId, user?.current_team_id ?? null);
  // Only a browser that never signed in to this account is worth the creator's attention.
  if (!rememberDevice(ctx, deps, userId))
    await alertSignIn(deps.db, deps.now(), userId, { ip: (ctx.state as RequestState).clientIp, userAgent: ctx.get("user-agent") || undefined });
}

export function mountAccountPages(router: Router, deps: AuthDeps): void {
  // Anyone may ask for a passkey sign-in's challenge (the route is in two-factor-pages.ts, mounted
  // after this): each costs the network's sign-in budget, as a password attempt does.
  router.use("/sign-in/passkey/options", signInBudget(deps));

  const signUpLinks = {
    confirmUrl: (secret: string) => `${deps.authUrl}/sign-up/confirm?token=${encodeURIComponent(secret)}`,
    signInUrl: `${deps.authUrl}/sign-in`,
  };

  router.register(
    "/",
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const team = creator.teams.find((t) => t.id === creator.teamId);
      renderPage(ctx, {
        title: "Your account",
        creator,
        body: html`<p>
            Signed in as <strong>${creator.email}</strong>${team ? html`, working in the team <strong>${team.name}</strong>` : ", in no team"}.
          </p>
          ${
            deps.dashboardUrl
              ? html`<p class="lead-action">
                  <a class="button" href="${deps.dashboardUrl}">Dashboard</a> Run your projects, plans, members, payments and team from one place.
                </p>`
              : ""
          }
          <ul>
            <li><a href="/tokens">Tokens</a>: personal access tokens and agent registrations.</li>
            <li><a href="/security">Security</a>: two-factor authentication and passkeys.</li>
            <li><a href="/identities">Linked accounts</a>: your Telegram account, for alerts and the bots' admin links.</li>
            <li><a href="/billing">Billing</a>: your tier (Free, Starter, Growth) and its payments.</li>
            <li><a href="/payments">Payments</a>: connect Stripe or Telegram Stars so members can pay.</li>
          </ul>`,
      });
    }),
  );

  router.register(
    "/sign-in",
    ["GET"],
    pageRoute(async (ctx) => {
      const returnTo = safeReturnTo(ctx.query.return_to as string | undefined, authOriginOf(ctx));
      if (await signedInCreator(ctx, deps.db)) {
        ctx.redirect(returnTo);
        return;
      }
      signInPage(ctx, { returnTo });
    }),
  );

  router.register(
    "/sign-in",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const returnTo = safeReturnTo(fields.return_to, authOriginOf(ctx));
      const email = (fields.email ?? "").trim();
      await spend(deps, `sign-in-ip:${ipOf(ctx)}`, SIGN_IN_PER_IP, "sign-in attempts from this network");
      await spend(deps, `sign-in-email:${email.toLowerCase()}`, SIGN_IN_PER_EMAIL, "sign-in attempts for this address");
      const userId = email && fields.password ? await checkPassword(deps.db, email, fields.password) : null;
      if (!userId) {
        signInPage(ctx, { returnTo, email, status: 401, error: "That email and password do not match an account. Check them and try again." });
        return;
      }
      await afterPassword(ctx, deps, userId, returnTo);
    }),
  );

  router.register(
    "/sign-out",
    ["POST"],
    pageRoute(async (ctx) => {
      await readPageForm(ctx);
      endSession(ctx);
      ctx.redirect("/sign-in");
    }),
  );

  router.register(
    "/sign-up",
    ["GET"],
    pageRoute(async (ctx) => {
      signUpPage(ctx, { returnTo: safeReturnTo(ctx.query.return_to as string | undefined, authOriginOf(ctx)) });
    }),
  );

  router.register(
    "/sign-up",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const returnTo = safeReturnTo(fields.return_to, authOriginOf(ctx));
      const input = { email: (fields.email ?? "").trim(), password: fields.password ?? "", teamName: fields.team_name ?? "" };
      const problems = signUpProblems(input);
      if (Object.keys(problems).length) {
        signUpPage(ctx, { returnTo, email: input.email, teamName: input.teamName, problems });
        return;
      }
      await spend(deps, `sign-up-ip:${ipOf(ctx)}`, SIGN_UP_PER_IP, "sign-ups from this network");
      await requestSignUp(deps.db, { ...input, returnTo }, signUpLinks, deps.now());
      renderPage(ctx, {
        title: "Check your inbox",
        body: html`${notice("success", html`We sent a message to <strong>${input.email}</strong>.`)}
          <p>Open the link in it to confirm your address. The link works for 24 hours.</p>`,
      });
    }),
  );

  router.register(
    "/sign-up/confirm",
    ["GET"],
    pageRoute(async (ctx) => {
      const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
      const { email } = await describeSignUp(deps.db, token, deps.now());
      // A button, not the link itself: mail scanners that open links must not open accounts.
      renderPage(ctx, {
        title: "Confirm your account",
        body: html`<p>Open the SubBridge account for <strong>${email}</strong>?</p>
          <form method="post" action="/sign-up/confirm">
            ${csrfField(ctx)}<input type="hidden" name="token" value="${token}" /> <button type="submit">Confirm and open my account</button>
          </form>`,
      });
    }),
  );

  router.register(
    "/sign-up/confirm",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await confirmSignUp(deps.db, fields.token ?? "", deps.now());
      await establishSession(ctx, creator.userId, creator.teamId);
      ctx.redirect(safeReturnTo(creator.returnTo, authOriginOf(ctx)));
    }),
  );

  router.register(
    "/teams/switch",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const team = creator.teams.find((t) => t.id === fields.team_id);
      if (!team) throw new PageError(404, "You do not belong to that team.");
      sessionOf(ctx).team = team.id;
      const users = unscoped(deps.db, "the creator's current team (where the next sign-in starts)");
      await users("users").where({ id: creator.userId }).update({ current_team_id: team.id });
      ctx.redirect(safeReturnTo(fields.return_to, authOriginOf(ctx)));
    }),
  );
}
