// The MCP server card ({mcp_url}/.well-known/mcp/server-card.json): identity, transport,
// authentication and true counts (the tool catalog and the resource list, not estimates).
import { toolDefinitions } from "./tool-catalog.ts";
import { MCP_PROTOCOL_VERSION, SERVER_CAPABILITIES, SERVER_NAME, SERVER_TITLE } from "./mcp-server.ts";
import { MCP_SCOPE } from "./auth-challenge.ts";
import { PROTECTED_RESOURCE_PATH } from "./protected-resource-metadata.ts";

export const SERVER_CARD_PATH = "/.well-known/mcp/server-card.json";

export interface ServerCardInput {
  release: string;
  mcpUrl: string;
  baseUrl: string;
  authUrl: string;
  docsUrl: string;
  resourceCount: number;
}

export function serverCard(input: ServerCardInput) {
  const { mcpUrl } = input;
  return {
    serverInfo: {
      name: SERVER_NAME,
      title: SERVER_TITLE,
      version: input.release,
      description: "Paid memberships for creators' communities: the SubBridge REST API's operations as MCP tools.",
    },
    protocolVersion: MCP_PROTOCOL_VERSION,
    supportedProtocolVersions: [MCP_PROTOCOL_VERSION],
    transport: { type: "streamable-http", endpoint: mcpUrl },
    remotes: [{ type: "streamable-http", url: mcpUrl }],
    authentication: {
      schemes: ["oauth2", "bearer"],
      resourceMetadataUrl: `${mcpUrl}${PROTECTED_RESOURCE_PATH}`,
      authorizationServers: [input.authUrl],
      scopes: [MCP_SCOPE],
    },
    capabilities: {
      tools: { count: toolDefinitions.length, listChanged: SERVER_CAPABILITIES.tools.listChanged },
      resources: { count: input.resourceCount, listChanged: SERVER_CAPABILITIES.resources.listChanged },
      prompts: { count: 0, listChanged: SERVER_CAPABILITIES.prompts.listChanged },
    },
    documentationUrl: input.docsUrl,
    toolCatalogUrl: `${input.baseUrl}/mcp-tools.json`,
  };
}
