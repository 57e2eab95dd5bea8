// The reference site ({docs_url}). This release serves the error reference that every error's
// docs_url points into (one anchor per code) and links to the machine-readable documents.
import Koa from "koa";
import type { Logger } from "pino";
import { ApiError } from "../errors.ts";
import { requestContext } from "../transports/http/request.ts";
import type { ClientIpResolver } from "../transports/http/client-ip.ts";
import { readGeneratedJson } from "../repository-files.ts";

interface ErrorEntry {
  code: string;
  status: number;
  title: string;
  when: string;
  remediation: string;
  docs_anchor: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
const code = (s: string) => escape(s).replace(/`([^`]+)`/g, "<code>$1</code>");

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} - SubBridge</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f2f2f2;padding:0 .25em;border-radius:3px}section{border-top:1px solid #ddd;padding:.5rem 0}
section:target{background:#fff8d6}h2{font-size:1.1rem;margin:.5rem 0}.status{color:#666;font-weight:normal}</style>
</head><body>${body}</body></html>`;
}

export function errorReferenceHtml(errors: ErrorEntry[]): string {
  const sections = errors
    .map(
      (
        e,
      ) => `<section id="${e.docs_anchor}"><h2><a href="#${e.docs_anchor}">${e.code}</a> <span class="status">${e.status} · ${escape(e.title)}</span></h2>
<p>${code(e.when)}</p><p><strong>What to do:</strong> ${code(e.remediation)}</p></section>`,
    )
    .join("\n");
  return page(
    "Error reference",
    `<h1>Error reference</h1>
<p>Every error answers <code>{error: {code, message, docs_url, remediation, request_id, fields?, context?}}</code>.
Match on <code>code</code>; the message may change. <code>request_id</code> equals the <code>X-Request-Id</code> response header.
The catalog is also available as <a href="error-codes.json">JSON</a>.</p>
${sections}`,
  );
}

export interface DocsAppDeps {
  logger: Logger;
  clientIp?: ClientIpResolver;
  docsUrl: string;
  baseUrl: string;
}

export function createDocsApp(deps: DocsAppDeps): Koa {
  const catalog = readGeneratedJson<{ errors: ErrorEntry[] }>("error-codes.json");
  const errorsHtml = errorReferenceHtml(catalog.errors);
  const index = page(
    "Reference",
    `<h1>SubBridge reference</h1><ul>
<li><a href="errors">Error reference</a></li>
<li><a href="${escape(deps.baseUrl)}/openapi.json">OpenAPI description of the REST API</a></li>
<li><a href="${escape(deps.baseUrl)}/abilities.json">Ability catalog</a></li></ul>`,
  );
  const app = new Koa();
  app.use(requestContext({ logger: deps.logger, docsUrl: deps.docsUrl, surface: "docs", ...(deps.clientIp ? { clientIp: deps.clientIp } : {}) }));
  app.use(async (ctx) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      throw new ApiError("METHOD_NOT_ALLOWED", "The reference site is read-only.", { headers: { Allow: "GET, HEAD" } });
    }
    ctx.set("Cache-Control", "public, max-age=3600");
    if (ctx.path === "/" || ctx.path === "") {
      ctx.type = "html";
      ctx.body = index;
    } else if (ctx.path === "/errors" || ctx.path === "/errors/") {
      ctx.type = "html";
      ctx.body = errorsHtml;
    } else if (ctx.path === "/errors/error-codes.json" || ctx.path === "/error-codes.json") {
      ctx.set("Access-Control-Allow-Origin", "*");
      ctx.body = catalog;
    } else {
      throw new ApiError("RESOURCE_NOT_FOUND", `No page at ${ctx.path}.`);
    }
  });
  return app;
}
