// The MCP server card ({mcp_url}/.well-known/mcp/server-card.json): identity, transport,
// authentication and true counts (the tool catalog and the resource list, not estimates).
import { defaultToolsets, toolDefinitions, toolsets } from "./tool-catalog.ts";
import { DYNAMIC_TOOLS } from "./dynamic-tools.ts";
import { DYNAMIC_MODE, TOOLSETS_HEADER } from "./tool-selection.ts";
import { MCP_PROTOCOL_VERSION, SERVER_CAPABILITIES, SERVER_NAME, SERVER_TITLE } from "./mcp-server.ts";
import { MCP_SCOPE } from "./auth-challenge.ts";
import { PROTECTED_RESOURCE_PATH } from "./protected-resource-metadata.ts";
import { protocolGuideUrl, VERSION_REMEDIATION } from "./version-refusal.ts";

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
    // How a client gets in: the one version, the official SDK's setting for it (its default sends
    // a 2025 initialize, which is refused) and the guide with every host's configuration.
    connecting: {
      protocolVersion: MCP_PROTOCOL_VERSION,
      initialize: "refused",
      officialClient: { package: "@modelcontextprotocol/client", version: ">=2.4", options: { versionNegotiation: { mode: "auto" } } },
      instructions: VERSION_REMEDIATION,
      guideUrl: protocolGuideUrl(input.docsUrl),
    },
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
    // How the tools are grouped: a connection lists the default toolsets unless X-MCP-Toolsets
    // names others; the dynamic mode lists the catalog tools that reach every tool by name.
    toolsets: {
      header: TOOLSETS_HEADER,
      default: [...defaultToolsets],
      defaultToolCount: toolDefinitions.filter((t) => defaultToolsets.has(t.toolset)).length,
      available: [...toolsets.values()].map((set) => ({
        name: set.name,
        description: set.description,
        tools: set.tools.length,
        default: set.default,
      })),
      dynamic: { select: DYNAMIC_MODE, tools: DYNAMIC_TOOLS.map((t) => t.name) },
    },
    documentationUrl: input.docsUrl,
    toolCatalogUrl: `${input.baseUrl}/mcp-tools.json`,
  };
}
