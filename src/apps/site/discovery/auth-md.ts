// /auth.md on {site_url}, {base_url} and {mcp_url}: the agent credential walkthrough, the same
// bytes on all three hosts. It restates the description's Authentication section with this
// deployment's addresses; counts come from the ability catalog.
import { MCP_SCOPE } from "../../mcp/auth-challenge.ts";
import { PROTECTED_RESOURCE_PATH } from "../../mcp/protected-resource-metadata.ts";
import type { DiscoveryAddresses } from "./addresses.ts";
import { discoveryCatalogs } from "./catalogs.ts";

export function authMarkdown(urls: DiscoveryAddresses): string {
  const { authUrl, baseUrl, mcpUrl } = urls;
  const { mintableAbilityCount } = discoveryCatalogs();
  return `# SubBridge: credentials for agents

Every credential belongs to a creator (a person with an account) and acts as that creator on
exactly one team. There is no anonymous registration and no account is created for an agent: a
person opens the account first (${authUrl}/sign-up). Send every credential as
\`Authorization: Bearer <ACCESS_TOKEN>\`.

| Credential | Works on | Acts as |
|---|---|---|
| personal access token (prefix \`sbt_\`) | REST (${baseUrl}/v1) and MCP (${mcpUrl}) | the abilities and scope entries it was minted with, never wider |
| registered agent token (a personal access token) | REST and MCP | the abilities the registration listed |
| OAuth 2.1 access token | MCP only | the creator on the team they had selected, with every ability their role grants |

Choose:
- an agent without a browser that knows its creator's email: **agent registration** (1);
- an MCP client that can open a browser for its user: **OAuth 2.1** (2);
- a script the creator sets up by hand: **a personal access token** (3).

Authorization-server endpoints answer errors as \`{error, error_description}\`. Its metadata:
${authUrl}/.well-known/oauth-authorization-server (also /.well-known/openid-configuration), with an
\`agent_auth\` block naming the registration endpoints.

## 1. Agent registration (no browser needed)

**Step 1.** \`POST ${authUrl}/agent/identity\`, JSON, no credential:

\`\`\`json
{"type": "service_auth", "login_hint": "creator@example.com", "client_name": "Inbox helper", "scope": "project:view-any project-user:view-any"}
\`\`\`

- \`type\`: \`service_auth\` (the legacy shape \`identity_assertion\` with \`assertion_type\` \`verified_email\` and \`assertion\` = the creator's email is also accepted).
- \`login_hint\`: the creator's email (required with service_auth).
- \`client_name\`: shown to the creator on the confirmation page.
- \`scope\` (optional): space-separated abilities to mint (${mintableAbilityCount} are mintable; see ${baseUrl}/abilities.json).
  Omitted: every read-only ability (actions view-any, view, read) and no write.

The answer carries \`registration_id\`, \`registration_type\`, \`claim_url\`, \`claim_token\` (shown once,
valid 30 minutes), \`claim_token_expires\`, \`post_claim_scopes\` (the abilities the token will carry)
and \`claim\` {\`user_code\` (6 digits), \`verification_uri\`, \`expires_in\`, \`interval\`}.
Refusals (400): \`anonymous_not_enabled\`, \`unsupported_assertion_type\`, \`invalid_request\` (login_hint
is not an address), \`invalid_scope\` (a value is not a mintable ability). At most 10 registrations
an hour per address and 10 per named creator email; beyond that 429 with Retry-After.

**Step 2.** Tell the creator to open \`claim.verification_uri\` (${authUrl}/agent/claim), sign in and
type \`claim.user_code\`. The page shows your client_name, the abilities, the team, and that the
token will appear on their tokens page. Only the named creator can confirm. The code lasts 10
minutes and 5 wrong codes end the registration. A fresh code: \`POST ${authUrl}/agent/identity/claim\`
JSON \`{"claim_token": "...", "email": "creator@example.com"}\` (errors \`invalid_claim_token\`,
\`claim_expired\`: register again, \`email_mismatch\`, \`claimed_or_in_flight\`: already confirmed, poll).

**Step 3.** Poll \`POST ${authUrl}/oauth/token\`, form-encoded, every \`interval\` seconds:

\`\`\`
grant_type=urn:example:agent-auth:grant-type:claim&claim_token=<claim_token>
\`\`\`

\`authorization_pending\` until the creator confirms; \`slow_down\` when you poll faster than the
interval; \`expired_token\` after 30 minutes or once collected. Success, once:
\`{access_token, token_type: "Bearer", scope, registration_id}\`. The token is a personal access
token with exactly the post_claim_scopes abilities, acting as the creator on the team they were
working in when confirming. It does not expire by itself and has no refresh token; the creator
sees it on the tokens page under your client_name, marked as an agent registration, and can delete it.

## 2. OAuth 2.1 for MCP clients

An unauthenticated call to ${mcpUrl} answers 401 with
\`WWW-Authenticate: Bearer resource_metadata="${mcpUrl}${PROTECTED_RESOURCE_PATH}", scope="${MCP_SCOPE}"\`.
The protected-resource metadata names the authorization server ${authUrl}. The one scope is \`${MCP_SCOPE}\`.

1. Register (dynamic client registration, no credential): \`POST ${authUrl}/oauth/register\` JSON
   \`{"client_name": "...", "redirect_uris": ["https://client.example/callback"]}\`. Redirect URIs are absolute
   https URLs, http on localhost, or the private-use schemes of native clients (cursor, vscode,
   vscode-insiders, windsurf). 201: \`client_id\`, \`grant_types\`, \`response_types\` [code],
   \`redirect_uris\`, \`scope\` ${MCP_SCOPE}, \`token_endpoint_auth_method\` none (a public client: PKCE, no secret).
   400 \`invalid_redirect_uri\` or \`invalid_client_metadata\` names what was refused.
2. Send the creator to \`GET ${authUrl}/oauth/authorize\` with \`response_type=code\`, \`client_id\`,
   \`redirect_uri\`, \`scope=${MCP_SCOPE}\`, \`state\`, \`code_challenge\` (S256 of your verifier) and
   \`code_challenge_method=S256\`. They sign in (with their second factor or passkey) and approve;
   nothing is granted without them. The redirect receives \`code\` and \`state\`.
3. \`POST ${authUrl}/oauth/token\`, form-encoded: \`grant_type=authorization_code\`, \`client_id\`, \`code\`,
   \`redirect_uri\` (the same), \`code_verifier\`. Answer: \`access_token\`, \`refresh_token\`, \`expires_in\`, \`token_type\` Bearer.
4. Renew at the same endpoint: \`grant_type=refresh_token\`, \`refresh_token\`, \`client_id\`.

The access token lasts 1 hour; the refresh token 30 days from its last use and is rotated on every
renewal (a spent or rotated one answers \`invalid_grant\`). A creator who belongs to no team is
refused as TENANT_MISMATCH. OAuth access tokens work on MCP only, not on REST.

## 3. A personal access token minted by hand

The creator opens ${authUrl}/tokens, picks the abilities, the team (frozen) and optionally
projects, and copies the token once. It starts with \`sbt_\`, carries only those abilities and never
widens. A token holding \`token:create\` can also mint through REST (\`POST ${baseUrl}/v1/tokens\`); a
token never passes on \`token:create\`.

## Abilities and tenancy

Abilities read \`<entity>:<action>\` (catalog: ${baseUrl}/abilities.json). Every REST operation and
MCP tool requires exactly one; a token without it gets 403 TOKEN_MISSING_ABILITY with
\`error.context.required_ability\`. Every token carries \`scope:team:<uuid>\`: the server scopes every
query to that team and never takes the team from a request body. \`scope:project:<uuid>\` entries
form an allow-list; a project outside it answers 404 TENANT_MISMATCH. MCP applies the same rules.

## Revocation

A registered agent token or a hand-minted token is deleted by the creator on the tokens page, or by
\`DELETE ${baseUrl}/v1/tokens/{token_id}\` from a token holding \`token:delete\`; it stops working on the next
call (401 AUTHENTICATION_REQUIRED). An OAuth connection ends when the client discards its refresh
token; the access token then expires within the hour. There is no revocation endpoint (RFC 7009).

## Limits

Registration endpoint and discovery documents: 60 requests a minute per IP. REST: 300 a minute and
10,000 an hour per token. MCP: 120 a minute per token; unauthenticated MCP traffic 5 a minute per
IP. Beyond a limit: 429 RATE_LIMITED with Retry-After.
`;
}
