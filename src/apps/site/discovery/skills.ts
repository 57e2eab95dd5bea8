// The three Agent Skills served under {site_url}/.well-known/agent-skills/<name>/SKILL.md: YAML
// front matter (name, description) then Markdown instructions. Numbers and names are this
// deployment's, from the generated catalogs.
import { MCP_PROTOCOL_VERSION } from "../../mcp/mcp-server.ts";
import { MCP_SCOPE } from "../../mcp/auth-challenge.ts";
import { TOOLSETS_HEADER, READ_ONLY_HEADER } from "../../mcp/tool-selection.ts";
import { AUTH_MD_PATH, guides, type SiteAddresses } from "./addresses.ts";
import { discoveryCatalogs } from "./catalogs.ts";

export interface Skill {
  name: string;
  description: string;
  markdown: string;
}

/** The front matter as YAML: both values are quoted JSON strings, which YAML reads verbatim. */
function skillDocument(name: string, description: string, body: string): Skill {
  return { name, description, markdown: `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n${body}` };
}

function restApiSkill(urls: SiteAddresses): Skill {
  const { operationCount } = discoveryCatalogs();
  return skillDocument(
    "rest-api",
    "Call the SubBridge REST API (paid memberships: projects, plans, members, access codes, connectors, webhooks) with a personal access token. Use when an agent must read or change a creator's SubBridge team over HTTP.",
    `# SubBridge REST API

Base: ${urls.baseUrl}/v1 (${operationCount} operations). OpenAPI 3.1: ${urls.baseUrl}/openapi.json.
Guide: ${guides(urls.docsUrl).restApi}. SDK for TypeScript: \`@subbridge/sdk\`.

## Credentials
Send \`Authorization: Bearer sbt_...\`, a personal access token. An agent without one registers
with its creator's email and polls for the token: see ${urls.siteUrl}${AUTH_MD_PATH}. A token acts as
its creator on exactly one team with the abilities it was minted with (${urls.baseUrl}/abilities.json).

## Rules
- Every POST, PATCH, PUT and DELETE needs \`Idempotency-Key: <fresh UUID per operation>\`; repeat the
  same key with the same body to retry safely (a replay answers \`Idempotent-Replay: true\`).
- Errors: \`{error: {code, message, docs_url, remediation, request_id, fields?, context?}}\`; match on
  \`code\`. 403 TOKEN_MISSING_ABILITY names \`error.context.required_ability\`.
- Lists: \`{data, links, meta}\`, \`page\` from 1, \`per_page\` 1 to 100 (default 25).
- Ids are lowercase UUIDs; treat them as opaque.
- 300 requests a minute and 10,000 an hour per token; 429 RATE_LIMITED carries Retry-After.
- Ignore unknown fields: /v1 only grows.

## First calls
\`\`\`
GET ${urls.baseUrl}/v1/ping
GET ${urls.baseUrl}/v1/projects
\`\`\`
`,
  );
}

function mcpSkill(urls: SiteAddresses): Skill {
  const { toolCount, defaultToolCount, toolsets } = discoveryCatalogs();
  const sets = toolsets.map((s) => `- \`${s.name}\`${s.default ? " (default)" : ""}: ${s.description}`).join("\n");
  return skillDocument(
    "mcp",
    "Connect to the SubBridge MCP server (Streamable HTTP, protocol 2026-07-28) with OAuth or a personal access token and pick toolsets. Use when an MCP client should manage a creator's memberships through tools.",
    `# SubBridge MCP server

Endpoint: ${urls.mcpUrl} (Streamable HTTP, JSON-RPC 2.0, protocol version ${MCP_PROTOCOL_VERSION} only).
Server card: ${urls.mcpUrl}/.well-known/mcp/server-card.json. Guide: ${guides(urls.docsUrl).mcp}.

## Credentials
- OAuth 2.1 with PKCE, scope \`${MCP_SCOPE}\`: the 401 challenge names the protected-resource metadata,
  which names the authorization server ${urls.authUrl} (dynamic client registration).
- Or \`Authorization: Bearer sbt_...\`, a personal access token. Walkthrough: ${urls.siteUrl}${AUTH_MD_PATH}.

## Tools
${toolCount} tools; each requires exactly the ability of its REST operation and is listed only when
the credential holds it. tools/list shows the default toolsets (${defaultToolCount} tools); send
\`${TOOLSETS_HEADER}: default,<toolset>\` (or \`all\`, or \`dynamic\` for five catalog tools that reach
every tool by name). \`${READ_ONLY_HEADER}: true\` keeps read-only tools only.

${sets}

Failed calls are results with \`isError: true\` whose structuredContent is the REST error envelope.
Destructive tools ask for confirmation in the client. Read the resource
subbridge://guides/getting-started first.
`,
  );
}

function webhooksSkill(urls: SiteAddresses): Skill {
  const { webhookEvents } = discoveryCatalogs();
  return skillDocument(
    "webhooks",
    "Receive SubBridge webhooks: register an https endpoint, verify SB-Signature (HMAC-SHA256) or the RFC 9421 signature, de-duplicate on the event id and accept retries. Use when building a receiver for SubBridge events.",
    `# SubBridge webhooks

Register: \`POST ${urls.baseUrl}/v1/webhook-endpoints\` \`{name, url, events[]}\` (https on a public host);
the answer carries the \`secret\` once. Guide: ${guides(urls.docsUrl).webhooks}.

## Verify every delivery
- \`SB-Signature: t=<unix seconds>,v1=<hex>\`: v1 is HMAC-SHA256, keyed with the endpoint secret, of
  \`t\`, a dot, then the raw body. Compare in constant time; reject when |now - t| > 300 seconds.
- Or the RFC 9421 HTTP Message Signature (Ed25519); the public keys are at
  ${urls.siteUrl}/.well-known/http-message-signatures-directory (kid = keyid).
- \`@subbridge/sdk\` does both: \`verifyWebhook\` and \`verifyWebhookMessageSignature\`.

## Handle it
- Answer 2xx quickly. Non-2xx or a time-out is retried after 10 s, 30 s, 2 min, 10 min, 1 h, 6 h,
  24 h and 72 h; when the eighth retry fails too the delivery is dead. 20 consecutive failures disable the endpoint.
- De-duplicate on the envelope \`id\` (\`evt_\` + ULID; header \`SB-Event-Id\` carries the bare ULID) and
  remember ids at least 24 hours. Deliveries are not ordered: keep the latest event per resource.
- Envelope: \`{id, type, created_at, api_version, project_id, data}\`.

## Events (${webhookEvents.length})
${webhookEvents.map((e) => `\`${e}\``).join(", ")}
`,
  );
}

export function agentSkills(urls: SiteAddresses): Skill[] {
  return [restApiSkill(urls), mcpSkill(urls), webhooksSkill(urls)];
}
