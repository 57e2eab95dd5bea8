// The reference site ({docs_url}): the API reference (Scalar, from the OpenAPI document served
// here too), the guides, the webhook event catalog and the error reference every error's docs_url
// points into. Every page but the API reference is written in Markdown and has its twin at
// <page>.md; a search box on every page finds their sections. Read-only: other methods answer 405.
import Koa from "koa";
import { Router } from "@koa/router";
import type { Logger } from "pino";
import { requestContext } from "../../http/request.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import { routeFallback } from "../../http/route-fallback.ts";
import { answerDocument, compression, staticDocument } from "../../http/compression.ts";
import { servedOpenApi } from "../api/public-documents.ts";
import { readGeneratedJson } from "../../repository-files.ts";
import { mountMarkdownPages } from "../site/pages/markdown-routes.ts";
import { COPY_CODE_SCRIPT, mountSiteAssets, SITE_STYLESHEET } from "../site/pages/assets.ts";
import type { Shell } from "../site/pages/layout.ts";
import type { DocsAddresses } from "./pages/addresses.ts";
import { docsIndexPage } from "./pages/index-page.ts";
import { guidePages } from "./pages/guides.ts";
import { eventCatalogPage } from "./pages/event-catalog.ts";
import { errorReferencePage, type ErrorEntry } from "./pages/error-reference.ts";
import { referencePage, SCALAR_BUNDLE } from "./pages/reference-page.ts";
import { searchPages, SEARCH_PATH } from "./pages/search-page.ts";
import { DocsSearch, QUERY_MAX_LENGTH } from "./search-index.ts";

export interface DocsAppDeps extends DocsAddresses {
  logger: Logger;
  clientIp?: ClientIpResolver;
}

export function docsShell(a: DocsAddresses): Shell {
  return {
    siteName: "SubBridge reference",
    home: "/",
    nav: [
      { href: "/reference", label: "API reference" },
      { href: "/guides/rest-api", label: "REST API" },
      { href: "/guides/mcp", label: "MCP server" },
      { href: "/guides/webhooks", label: "Webhooks" },
      { href: "/webhooks/events", label: "Events" },
      { href: "/errors", label: "Errors" },
    ],
    footer: [
      { href: `${a.siteUrl}/`, label: "SubBridge" },
      { href: `${a.siteUrl}/developers`, label: "Developers" },
      { href: "/openapi.json", label: "OpenAPI document" },
    ],
    search: { action: SEARCH_PATH, label: "Search the reference", maxLength: QUERY_MAX_LENGTH },
  };
}

/**
 * The Markdown pages' policy: the marketing pages' one plus scripts from this host (the copy
 * buttons) and forms sent to this host (the search box).
 */
export const DOCS_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function jsonDocument(text: string): Koa.Middleware {
  const doc = staticDocument(text);
  return async (ctx) => {
    ctx.set("Access-Control-Allow-Origin", "*");
    answerDocument(ctx, doc, "public, max-age=3600");
  };
}

export function createDocsApp(deps: DocsAppDeps): Koa {
  const shell = docsShell(deps);
  const catalog = readGeneratedJson<{ errors: ErrorEntry[] }>("error-codes.json");
  const router = new Router();
  const pages = [docsIndexPage(deps), ...guidePages(deps), eventCatalogPage(), errorReferencePage(catalog.errors)];
  // GET routes answer HEAD too (the router adds it).
  mountMarkdownPages(router, pages, { shell, csp: DOCS_PAGE_CSP, scripts: [COPY_CODE_SCRIPT.path] });
  const search = searchPages(shell, new DocsSearch(pages), DOCS_PAGE_CSP);
  router.register(SEARCH_PATH, ["GET"], search.page);
  router.register(`${SEARCH_PATH}.md`, ["GET"], search.twin);
  const catalogText = JSON.stringify(catalog);
  router.register("/errors/error-codes.json", ["GET"], jsonDocument(catalogText));
  router.register("/error-codes.json", ["GET"], jsonDocument(catalogText));
  // The same document as {base_url}/openapi.json (its server is the API), served here so the
  // reference page reads it from its own origin.
  router.register("/openapi.json", ["GET"], jsonDocument(JSON.stringify(servedOpenApi(deps.baseUrl))));
  router.register("/reference", ["GET"], referencePage(shell, deps.baseUrl));
  mountSiteAssets(router, {
    ...SITE_STYLESHEET,
    [COPY_CODE_SCRIPT.path.slice("/assets/".length)]: COPY_CODE_SCRIPT.asset,
    [SCALAR_BUNDLE.path.slice("/assets/".length)]: SCALAR_BUNDLE.asset,
  });

  const app = new Koa();
  app.use(
    requestContext({
      logger: deps.logger,
      docsUrl: deps.docsUrl,
      surface: "docs",
      publicUrl: deps.docsUrl,
      ...(deps.clientIp ? { clientIp: deps.clientIp } : {}),
    }),
  );
  app.use(compression());
  app.use(router.routes());
  app.use(routeFallback(router, `The reference site's pages are listed at ${deps.docsUrl}/.`));
  return app;
}
