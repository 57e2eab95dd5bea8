// Headers every marketing and reference page carries. The marketing pages are static reading: no
// script, no form, styles from the one stylesheet (PAGE_CSP); the reference site's pages add a script
// and the search form from their own host (DOCS_PAGE_CSP in docs/docs-app.ts), and the API reference
// has its own CSP (docs/reference-page.ts).
import type Koa from "koa";

export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function securityHeaders(ctx: Koa.Context, csp: string): void {
  ctx.set({
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
  });
}
