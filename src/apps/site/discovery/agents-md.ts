// {site_url}/AGENTS.md: the briefing an agent reads first: what SubBridge is, where each surface
// is, how to get a credential and the rules every call follows. Counts from the generated catalogs.
import { MCP_PROTOCOL_VERSION } from "../../mcp/mcp-server.ts";
import {
  AGENT_CARD_PATH,
  AI_CATALOG_PATH,
  API_CATALOG_PATH,
  AUTH_MD_PATH,
  guides,
  LLMS_TXT_PATH,
  SITEMAP_MD_PATH,
  SKILLS_INDEX_PATH,
  type SiteAddresses,
} from "./addresses.ts";
import { discoveryCatalogs, groupTitle } from "./catalogs.ts";

export function agentsMarkdown(urls: SiteAddresses): string {
  const c = discoveryCatalogs();
  const docs = guides(urls.docsUrl);
  const groups = c.groups.map((g) => `- ${groupTitle(g.id)} (${g.tools.length} tools): ${g.description}.`).join("\n");
  return `# AGENTS.md: SubBridge

SubBridge runs paid memberships for creators' communities on connected platforms. A creator owns
or belongs to a team; a team holds projects; a project sells subscription plans to members and
grants them access to resources through connectors. You act for one creator on one team.

## Surfaces
| Surface | Address |
|---|---|
| REST API (${c.operationCount} operations) | ${urls.baseUrl}/v1 (OpenAPI: ${urls.baseUrl}/openapi.json) |
| MCP server (${c.toolCount} tools, protocol ${MCP_PROTOCOL_VERSION}) | ${urls.mcpUrl} |
| Authorization server (OAuth 2.1, agent registration) | ${urls.authUrl} |
| Reference and guides | ${urls.docsUrl} |
| This site and its discovery documents | ${urls.siteUrl} |

## Get a credential
No account is created for an agent: your creator opens it. Then register with their email and
poll for a token (no browser needed), use OAuth 2.1 from an MCP client, or ask them for a token
minted by hand. Every step: ${urls.siteUrl}${AUTH_MD_PATH}.

## Rules every call follows
1. One credential = one creator on exactly one team; the team is never taken from a request body.
2. Every operation and tool requires exactly one ability (${c.abilityCount} exist: ${urls.baseUrl}/abilities.json).
   Missing it: 403 TOKEN_MISSING_ABILITY with \`error.context.required_ability\`.
3. REST writes need an \`Idempotency-Key\` header (a fresh UUID per operation; reuse it to retry).
4. Errors are \`{error: {code, message, docs_url, remediation, request_id}}\`; match on \`code\`.
5. Limits: REST 300 a minute and 10,000 an hour per token; MCP 120 a minute per token. 429 carries Retry-After.
6. Every change is recorded in the team's activity log with your credential.
7. Ignore unknown fields: /v1 and the tools only grow.

## What you can do (ability groups)
${groups}

## Guides
- REST API: ${docs.restApi}
- MCP server: ${docs.mcp}
- Webhooks: ${docs.webhooks}

## Machine-readable
- API catalog (RFC 9727): ${urls.siteUrl}${API_CATALOG_PATH}
- AI catalog: ${urls.siteUrl}${AI_CATALOG_PATH}
- A2A agent card: ${urls.siteUrl}${AGENT_CARD_PATH}
- MCP server card: ${urls.mcpUrl}/.well-known/mcp/server-card.json
- Agent skills: ${urls.siteUrl}${SKILLS_INDEX_PATH}
- MCP tool catalog: ${urls.baseUrl}/mcp-tools.json
- Sitemap: ${urls.siteUrl}${SITEMAP_MD_PATH}; index: ${urls.siteUrl}${LLMS_TXT_PATH}
`;
}
