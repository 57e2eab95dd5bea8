// CSRF protection for every form on {auth_url} (csrf, the token logic of pillarjs): each browser
// holds a secret in an HttpOnly SameSite cookie, every form carries a token made from it, and a
// POST without a token that verifies against the secret is refused. A POST whose Origin header
// names another site is refused too (defence in depth; SameSite=Lax already keeps the cookies
// off cross-site POSTs). The secret cookie is separate from the session so that pages shown
// before sign-in write nothing to the database.
import Tokens from "csrf";
import type Koa from "koa";
import { html, type Html } from "./html.ts";
import { PageError } from "./page-error.ts";
import { cookieName, cookieOptions } from "./cookies.ts";

const tokens = new Tokens();
const SECRET_COOKIE = "sb_csrf";

interface CsrfState {
  csrfSecret?: string;
}

function secretOf(ctx: Koa.Context): string {
  const state = ctx.state as CsrfState;
  if (state.csrfSecret) return state.csrfSecret;
  const name = cookieName(ctx, SECRET_COOKIE);
  let secret = ctx.cookies.get(name);
  if (!secret || secret.length < 18) {
    secret = tokens.secretSync();
    ctx.cookies.set(name, secret, { ...cookieOptions(ctx), maxAge: 365 * 24 * 3600_000 });
  }
  state.csrfSecret = secret;
  return secret;
}

/** A token for the forms of the page being rendered. */
export function csrfToken(ctx: Koa.Context): string {
  return tokens.create(secretOf(ctx));
}

/** The hidden field every form carries. */
export function csrfField(ctx: Koa.Context): Html {
  return html`<input type="hidden" name="_csrf" value="${csrfToken(ctx)}" />`;
}

/** Refuses a state-changing request whose token (form field _csrf or header X-CSRF-Token) does not verify. */
export function verifyCsrf(ctx: Koa.Context, fields: Record<string, string>): void {
  const origin = ctx.get("origin");
  const authOrigin = (ctx.state as { authOrigin?: string }).authOrigin;
  if (origin && authOrigin && origin !== authOrigin) throw new PageError(403, "This form was sent from another site and was refused.");
  const token = fields._csrf ?? ctx.get("x-csrf-token");
  const secret = ctx.cookies.get(cookieName(ctx, SECRET_COOKIE));
  if (!secret || !token || !tokens.verify(secret, token)) {
    throw new PageError(403, "This form has expired or was not sent from this site. Reload the page and try again.");
  }
}
