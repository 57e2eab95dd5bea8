// The frame of every page on {auth_url}: one stylesheet from this host, no script unless a page
// names one (WebAuthn), the signed-in creator's navigation and team switcher, and a main landmark.
import type Koa from "koa";
import { html, type Html } from "./html.ts";
import { csrfField } from "./csrf.ts";
import type { SignedIn } from "./creator.ts";

export interface PageOptions {
  title: string;
  body: Html;
  /** The creator when signed in (navigation and team switcher). */
  creator?: SignedIn | null;
  /** Scripts served by this host (paths under /assets). */
  scripts?: readonly string[];
  status?: number;
  /**
   * Where this page's forms may lead besides this host (CSP form-action sources): the consent
   * page's answer redirects to the app's redirect URI, and Chromium checks that redirect too.
   */
  formTargets?: readonly string[];
}

function navigation(ctx: Koa.Context, creator: SignedIn): Html {
  const here = ctx.path + (ctx.querystring ? `?${ctx.querystring}` : "");
  const dashboard = (ctx.state as { dashboardUrl?: string }).dashboardUrl;
  return html`<nav aria-label="Account">
    <ul class="nav">
      ${dashboard ? html`<li><a href="${dashboard}">Dashboard</a></li>` : ""}
      <li><a href="/tokens">Tokens</a></li>
      <li><a href="/security">Security</a></li>
      <li><a href="/identities">Linked accounts</a></li>
      <li><a href="/payments">Payments</a></li>
      <li><a href="/billing">Billing</a></li>
    </ul>
    <form method="post" action="/teams/switch" class="team-switcher">
      ${csrfField(ctx)}<input type="hidden" name="return_to" value="${here}" />
      <label for="team-switcher">Team</label>
      <select id="team-switcher" name="team_id">
        ${creator.teams.map((t) => html`<option value="${t.id}" ${t.id === creator.teamId ? html`selected` : ""}>${t.name}</option>`)}
      </select>
      <button type="submit">Switch</button>
    </form>
    <form method="post" action="/sign-out" class="sign-out">
      ${csrfField(ctx)}<span class="who">${creator.email}</span> <button type="submit">Sign out</button>
    </form>
  </nav>`;
}

/** Renders a page as the response. */
export function renderPage(ctx: Koa.Context, options: PageOptions): void {
  ctx.status = options.status ?? 200;
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Cache-Control", "no-store");
  // Scripts and styles from this host only; forms sent to this host only (and the consent form's
  // redirect to the app); no framing; no referrer to other sites (links may carry secrets;
  // same-origin keeps the Origin header on our own form posts).
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(" ");
  ctx.set(
    "Content-Security-Policy",
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'`,
  );
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("X-Frame-Options", "DENY");
  ctx.set("Referrer-Policy", "same-origin");
  ctx.body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · SubBridge</title>
        <link rel="stylesheet" href="/assets/auth.css" />
        ${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <header class="top"><a class="brand" href="/">SubBridge</a>${options.creator ? navigation(ctx, options.creator) : ""}</header>
        <main id="main">
          <h1>${options.title}</h1>
          ${options.body}
        </main>
      </body>
    </html>`.value;
}

/** A short message in a page (errors use role=alert so screen readers announce them). */
export function notice(kind: "error" | "info" | "success", text: string | Html): Html {
  return kind === "error" ? html`<p class="notice error" role="alert">${text}</p>` : html`<p class="notice ${kind}" role="status">${text}</p>`;
}
