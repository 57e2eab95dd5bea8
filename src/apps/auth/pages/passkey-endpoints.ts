// The JSON endpoints the passkey script calls (WebAuthn needs the browser's API, so these are the
// one place the pages use JavaScript). Each is a POST with a JSON object body and the page's CSRF
// token in X-CSRF-Token; refusals are `{error, error_description}` with a sentence the script shows
// as it is. The challenge the browser must sign lives in the session, for one use and 5 minutes
// (before sign-in that session is a KV entry, not a row: ./session.ts).
import type Koa from "koa";
import { AccountError } from "../../../modules/account/creators.ts";
import { relyingPartyOf, type RelyingParty } from "../../../modules/account/passkeys.ts";
import { OAuthError } from "../../../modules/oauth/oauth-error.ts";
import { readJsonObject } from "../requests.ts";
import type { AuthDeps } from "../deps.ts";
import { verifyCsrf } from "./csrf.ts";
import { html, type Html } from "./html.ts";
import { csrfToken } from "./csrf.ts";
import { PageError } from "./page-error.ts";
import { sessionOf } from "./session.ts";

const CHALLENGE_LIFE_MS = 5 * 60_000;

/** The scripts of a page that offers a passkey button. */
export const PASSKEY_SCRIPTS = ["/assets/simplewebauthn-browser.js", "/assets/passkeys.js"] as const;

export type ChallengePurpose = "register" | "second-step" | "sign-in";

export function relyingParty(deps: Pick<AuthDeps, "authUrl">): RelyingParty {
  return relyingPartyOf(deps.authUrl);
}

export function keepChallenge(ctx: Koa.Context, purpose: ChallengePurpose, challenge: string, now: Date): void {
  sessionOf(ctx).webauthn = { purpose, challenge, at: now.getTime() };
}

/** The challenge kept for `purpose` (then forgotten: one answer per challenge). */
export function takeChallenge(ctx: Koa.Context, purpose: ChallengePurpose, now: Date): string {
  const session = sessionOf(ctx);
  const kept = session.webauthn as { purpose: string; challenge: string; at: number } | undefined;
  delete session.webauthn;
  if (!kept || kept.purpose !== purpose || now.getTime() - kept.at > CHALLENGE_LIFE_MS) {
    throw new OAuthError("invalid_request", "The passkey request expired. Try again.");
  }
  return kept.challenge;
}

/** A page's refusal (PageError, AccountError) as a JSON endpoint answers it; anything else as it is. */
export function jsonRefusal(err: unknown): unknown {
  if (err instanceof PageError)
    return new OAuthError(err.status === 429 ? "too_many_requests" : "invalid_request", err.message, err.status, err.headers);
  if (err instanceof AccountError) return new OAuthError("invalid_request", err.message);
  return err;
}

/** A JSON endpoint for the passkey script: CSRF-checked, answering `{error, error_description}` on refusal. */
export function passkeyEndpoint(handler: (ctx: Koa.Context, body: Record<string, unknown>) => Promise<unknown>): Koa.Middleware {
  return async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    try {
      verifyCsrf(ctx, {});
      const body = await readJsonObject(ctx);
      ctx.body = await handler(ctx, body);
    } catch (err) {
      throw jsonRefusal(err);
    }
  };
}

/**
 * The passkey button of a page: hidden until the script shows it (WebAuthn needs JavaScript),
 * with the endpoints and CSRF token it needs as data attributes and a place for its messages.
 */
export function passkeyControl(
  ctx: Koa.Context,
  options: { mode: "register" | "authenticate"; optionsUrl: string; verifyUrl: string; label: string; returnTo?: string; intro?: Html },
): Html {
  return html`<div
      class="passkey-control"
      data-passkey="${options.mode}"
      data-options-url="${options.optionsUrl}"
      data-verify-url="${options.verifyUrl}"
      data-csrf="${csrfToken(ctx)}"
      ${options.returnTo !== undefined ? html`data-return-to="${options.returnTo}"` : ""}
      hidden
    >
      ${options.intro ?? ""}
      <button type="button" class="passkey-button secondary">${options.label}</button>
      <p class="notice error passkey-error" role="alert" hidden></p>
    </div>
    <noscript><p>Passkeys need JavaScript, which is turned off in this browser.</p></noscript>`;
}

/** The sign-in page's passkey button: any passkey registered here, no address needed. */
export function passkeySignIn(ctx: Koa.Context, returnTo: string): Html {
  return passkeyControl(ctx, {
    mode: "authenticate",
    optionsUrl: "/sign-in/passkey/options",
    verifyUrl: "/sign-in/passkey",
    label: "Use a passkey",
    returnTo,
    intro: html`<p>Or sign in with a passkey: no password needed.</p>`,
  });
}
