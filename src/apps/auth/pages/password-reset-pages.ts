// Password reset on {auth_url}: "Forgot password?" on the sign-in page leads to a form asking for
// the address; the mailed link opens a form for the new password (a button, so a mail scanner that
// opens links changes nothing); setting it ends every session of the account and asks for a
// sign-in with the new password. Rate limited per network like sign-ups.
import type { Router } from "@koa/router";
import type Koa from "koa";
import type { Window } from "../../../pipeline/rate-limit.ts";
import type { AuthDeps } from "../deps.ts";
import { AccountError } from "../../../modules/account/creators.ts";
import { describePasswordReset, requestPasswordReset, resetPassword } from "../../../modules/account/password-resets.ts";
import { field, ipOf, spend } from "./account-pages.ts";
import { csrfField } from "./csrf.ts";
import { readPageForm } from "./forms.ts";
import { html } from "./html.ts";
import { notice, renderPage } from "./layout.ts";
import { pageRoute } from "./page-route.ts";

/** Reset requests: 10 per hour per IP (each may send a mail). */
export const PASSWORD_RESET_PER_IP: readonly Window[] = [{ name: "password-reset-ip", limit: 10, windowMs: 3_600_000 }];

export function mountPasswordResetPages(router: Router, deps: AuthDeps): void {
  const links = { resetUrl: (secret: string) => `${deps.authUrl}/password-reset/confirm?token=${encodeURIComponent(secret)}` };

  router.register(
    "/password-reset",
    ["GET"],
    pageRoute(async (ctx) => {
      renderPage(ctx, {
        title: "Reset your password",
        body: html`<p>Enter your account's address: we mail you a link to choose a new password.</p>
          <form method="post" action="/password-reset" class="stack">
            ${csrfField(ctx)} ${field({ name: "email", label: "Email", type: "email", autocomplete: "username" })}
            <button type="submit">Mail me a reset link</button>
          </form>
          <p><a href="/sign-in">Back to sign in</a></p>`,
      });
    }),
  );

  router.register(
    "/password-reset",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      await spend(deps, `password-reset-ip:${ipOf(ctx)}`, PASSWORD_RESET_PER_IP, "password reset requests from this network");
      const email = (fields.email ?? "").trim();
      await requestPasswordReset(deps.db, email, links, deps.now());
      // The same answer whether or not the address has an account.
      renderPage(ctx, {
        title: "Check your inbox",
        body: html`${notice("success", html`If <strong>${email}</strong> has a SubBridge account, we sent it a reset link.`)}
          <p>The link works for one hour.</p>`,
      });
    }),
  );

  router.register(
    "/password-reset/confirm",
    ["GET"],
    pageRoute(async (ctx) => {
      const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
      const { email } = await describePasswordReset(deps.db, token, deps.now());
      newPasswordPage(ctx, token, email);
    }),
  );

  router.register(
    "/password-reset/confirm",
    ["POST"],
    pageRoute(async (ctx) => {
      const { fields } = await readPageForm(ctx);
      const token = fields.token ?? "";
      try {
        await resetPassword(deps.db, token, fields.password ?? "", deps.now());
      } catch (err) {
        if (!(err instanceof AccountError)) throw err;
        // A password the rules refuse: the form again, the link still unused (an unusable link reads as the page error).
        const { email } = await describePasswordReset(deps.db, token, deps.now());
        return newPasswordPage(ctx, token, email, err.message);
      }
      renderPage(ctx, {
        title: "Password changed",
        body: html`${notice("success", "Your password is changed. Every browser signed in to your account was signed out.")}
          <p><a href="/sign-in">Sign in with the new password</a></p>`,
      });
    }),
  );
}

function newPasswordPage(ctx: Koa.Context, token: string, email: string, error?: string): void {
  renderPage(ctx, {
    title: "Choose a new password",
    status: error ? 422 : 200,
    body: html`<p>A new password for <strong>${email}</strong>.</p>
      <form method="post" action="/password-reset/confirm" class="stack">
        ${csrfField(ctx)}<input type="hidden" name="token" value="${token}" />
        ${field({ name: "password", label: "New password", type: "password", autocomplete: "new-password", error })}
        <button type="submit">Set the new password</button>
      </form>`,
  });
}
