// The second step of sign-in (/sign-in/two-factor), after afterPassword left session.pending: a code
// from the authenticator app, a recovery code, or one of the creator's passkeys. Wrong codes are
// limited (5 per pending sign-in, then it ends; 5 per creator per 15 minutes), and a pending
// sign-in lasts 10 minutes. Also passkey sign-in straight from the sign-in page (/sign-in/passkey):
// a discoverable passkey with user verification is both factors at once.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { consumeBudget } from "../../../pipeline/rate-limit.ts";
import { clientNetworkOf } from "../../../http/request.ts";
import { passkeyAuthenticationOptions, verifyPasskey } from "../../../modules/account/passkeys.ts";
import { unusedRecoveryCodeCount, useRecoveryCode } from "../../../modules/account/recovery-codes.ts";
import { checkTotpCode } from "../../../modules/account/totp.ts";
import { OAuthError } from "../../../modules/oauth/oauth-error.ts";
import { completeSignIn, field, SIGN_IN_PER_IP, startSignedInSession } from "./account-pages.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm, safeReturnTo } from "./forms.ts";
import { html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";
import { keepChallenge, PASSKEY_SCRIPTS, passkeyControl, passkeyEndpoint, relyingParty, takeChallenge } from "./passkey-endpoints.ts";
import { secondFactorsOf } from "./second-factor.ts";
import { sessionOf, type SessionData } from "./session.ts";
import { countWrongCode, refuseWhenWrongCodesSpent } from "./wrong-codes.ts";

/** A password checked at `at` waits this long for its second factor. */
export const PENDING_SIGN_IN_MS = 10 * 60_000;
/** Wrong codes per pending sign-in (the creator's own limit is in ./wrong-codes.ts). */
export const WRONG_CODES_PER_SIGN_IN = 5;

type Pending = NonNullable<SessionData["pending"]>;

const authOriginOf = (ctx: Koa.Context) => (ctx.state as { authOrigin: string }).authOrigin;

function forgetPending(ctx: Koa.Context): void {
  const session = sessionOf(ctx);
  delete session.pending;
  delete session.pendingFailures;
}

/** Wrong codes typed for this pending sign-in (a count left by an earlier one does not carry over). */
function wrongCodesOf(ctx: Koa.Context, pending: Pending): number {
  const kept = sessionOf(ctx).pendingFailures as { at: number; count: number } | undefined;
  return kept && kept.at === pending.at ? kept.count : 0;
}

/** The pending sign-in, or null when there is none or its 10 minutes are over (then it is dropped). */
function pendingSignIn(ctx: Koa.Context, now: Date): Pending | null {
  const pending = sessionOf(ctx).pending;
  if (!pending || typeof pending.uid !== "string") return null;
  if (now.getTime() - pending.at > PENDING_SIGN_IN_MS) {
    forgetPending(ctx);
    return null;
  }
  return pending;
}

function startOverPage(ctx: Koa.Context, message: string, status: number, returnTo = "/"): void {
  renderPage(ctx, {
    title: "Sign in again",
    status,
    body: html`${notice("error", message)}
      <p><a href="/sign-in?return_to=${encodeURIComponent(returnTo)}">Sign in again</a></p>`,
  });
}

async function twoFactorPage(ctx: Koa.Context, deps: AuthDeps, pending: Pending, error?: string): Promise<void> {
  const [factors, recoveryCodes] = await Promise.all([secondFactorsOf(deps.db, pending.uid), unusedRecoveryCodeCount(deps.db, pending.uid)]);
  const codes = factors.totp || recoveryCodes > 0;
  const hint = factors.totp ? "The 6-digit code your authenticator app shows now, or one of your recovery codes." : "One of your recovery codes.";
  renderPage(ctx, {
    title: "Two-factor authentication",
    status: error ? 401 : 200,
    scripts: factors.passkeys ? PASSKEY_SCRIPTS : [],
    body: html`${error ? notice("error", error) : ""}
      <p>Your password is right. Confirm it is you with your second factor.</p>
      ${
        codes
          ? html`<form method="post" action="/sign-in/two-factor" class="stack">
              ${csrfField(ctx)}
              ${field({ name: "code", label: factors.totp ? "Authentication code" : "Recovery code", autocomplete: "one-time-code", hint, ...(error ? { error } : {}) })}
              <button type="submit">Verify</button>
            </form>`
          : ""
      }
      ${
        factors.passkeys
          ? passkeyControl(ctx, {
              mode: "authenticate",
              optionsUrl: "/sign-in/two-factor/passkey/options",
              verifyUrl: "/sign-in/two-factor/passkey",
              label: "Use your passkey",
              intro: codes ? html`<p>Or use one of your passkeys.</p>` : html``,
            })
          : ""
      }
      <p><a href="/sign-in?return_to=${encodeURIComponent(pending.returnTo)}">Start over</a></p>`,
  });
}

export function mountTwoFactorPages(router: Router, deps: AuthDeps): void {
  const rp = relyingParty(deps);
  const expired = "Your sign-in has expired (the second step waits 10 minutes). Sign in again.";

  router.register(
    "/sign-in/two-factor",
    ["GET"],
    pageRoute(async (ctx) => {
      const pending = pendingSignIn(ctx, deps.now());
      if (!pending) return startOverPage(ctx, expired, 400);
      await twoFactorPage(ctx, deps, pending);
    }),
  );

  router.register(
    "/sign-in/two-factor",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const now = deps.now();
      const pending = pendingSignIn(ctx, now);
      if (!pending) return startOverPage(ctx, expired, 400);
      await refuseWhenWrongCodesSpent(deps, pending.uid);
      const code = (fields.code ?? "").trim();
      const right = /^\d{3}\s?\d{3}$/.test(code)
        ? await checkTotpCode(deps.db, deps.appKey, pending.uid, code, now)
        : await useRecoveryCode(deps.db, pending.uid, code, now);
      if (right) {
        await completeSignIn(ctx, deps, pending.uid, pending.returnTo);
        return;
      }
      await countWrongCode(deps, pending.uid);
      const failures = wrongCodesOf(ctx, pending) + 1;
      if (failures >= WRONG_CODES_PER_SIGN_IN) {
        forgetPending(ctx);
        return startOverPage(ctx, "Too many wrong codes for this sign-in. Sign in again with your password.", 429, pending.returnTo);
      }
      sessionOf(ctx).pendingFailures = { at: pending.at, count: failures };
      const left = WRONG_CODES_PER_SIGN_IN - failures;
      await twoFactorPage(ctx, deps, pending, `That code is not right, or it was already used. ${left} attempt${left === 1 ? "" : "s"} left.`);
    }),
  );

  // The second step with a passkey: only the pending creator's passkeys count.
  router.register(
    "/sign-in/two-factor/passkey/options",
    ["POST"],
    passkeyEndpoint(async (ctx) => {
      const pending = pendingSignIn(ctx, deps.now());
      if (!pending) throw new OAuthError("invalid_request", expired);
      const options = await passkeyAuthenticationOptions(deps.db, rp, pending.uid);
      keepChallenge(ctx, "second-step", options.challenge, deps.now());
      return options;
    }),
  );

  router.register(
    "/sign-in/two-factor/passkey",
    ["POST"],
    passkeyEndpoint(async (ctx, body) => {
      const now = deps.now();
      const pending = pendingSignIn(ctx, now);
      if (!pending) throw new OAuthError("invalid_request", expired);
      const challenge = takeChallenge(ctx, "second-step", now);
      const userId = await verifyPasskey(deps.db, rp, { response: body.response, challenge, userId: pending.uid, now });
      if (!userId) throw new OAuthError("access_denied", "That passkey is not one of this account's, or it could not be verified.", 403);
      await startSignedInSession(ctx, deps, userId);
      return { redirect: pending.returnTo };
    }),
  );

  // Passkey sign-in from the sign-in page: the browser offers the passkeys it holds for this site.
  router.register(
    "/sign-in/passkey/options",
    ["POST"],
    passkeyEndpoint(async (ctx) => {
      const options = await passkeyAuthenticationOptions(deps.db, rp, null);
      keepChallenge(ctx, "sign-in", options.challenge, deps.now());
      return options;
    }),
  );

  router.register(
    "/sign-in/passkey",
    ["POST"],
    passkeyEndpoint(async (ctx, body) => {
      const now = deps.now();
      const ip = clientNetworkOf(ctx);
      const state = await consumeBudget(deps.kv, `sign-in-ip:${ip}`, SIGN_IN_PER_IP, now.getTime());
      if (state.retryAfter !== null) {
        throw new OAuthError("too_many_requests", "Too many sign-in attempts from this network. Wait a few minutes, then try again.", 429, {
          "Retry-After": String(state.retryAfter),
        });
      }
      const challenge = takeChallenge(ctx, "sign-in", now);
      const userId = await verifyPasskey(deps.db, rp, { response: body.response, challenge, userId: null, now });
      if (!userId) throw new OAuthError("access_denied", "This passkey is not registered with SubBridge, or it could not be verified.", 403);
      await startSignedInSession(ctx, deps, userId);
      return { redirect: safeReturnTo(typeof body.return_to === "string" ? body.return_to : "/", authOriginOf(ctx)) };
    }),
  );
}
