// Where each discovery document is mounted: most on {site_url}; the API catalog, auth.md and the
// plugin manifest on {base_url}; auth.md on {mcp_url}. Every document is built once, at start,
// from the addresses and the generated catalogs. GET routes answer HEAD too (the router adds it).
import type { Router } from "@koa/router";
import type { DiscoveryDeps } from "../../../http/discovery-document.ts";
import { SERVER_CARD_PATH, serverCard } from "../../mcp/server-card.ts";
import { resourceCatalog } from "../../mcp/resources/catalog.ts";
import {
  AGENT_CARD_PATH,
  AGENTS_MD_PATH,
  AI_CATALOG_PATH,
  AI_PLUGIN_PATH,
  API_CATALOG_PATH,
  AUTH_MD_PATH,
  LLMS_TXT_PATH,
  MARKDOWN_TYPE,
  SITEMAP_MD_PATH,
  SKILLS_INDEX_PATH,
  type DiscoveryAddresses,
  type SiteAddresses,
} from "./addresses.ts";
import { agentCard } from "./agent-card.ts";
import { agentSkillsDocuments } from "./agent-skills.ts";
import { agentsMarkdown } from "./agents-md.ts";
import { aiCatalog } from "./ai-catalog.ts";
import { aiPluginManifest } from "./ai-plugin.ts";
import { apiCatalogRoute } from "./api-catalog.ts";
import { authMarkdown } from "./auth-md.ts";
import { llmsText, sitemapMarkdown } from "./site-index.ts";
import { servedDocument, servedJson } from "./served-document.ts";

export interface SiteDiscoveryDeps extends DiscoveryDeps, SiteAddresses {
  /** The deployed release: the agent card and the server card report it, as the MCP handshake does. */
  release: string;
}

export function mountSiteDiscovery(router: Router, deps: SiteDiscoveryDeps): void {
  const get = (path: string, middleware: Parameters<Router["register"]>[2]) => router.register(path, ["GET"], middleware);
  get(API_CATALOG_PATH, apiCatalogRoute(deps, deps, deps.siteUrl));
  get(AI_CATALOG_PATH, servedJson(deps, aiCatalog(deps)));
  get(AGENT_CARD_PATH, servedJson(deps, agentCard(deps, deps.release)));
  // The MCP host's card, the same document: its resource count is the MCP server's.
  get(SERVER_CARD_PATH, servedJson(deps, serverCard({ ...deps, resourceCount: resourceCatalog(deps).length })));
  const skills = agentSkillsDocuments(deps);
  get(SKILLS_INDEX_PATH, servedJson(deps, skills.index));
  for (const file of skills.files) get(file.path, servedDocument(deps, file.bytes, MARKDOWN_TYPE));
  get(AUTH_MD_PATH, servedDocument(deps, authMarkdown(deps), MARKDOWN_TYPE));
  get(AGENTS_MD_PATH, servedDocument(deps, agentsMarkdown(deps), MARKDOWN_TYPE));
  get(SITEMAP_MD_PATH, servedDocument(deps, sitemapMarkdown(deps), MARKDOWN_TYPE));
  get(LLMS_TXT_PATH, servedDocument(deps, llmsText(deps), "text/plain; charset=utf-8"));
}

/** {base_url}: the API catalog (its Link names this host's copy), auth.md and the plugin manifest. */
export function mountApiDiscovery(router: Router, deps: DiscoveryDeps & DiscoveryAddresses): void {
  router.register(API_CATALOG_PATH, ["GET"], apiCatalogRoute(deps, deps, deps.baseUrl));
  router.register(AUTH_MD_PATH, ["GET"], servedDocument(deps, authMarkdown(deps), MARKDOWN_TYPE));
  router.register(AI_PLUGIN_PATH, ["GET"], servedJson(deps, aiPluginManifest(deps)));
}

/** {mcp_url}: auth.md (the server card and the protected-resource metadata are the MCP app's own). */
export function mountMcpDiscovery(router: Router, deps: DiscoveryDeps & DiscoveryAddresses): void {
  router.register(AUTH_MD_PATH, ["GET"], servedDocument(deps, authMarkdown(deps), MARKDOWN_TYPE));
}
