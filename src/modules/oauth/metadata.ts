// The authorization server's metadata (RFC 8414), served at /.well-known/oauth-authorization-server
// and, the same document, /.well-known/openid-configuration: PKCE S256 only, the one scope mcp:use,
// public clients (no secret), no jwks_uri and no ID token, and the agent_auth block naming the
// agent registration endpoints (service description, Discovery documents).
export const CLAIM_GRANT_TYPE = "urn:example:agent-auth:grant-type:claim";
export const MCP_SCOPE = "mcp:use";

export function authorizationServerMetadata(urls: { authUrl: string; docsUrl: string }) {
  const { authUrl } = urls;
  return {
    issuer: authUrl,
    authorization_endpoint: `${authUrl}/oauth/authorize`,
    token_endpoint: `${authUrl}/oauth/token`,
    registration_endpoint: `${authUrl}/oauth/register`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    scopes_supported: [MCP_SCOPE],
    token_endpoint_auth_methods_supported: ["none"],
    service_documentation: `${urls.docsUrl}/guides/mcp`,
    agent_auth: {
      identity_endpoint: `${authUrl}/agent/identity`,
      register_uri: `${authUrl}/agent/identity`,
      claim_endpoint: `${authUrl}/agent/identity/claim`,
      claim_uri: `${authUrl}/agent/identity/claim`,
      identity_types_supported: ["service_auth", "identity_assertion"],
      identity_assertion: { assertion_types_supported: ["verified_email"] },
      credential_types_supported: ["access_token"],
      events_supported: [],
    },
  };
}
