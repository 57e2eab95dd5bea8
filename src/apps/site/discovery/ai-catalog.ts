// {site_url}/.well-known/ai-catalog.json: one manifest of every discovery document the service
// publishes (the description's table), each with its address, media type, what it holds and the
// questions it answers.
import { PROTECTED_RESOURCE_PATH } from "../../mcp/protected-resource-metadata.ts";
import { SERVER_CARD_PATH } from "../../mcp/server-card.ts";
import { SIGNATURE_DIRECTORY_PATH, SIGNATURE_DIRECTORY_TYPE } from "../signature-directory.ts";
import {
  AGENT_CARD_PATH,
  AGENTS_MD_PATH,
  AI_CATALOG_PATH,
  AI_PLUGIN_PATH,
  API_CATALOG_PATH,
  AUTH_MD_PATH,
  LLMS_TXT_PATH,
  SITEMAP_MD_PATH,
  SKILLS_INDEX_PATH,
  type SiteAddresses,
} from "./addresses.ts";
import { API_CATALOG_TYPE } from "./api-catalog.ts";

export function aiCatalog(urls: SiteAddresses) {
  const { siteUrl: s, baseUrl: b, mcpUrl: m, authUrl: a } = urls;
  const md = "text/markdown";
  const json = "application/json";
  const doc = (url: string, mediaType: string, description: string, sampleQueries: string[]) => ({ url, mediaType, description, sampleQueries });
  return {
    name: "SubBridge",
    description: "Discovery documents of SubBridge: paid memberships for creators' communities (REST API, MCP server, OAuth 2.1, webhooks).",
    url: `${s}${AI_CATALOG_PATH}`,
    documents: [
      doc(
        `${s}${API_CATALOG_PATH}`,
        API_CATALOG_TYPE,
        "RFC 9727 API catalog: the REST API and the MCP server with their descriptions, guides, metadata and status.",
        ["Where is the OpenAPI document?", "Which APIs does SubBridge publish?"],
      ),
      doc(`${b}${API_CATALOG_PATH}`, API_CATALOG_TYPE, "The same API catalog on the REST API host.", [
        "What does the API host describe about itself?",
      ]),
      doc(`${s}${AI_CATALOG_PATH}`, json, "This manifest.", ["Which discovery documents exist?"]),
      doc(`${s}${AGENT_CARD_PATH}`, json, "A2A agent card: one MCP interface, OAuth 2.1 and bearer schemes, ability groups as skills.", [
        "How does an agent connect to SubBridge?",
        "Which skills does the SubBridge agent offer?",
      ]),
      doc(`${s}${SERVER_CARD_PATH}`, json, "MCP server card: protocol, transport, authentication, tool and resource counts.", [
        "Which MCP protocol version does the server speak?",
        "How many tools does the MCP server have?",
      ]),
      doc(`${m}${SERVER_CARD_PATH}`, json, "The same server card on the MCP host.", ["What is the MCP server's release?"]),
      doc(`${s}${SKILLS_INDEX_PATH}`, json, "Agent Skills index (discovery 0.2.0): rest-api, mcp and webhooks skills with SHA-256 digests.", [
        "Which agent skills does SubBridge publish?",
        "How do I verify a webhook signature?",
      ]),
      doc(
        `${a}/.well-known/oauth-authorization-server`,
        json,
        "RFC 8414 authorization server metadata with the agent_auth block (also at /.well-known/openid-configuration).",
        ["Where is the token endpoint?", "How does an agent register without a browser?"],
      ),
      doc(`${m}${PROTECTED_RESOURCE_PATH}`, json, "RFC 9728 protected-resource metadata of the MCP server.", [
        "Which authorization server issues MCP tokens?",
      ]),
      doc(
        `${s}${AUTH_MD_PATH}`,
        md,
        "Agent credential walkthrough: agent registration, OAuth 2.1 for MCP, personal access tokens (also on the API and MCP hosts).",
        ["How does an agent get a SubBridge token?", "How long does an OAuth access token last?"],
      ),
      doc(`${s}${SIGNATURE_DIRECTORY_PATH}`, SIGNATURE_DIRECTORY_TYPE, "The public Ed25519 keys that sign every webhook delivery (RFC 9421).", [
        "Which key signed this webhook delivery?",
      ]),
      doc(`${s}${AGENTS_MD_PATH}`, md, "Briefing for agents: surfaces, credentials and the rules every call follows.", [
        "What should an agent know before calling SubBridge?",
      ]),
      doc(`${s}${SITEMAP_MD_PATH}`, md, "Markdown sitemap of the site, its documents and the reference.", ["Which pages does the site have?"]),
      doc(`${s}${LLMS_TXT_PATH}`, "text/plain", "llms.txt index of the documentation.", ["Where is the SubBridge documentation?"]),
      doc(`${b}${AI_PLUGIN_PATH}`, json, "Plugin manifest naming the OpenAPI document.", ["Where is the API's plugin manifest?"]),
      doc(`${b}/openapi.json`, json, "OpenAPI 3.1: every /v1 operation and every webhook event.", ["Which operations does the REST API offer?"]),
    ],
  };
}
