// RFC 9728 protected-resource metadata at {mcp_url}/.well-known/oauth-protected-resource: where a
// client that got the 401 challenge finds the authorization server and the scope to ask for.
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

export function protectedResourceMetadata(urls: { mcpUrl: string; authUrl: string; docsUrl: string }) {
  return {
    resource: urls.mcpUrl,
    resource_name: "SubBridge MCP server",
    authorization_servers: [urls.authUrl],
    scopes_supported: ["mcp:use"],
    bearer_methods_supported: ["header"],
    resource_documentation: urls.docsUrl,
  };
}
