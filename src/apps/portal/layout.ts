// The portal's page frame: the project's name as the brand, the member's sign-in state, its own
// stylesheet, and the same strict headers as the auth pages (no inline script or style, no framing).
import type Koa from "koa";
import { html, type Html } from "../auth/pages/html.ts";
import { csrfField } from "../auth/pages/csrf.ts";

export interface PortalFrame {
  title: string;
  body: Html;
  status?: number;
  /** The project whose portal this is (absent on the not-found page). */
  project?: { name: string; handle: string };
  /** The signed-in member's name, when a member is signed in to this project. */
  member?: { name: string };
  /** Where this page's forms may lead besides this host (CSP form-action sources): the card form's answer redirects to the provider's hosted checkout, and Chromium checks that redirect too. */
  formTargets?: readonly string[];
}

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function portalPath(handle: string, rest = ""): string {
  return `/${encodeURIComponent(handle)}${rest}`;
}

function memberBar(ctx: Koa.Context, project: { handle: string }, member: { name: string }): Html {
  return html`<nav class="member" aria-label="Your membership">
    <span class="who">Signed in as ${member.name}</span>
    <a href="${portalPath(project.handle, "/account")}">Your account</a>
    <form method="post" action="${portalPath(project.handle, "/sign-out")}">
      ${csrfField(ctx)}<button type="submit" class="link">Sign out</button>
    </form>
  </nav>`;
}

export function renderPortalPage(ctx: Koa.Context, frame: PortalFrame): void {
  ctx.status = frame.status ?? 200;
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Cache-Control", "no-store");
  ctx.set(
    "Content-Security-Policy",
    frame.formTargets?.length
      ? CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${frame.formTargets.join(" ")}`)
      : CONTENT_SECURITY_POLICY,
  );
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("X-Frame-Options", "DENY");
  // Never send a portal address to another site (same-origin, not no-referrer: that would make
  // the browser send "Origin: null" on our own forms, which the CSRF check refuses).
  ctx.set("Referrer-Policy", "same-origin");
  const { project } = frame;
  const title = project ? `${frame.title} · ${project.name}` : frame.title;
  ctx.body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="stylesheet" href="/assets/portal.css" />
      </head>
      <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="top">
          ${project ? html`<a class="brand" href="${portalPath(project.handle)}">${project.name}</a>` : html`<span class="brand">Member portal</span>`}
          ${project && frame.member ? memberBar(ctx, project, frame.member) : ""}
        </header>
        <main id="main">${frame.body}</main>
        <footer class="bottom"><p>Memberships run on SubBridge.</p></footer>
      </body>
    </html>`.value;
}

/** A short message (errors use role=alert so screen readers announce them). */
export function portalNotice(kind: "error" | "info" | "success", text: string | Html): Html {
  return kind === "error" ? html`<p class="notice error" role="alert">${text}</p>` : html`<p class="notice ${kind}" role="status">${text}</p>`;
}
