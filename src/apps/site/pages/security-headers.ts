// Headers every marketing and reference page carries. The pages are static reading: no script,
// no form, styles from the one stylesheet; the API reference is the one exception (its own CSP
// in docs/reference-page.ts).
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
