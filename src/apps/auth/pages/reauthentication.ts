// Confirming it is you before a change to how you sign in (like GitHub's sudo mode): the security
// page asks for the password, or a current code of the authenticator app when it is on, and the
// session (its row in the database, nothing the browser sends) remembers the confirmation for
// REAUTHENTICATION_WINDOW_MS. Every request that adds, replaces or removes a second factor, or
// shows one's secret, checks it on the server and otherwise answers the confirmation form, which
// brings the creator back to the page they were on. Wrong passwords and codes count toward the
// creator's wrong-codes limit (./wrong-codes.ts), like the second step of sign-in.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { AuthDeps } from "../deps.ts";
import { checkPassword } from "../../../modules/account/sign-in.ts";
import { checkTotpCode, totpEnabled } from "../../../modules/account/totp.ts";
import { OAuthError } from "../../../modules/oauth/oauth-error.ts";
import { field } from "./account-pages.ts";
import { requireCreator, type SignedIn } from "./creator.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm, safeReturnTo } from "./forms.ts";
import { html, type Html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";
import { markReauthenticated, reauthenticationEndsAt, REAUTHENTICATION_WINDOW_MS } from "./session.ts";
import { countWrongCode, refuseWhenWrongCodesSpent } from "./wrong-codes.ts";

const CONFIRM_PATH = "/security/confirm";
const MINUTES = Math.round(REAUTHENTICATION_WINDOW_MS / 60_000);
const NEEDED = `To change how you sign in, confirm it is you first. Changes then stay open for ${MINUTES} minutes.`;

/** The confirmation forms: the password, and a code of the authenticator app when it is on. */
export function reauthenticationForms(ctx: Koa.Context, options: { returnTo: string; totp: boolean }): Html {
  const returnField = html`<input type="hidden" name="return_to" value="${options.returnTo}" />`;
  return html`<form method="post" action="${CONFIRM_PATH}" class="stack">
      ${csrfField(ctx)}${returnField} ${field({ name: "password", label: "Your password", type: "password", autocomplete: "current-password" })}
      <button type="submit">Confirm it is me</button>
    </form>
    ${
      options.totp
        ? html`<form method="post" action="${CONFIRM_PATH}" class="stack">
            ${csrfField(ctx)}${returnField}
            ${field({ name: "code", label: "Or a code from your authenticator app", autocomplete: "one-time-code", hint: "The 6-digit code the app shows now." })}
            <button type="submit" class="secondary">Confirm with the code</button>
          </form>`
        : ""
    }`;
}

async function confirmationPage(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, options: { returnTo: string; status: number; error?: string }) {
  renderPage(ctx, {
    title: "Confirm it is you",
    creator,
    status: options.status,
    body: html`${notice(options.error ? "error" : "info", options.error ?? NEEDED)}
      ${reauthenticationForms(ctx, { returnTo: options.returnTo, totp: await totpEnabled(deps.db, creator.userId) })}
      <p><a href="/security">Back to security</a></p>`,
  });
}

/** When this session's confirmation stops counting, or null when the creator must confirm again. */
export function reauthenticatedUntil(ctx: Koa.Context, deps: Pick<AuthDeps, "now">, creator: SignedIn): Date | null {
  return reauthenticationEndsAt(ctx, creator.userId, deps.now());
}

/**
 * For a page or form that changes (or shows) a second factor: true when the creator confirmed it is
 * them recently; otherwise the response becomes the confirmation form (403), coming back to
 * `returnTo`, and false is returned.
 */
export async function reauthenticated(ctx: Koa.Context, deps: AuthDeps, creator: SignedIn, returnTo: string): Promise<boolean> {
  if (reauthenticatedUntil(ctx, deps, creator)) return true;
  await confirmationPage(ctx, deps, creator, { returnTo, status: 403 });
  return false;
}

/** For the passkey script's JSON endpoints: refuses (403 reauthentication_required) without a recent confirmation. */
export function refuseUnlessReauthenticated(ctx: Koa.Context, deps: Pick<AuthDeps, "now">, creator: SignedIn): void {
  if (!reauthenticatedUntil(ctx, deps, creator))
    throw new OAuthError("reauthentication_required", `${NEEDED} Reload the security page to confirm.`, 403);
}

export function mountReauthentication(router: Router, deps: AuthDeps): void {
  const returnToOf = (ctx: Koa.Context, value: unknown) =>
    safeReturnTo(typeof value === "string" ? value : "/security", (ctx.state as { authOrigin: string }).authOrigin);

  router.register(
    CONFIRM_PATH,
    ["GET"],
    pageRoute(async (ctx) => {
      const creator = await requireCreator(ctx, deps.db);
      if (creator) await confirmationPage(ctx, deps, creator, { returnTo: returnToOf(ctx, ctx.query.return_to), status: 200 });
    }),
  );

  router.register(
    CONFIRM_PATH,
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const creator = await requireCreator(ctx, deps.db);
      if (!creator) return;
      const returnTo = returnToOf(ctx, fields.return_to);
      const password = fields.password ?? "";
      const code = (fields.code ?? "").trim();
      if (!password && !code)
        return confirmationPage(ctx, deps, creator, { returnTo, status: 422, error: "Type your password (or a code from your app)." });
      await refuseWhenWrongCodesSpent(deps, creator.userId);
      const now = deps.now();
      const right = password
        ? (await checkPassword(deps.db, creator.email, password)) === creator.userId
        : await checkTotpCode(deps.db, deps.appKey, creator.userId, code, now);
      if (!right) {
        await countWrongCode(deps, creator.userId);
        const error = password ? "That password is not right." : "That code does not match the authenticator app (or was already used).";
        return confirmationPage(ctx, deps, creator, { returnTo, status: 401, error });
      }
      markReauthenticated(ctx, creator.userId, now);
      ctx.redirect(returnTo);
    }),
  );
}
