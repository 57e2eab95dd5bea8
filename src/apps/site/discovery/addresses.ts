// The public addresses the discovery documents point at, and the paths they are served at. One
// place, so the documents on the site, the REST host and the MCP host name the same URLs.

export interface DiscoveryAddresses {
  /** {base_url}: the REST API host (operations under /v1). */
  baseUrl: string;
  /** {mcp_url}: the MCP endpoint (Streamable HTTP at the root). */
  mcpUrl: string;
  /** {auth_url}: the authorization server. */
  authUrl: string;
  /** {docs_url}: the reference site. */
  docsUrl: string;
}

export interface SiteAddresses extends DiscoveryAddresses {
  /** {site_url}: the marketing site, home of the discovery documents. */
  siteUrl: string;
}

export const API_CATALOG_PATH = "/.well-known/api-catalog";
export const AI_CATALOG_PATH = "/.well-known/ai-catalog.json";
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
export const SKILLS_INDEX_PATH = "/.well-known/agent-skills/index.json";
export const AI_PLUGIN_PATH = "/.well-known/ai-plugin.json";
export const AUTH_MD_PATH = "/auth.md";
export const AGENTS_MD_PATH = "/AGENTS.md";
export const SITEMAP_MD_PATH = "/sitemap.md";
export const LLMS_TXT_PATH = "/llms.txt";

export const skillPath = (name: string) => `/.well-known/agent-skills/${name}/SKILL.md`;

/**
 * The reference site's guides the documents link to (service-doc). The reference site serves
 * them under these paths; the error reference is its root.
 */
export const guides = (docsUrl: string) => ({
  restApi: `${docsUrl}/guides/rest-api`,
  mcp: `${docsUrl}/guides/mcp`,
  webhooks: `${docsUrl}/guides/webhooks`,
  reference: `${docsUrl}/reference`,
});

/** The marketing pages (each also at <page>.md); sitemap.md and llms.txt list them. */
export const MARKETING_PAGES: readonly { path: string; title: string; description: string }[] = [
  { path: "/", title: "Home", description: "What SubBridge does: paid memberships for creators' communities on connected platforms." },
  { path: "/pricing", title: "Pricing", description: "The account tiers Free, Starter and Growth, and what Growth gates." },
  { path: "/connectors", title: "Connectors", description: "The platforms a project can run, from the loaded connector packages." },
  { path: "/developers", title: "Developers", description: "The REST API, the MCP server, webhooks, the SDK and the discovery documents." },
];

export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";
export const JSON_TYPE = "application/json";
