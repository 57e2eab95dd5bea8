// The API reference ({docs_url}/reference): Scalar's standalone bundle, served from node_modules by
// this host, renders the OpenAPI document this host also serves (same origin, so fetching it needs
// no CORS). Configured by data attributes on the mount element, never by an inline script.
//
// Its CSP differs from the other pages in one way: style-src allows 'unsafe-inline', because Scalar
// (a Vue application) injects its stylesheet as a <style> element and sets style attributes as it
// renders; without it the reference is unstyled. Scripts stay 'self' only (no 'unsafe-eval': the
// bundle needs none), and connect-src names the API so "Test request" can reach it.
import { readFileSync } from "node:fs";
import type Koa from "koa";
import { html } from "../../auth/pages/html.ts";
import { renderShell, type Shell } from "../../site/pages/layout.ts";
import { securityHeaders } from "../../site/pages/security-headers.ts";
import { readRepositoryText, repositoryFile } from "../../../repository-files.ts";
import { contentHash } from "../../../http/compression.ts";

const SCALAR_FILE = "node_modules/@scalar/api-reference/dist/browser/standalone.js";

/**
 * Scalar's bundle at an address carrying its content's hash, so browsers keep it for a year and
 * fetch it again only when an upgrade changes it (read once here for the hash, then streamed).
 */
export const SCALAR_BUNDLE = {
  path: `/assets/scalar-api-reference.${contentHash(readFileSync(repositoryFile(SCALAR_FILE)))}.js`,
  asset: { file: SCALAR_FILE, type: "text/javascript; charset=utf-8", immutable: true },
};

/**
 * What Scalar is told: no fonts or telemetry from elsewhere, and none of its features that call
 * Scalar's hosted services (the "Ask AI" agent, MCP generation, the developer-tools toolbar with
 * Share and Deploy; Scalar turns them on by itself when the page is on localhost). Its colours are
 * made readable in both of its modes by customCss (reference-theme.css).
 */
export const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  customCss: readRepositoryText("src/apps/docs/pages/reference-theme.css"),
  // A collapsed group's "Show More" button is named "Show all <group> endpoints"; its name must hold its visible words (WCAG 2.5.3).
  localization: { translations: { navigation: { showAllEndpoints: "Show more {name} endpoints" } } },
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  showOperationId: true,
  hideClientButton: false,
  defaultOpenAllTags: false,
};

export function referenceCsp(baseUrl: string): string {
  const api = new URL(baseUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${api}`,
    "base-uri 'none'",
    // The header's search box.
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function referencePage(shell: Shell, baseUrl: string): Koa.Middleware {
  const body = renderShell(shell, {
    title: "API reference",
    description: "Every operation and webhook of the SubBridge REST API.",
    path: "/reference",
    wide: true,
    main: html`<h1 class="visually-hidden">API reference</h1>
      <div id="api-reference" data-url="/openapi.json" data-configuration="${JSON.stringify(SCALAR_CONFIGURATION)}"></div>
      <noscript
        ><div class="api-reference-fallback">
          <p>
            The interactive reference needs JavaScript. Read the <a href="/openapi.json">OpenAPI document</a> directly, or the
            <a href="/guides/rest-api">REST API guide</a> and the <a href="/errors">error reference</a>.
          </p>
        </div></noscript
      >`,
    scripts: [SCALAR_BUNDLE.path],
  });
  const csp = referenceCsp(baseUrl);
  return async (ctx) => {
    securityHeaders(ctx, csp);
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.type = "html";
    ctx.body = body;
  };
}
