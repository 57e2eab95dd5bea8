// {site_url}/.well-known/agent-card.json: an A2A 1.0 agent card. SubBridge is reached over MCP, not
// over A2A's task methods, so the card's one interface binds the MCP transport specification at
// protocol 2026-07-28 and every optional A2A capability is false. Its skills are the ability
// groups of spec/abilities.yaml, each tagged with the MCP tools its abilities gate.
import { MCP_PROTOCOL_VERSION } from "../../mcp/mcp-server.ts";
import { MCP_SCOPE } from "../../mcp/auth-challenge.ts";
import { guides, type SiteAddresses } from "./addresses.ts";
import { discoveryCatalogs, groupTitle } from "./catalogs.ts";

/** The protocol binding: the MCP transport specification of the negotiated version. */
export const MCP_TRANSPORT_BINDING = `https://modelcontextprotocol.io/specification/${MCP_PROTOCOL_VERSION}/basic/transports`;

export function agentCard(urls: SiteAddresses, release: string) {
  const { groups, toolCount } = discoveryCatalogs();
  return {
    name: "SubBridge",
    description:
      `Paid memberships for creators' communities on connected platforms: projects, plans, members, access codes, connectors, support and webhooks, ` +
      `as ${toolCount} MCP tools over Streamable HTTP. Connect with an MCP client at the interface URL; A2A task methods (message/send, tasks/*) are not served.`,
    supportedInterfaces: [{ url: urls.mcpUrl, protocolBinding: MCP_TRANSPORT_BINDING, protocolVersion: MCP_PROTOCOL_VERSION }],
    provider: { organization: "SubBridge", url: urls.siteUrl },
    version: release,
    documentationUrl: guides(urls.docsUrl).mcp,
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    securitySchemes: {
      oauth2: {
        oauth2SecurityScheme: {
          description: "OAuth 2.1 authorization code with PKCE (S256) for MCP clients; dynamic client registration at the authorization server.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${urls.authUrl}/oauth/authorize`,
              tokenUrl: `${urls.authUrl}/oauth/token`,
              refreshUrl: `${urls.authUrl}/oauth/token`,
              scopes: { [MCP_SCOPE]: "Use the MCP server as the approving creator on the team they chose." },
              pkceRequired: true,
            },
          },
          oauth2MetadataUrl: `${urls.authUrl}/.well-known/oauth-authorization-server`,
        },
      },
      bearer: {
        httpAuthSecurityScheme: {
          description: "A personal access token (sbt_...), minted on the tokens page or through agent registration; see /auth.md.",
          scheme: "Bearer",
        },
      },
    },
    securityRequirements: [{ schemes: { oauth2: { list: [MCP_SCOPE] } } }, { schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: groups.map((group) => ({
      id: group.id,
      name: groupTitle(group.id),
      description: `${group.description}. ${group.tools.length} MCP tools; each requires exactly the ability of its REST operation.`,
      tags: group.tools.map((t) => t.name),
      examples: group.tools.slice(0, 3).map((t) => t.title),
    })),
  };
}
