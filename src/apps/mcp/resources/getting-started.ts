// subbridge://guides/getting-started: what an agent needs before its first tool call, in
// Markdown. The addresses and names are this deployment's, filled in when the surface starts.
import { MCP_BUDGET, UNAUTHENTICATED_MCP_BUDGET } from "../../../pipeline/rate-limit.ts";
import { defaultToolsets, toolDefinitions, toolsets } from "../tool-catalog.ts";
import { READ_ONLY_HEADER, TOOLSETS_HEADER } from "../tool-selection.ts";
import { protocolGuideUrl } from "../version-refusal.ts";

export interface GuideAddresses {
  mcpUrl: string;
  baseUrl: string;
  authUrl: string;
  docsUrl: string;
}

export function gettingStartedGuide(urls: GuideAddresses, resourceUris: readonly string[]): string {
  const sets = [...toolsets.keys()].map((s) => `\`${s}\``).join(", ");
  const defaults = [...defaultToolsets].map((s) => `\`${s}\``).join(", ");
  return `# SubBridge MCP server: getting started

SubBridge runs paid memberships for creators' communities. This server exposes the REST API's
operations (${urls.baseUrl}/v1) as ${toolDefinitions.length} tools over MCP protocol version
2026-07-28 (Streamable HTTP at ${urls.mcpUrl}). A tool does exactly what its REST operation does,
with the same rules.

## Connecting
2026-07-28 is the only protocol version: there is no \`initialize\` handshake, and a 2025-era
request (a 1.x SDK, or a 2.x client left at its default negotiation) is refused with JSON-RPC
error -32022, whose message and \`data\` name the version and the guide. With the official
TypeScript SDK (\`@modelcontextprotocol/client\` 2.4 or later) opt in to negotiation:
\`new Client({ name, version }, { versionNegotiation: { mode: "auto" } })\` over a
\`StreamableHTTPClientTransport\` to ${urls.mcpUrl}. Hosts' configurations (desktop assistants,
editors) and what to do when a host cannot choose the version: ${protocolGuideUrl(urls.docsUrl)}.

## Authentication
Send \`Authorization: Bearer <token>\` on every request. A personal access token
(\`sbt_live_<id>_<secret>\`) acts as its creator on exactly one team with the abilities it was
minted with, never wider. An OAuth 2.1 access token (\`sbo_live_...\`, scope \`mcp:use\`) from
${urls.authUrl} works on MCP only: it acts as the creator on the team chosen when they approved
the client, with every ability their role grants there, for one hour (renew it with the refresh
token at ${urls.authUrl}/oauth/token). Without a valid token the server answers HTTP 401 with
\`WWW-Authenticate: Bearer resource_metadata="${urls.mcpUrl}/.well-known/oauth-protected-resource", scope="mcp:use"\`.

## Abilities and tenancy
Every tool requires exactly the ability of its REST operation (see each tool's description and
\`_meta["subbridge/ability"]\`, or the resource subbridge://toolsets). The token's team is the
only team it sees; a token restricted to projects sees only those. An id outside that scope
answers RESOURCE_NOT_FOUND or TENANT_MISMATCH, never a hint that it exists. Read
subbridge://team to see your team, projects and abilities.

## Choosing tools
tools/list shows only the tools your token's abilities can call, from the default toolsets
(${defaults}): the daily work of a membership business. Every other tool is one header away: send
\`${TOOLSETS_HEADER}: <toolset>,<toolset>\` (or add \`?toolsets=...\` to the endpoint URL), where
\`default\` stands for the default toolsets (\`default,support\`) and \`all\` selects every one. The
toolsets are ${sets}. \`${TOOLSETS_HEADER}: dynamic\` lists five catalog tools instead
(list_toolsets, search_tools, describe_tool, call_tool, call_destructive_tool) that reach every
tool by name; combine it with toolsets to list those too (\`dynamic,default\`).
\`${READ_ONLY_HEADER}: true\` (or \`?read_only=true\`) keeps only read-only tools. A direct call to a
tool outside the selection is refused (-32602) with a message naming why and how to reach it.

## Calling tools
Arguments are one flat object: the REST path parameters, query parameters and body fields side
by side, as each tool's inputSchema lists them. Unknown arguments are refused.

## Errors
A failed call is a normal result with \`isError: true\`. Its \`structuredContent\` is the REST error
envelope, and its one text block holds the same JSON:

\`\`\`json
{"error": {"code": "TOKEN_MISSING_ABILITY", "message": "This token does not hold the ability token:delete.",
  "docs_url": "${urls.docsUrl}/errors#token_missing_ability", "remediation": "...",
  "request_id": "...", "context": {"required_ability": "token:delete"}}}
\`\`\`

Match on \`error.code\`: VALIDATION_FAILED carries \`fields\` (each offending argument with its
messages), TOKEN_MISSING_ABILITY names \`context.required_ability\`, RESOURCE_NOT_FOUND and
TENANT_MISMATCH mean the id is not visible to this token. The full catalog is subbridge://errors
(and ${urls.docsUrl}/errors). Unknown tools and protocol problems are JSON-RPC errors instead.
Refusals before the JSON-RPC layer (401 without a valid token, 403 for a foreign Host or Origin,
405 for GET or DELETE, 422 for an unknown toolset, 429) are HTTP answers with the same envelope
as their body.

## Pagination
List tools take \`page\` (from 1) and \`per_page\` (1 to 100, default 25); the result carries
\`data\`, \`links\` (REST URLs of the neighbouring pages) and \`meta\` (\`current_page\`, \`last_page\`,
\`total\`). Call the tool again with the next \`page\` to continue.

## Idempotency
Every write tool takes an optional \`idempotency_key\` (a fresh UUID per intended change), with
REST's Idempotency-Key rules: a retry with the same key and the same arguments returns the first
call's result and changes nothing again (for 24 hours); the same key with other arguments is
refused with IDEMPOTENCY_KEY_REUSED, and one sent while the first call still runs with
IDEMPOTENCY_REPLAY_IN_PROGRESS. A write without a key runs again when retried. A tool that returns
no data (a delete) keeps no result: retried after it finished, it runs again.

## Limits
${MCP_BUDGET[0]!.limit} requests per minute per token; requests without a valid token:
${UNAUTHENTICATED_MCP_BUDGET[0]!.limit} per minute per IP. Responses carry X-RateLimit-Limit and
X-RateLimit-Remaining; a spent budget answers HTTP 429 with Retry-After (seconds).

## Activity log
Every tool call, reads and failures included, is recorded in the activity log (event
\`tool_invoked\`, actor_kind \`mcp\`) against the project it named, or else your team; writes also
record their own entries. A write's entry is committed with the write; a read's or a failure's
within moments of the answer. Read them with get_activity_log (subject_type \`team\` or \`project\`).

## Resources
${resourceUris.map((u) => `- ${u}`).join("\n")}

More: ${urls.docsUrl}, the tool catalog ${urls.baseUrl}/mcp-tools.json and the server card
${urls.mcpUrl}/.well-known/mcp/server-card.json.
`;
}
