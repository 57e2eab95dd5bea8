// {site_url}/sitemap.md (every page and document of the site, in Markdown) and {site_url}/llms.txt
// (the llms.txt index: title, summary, sections of links with notes).
import {
  AGENT_CARD_PATH,
  AGENTS_MD_PATH,
  AI_CATALOG_PATH,
  API_CATALOG_PATH,
  AUTH_MD_PATH,
  guides,
  LLMS_TXT_PATH,
  MARKETING_PAGES,
  SITEMAP_MD_PATH,
  skillPath,
  SKILLS_INDEX_PATH,
  type SiteAddresses,
} from "./addresses.ts";
import { discoveryCatalogs } from "./catalogs.ts";
import { SIGNATURE_DIRECTORY_PATH } from "../signature-directory.ts";

const SKILL_NAMES = ["rest-api", "mcp", "webhooks"];

function siteDocuments(urls: SiteAddresses) {
  const s = urls.siteUrl;
  return [
    { url: `${s}${AGENTS_MD_PATH}`, title: "AGENTS.md", note: "briefing for agents: surfaces, credentials, rules" },
    { url: `${s}${AUTH_MD_PATH}`, title: "auth.md", note: "agent credential walkthrough: registration, OAuth 2.1, personal access tokens" },
    { url: `${s}${API_CATALOG_PATH}`, title: "API catalog", note: "RFC 9727 linkset of the REST API and the MCP server" },
    { url: `${s}${AI_CATALOG_PATH}`, title: "AI catalog", note: "every discovery document with its media type and sample queries" },
    { url: `${s}${AGENT_CARD_PATH}`, title: "A2A agent card", note: "the MCP interface, security schemes and ability groups" },
    { url: `${s}/.well-known/mcp/server-card.json`, title: "MCP server card", note: "transport, authentication and capability counts" },
    { url: `${s}${SKILLS_INDEX_PATH}`, title: "Agent skills index", note: "rest-api, mcp and webhooks skills with digests" },
    { url: `${s}${SIGNATURE_DIRECTORY_PATH}`, title: "Webhook signing keys", note: "Ed25519 keys that sign every delivery (JWKS)" },
  ];
}

export function sitemapMarkdown(urls: SiteAddresses): string {
  const s = urls.siteUrl;
  const docs = guides(urls.docsUrl);
  const pages = MARKETING_PAGES.map(
    (p) => `- [${p.title}](${s}${p.path}) ([Markdown](${s}${p.path === "/" ? "/index" : p.path}.md)): ${p.description}`,
  );
  return `# SubBridge sitemap

## Pages
${pages.join("\n")}

## Discovery documents
${siteDocuments(urls)
  .map((d) => `- [${d.title}](${d.url}): ${d.note}`)
  .join("\n")}
${SKILL_NAMES.map((n) => `- [${n} skill](${s}${skillPath(n)})`).join("\n")}
- [Sitemap](${s}${SITEMAP_MD_PATH}) and [llms.txt](${s}${LLMS_TXT_PATH})

## Reference site
- [API reference](${docs.reference})
- [REST API guide](${docs.restApi})
- [MCP server guide](${docs.mcp})
- [Webhooks guide](${docs.webhooks})
- [Error reference](${urls.docsUrl}/)

## API
- [OpenAPI 3.1](${urls.baseUrl}/openapi.json)
- [Ability catalog](${urls.baseUrl}/abilities.json)
- [MCP tool catalog](${urls.baseUrl}/mcp-tools.json)
- [Plugin manifest](${urls.baseUrl}/.well-known/ai-plugin.json)
`;
}

export function llmsText(urls: SiteAddresses): string {
  const s = urls.siteUrl;
  const c = discoveryCatalogs();
  const docs = guides(urls.docsUrl);
  return `# SubBridge

> Paid memberships for creators' communities on connected platforms: a REST API (${c.operationCount} operations under ${urls.baseUrl}/v1), an MCP server (${c.toolCount} tools at ${urls.mcpUrl}), OAuth 2.1 and agent registration for credentials, and signed outbound webhooks.

A creator owns or belongs to a team; a team holds projects; a project sells plans to members and
grants resources through connectors. Every credential acts as one creator on one team.

## Docs
- [AGENTS.md](${s}${AGENTS_MD_PATH}): briefing for agents
- [auth.md](${s}${AUTH_MD_PATH}): how an agent gets a credential
- [REST API guide](${docs.restApi}): authentication, idempotency, errors, pagination, rate limits, versioning
- [MCP server guide](${docs.mcp}): client setup, toolsets, read-only mode, OAuth
- [Webhooks guide](${docs.webhooks}): signatures, retries, de-duplication
- [API reference](${docs.reference}): every operation

## API
- [OpenAPI 3.1](${urls.baseUrl}/openapi.json): every /v1 operation and webhook event
- [Abilities](${urls.baseUrl}/abilities.json): ${c.abilityCount} abilities with category and enforcement
- [MCP tools](${urls.baseUrl}/mcp-tools.json): ${c.toolCount} tools with their abilities and toolsets

## Discovery
${siteDocuments(urls)
  .map((d) => `- [${d.title}](${d.url}): ${d.note}`)
  .join("\n")}

## Optional
${MARKETING_PAGES.map((p) => `- [${p.title}](${s}${p.path}): ${p.description}`).join("\n")}
- [Sitemap](${s}${SITEMAP_MD_PATH})
`;
}
