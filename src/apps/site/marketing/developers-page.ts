// The developers page: every way into SubBridge for a program or an agent, each linked to its
// reference or guide.
import type { MarkdownPage } from "../pages/markdown-routes.ts";
import { SDK_PACKAGE_URL, type SiteAddresses } from "./addresses.ts";
import { mcpInstallLinks } from "../../docs/pages/mcp-install.ts";
import { sdkSample } from "../../api/public-documents.ts";

export function developersPage(a: SiteAddresses): MarkdownPage {
  const install = mcpInstallLinks(a.mcpUrl);
  return {
    path: "/developers",
    title: "Developers",
    description: "The SubBridge REST API, MCP server, webhooks and TypeScript SDK.",
    markdown: `# Developers

Everything a creator does in the dashboard, a program can do through the API, and an AI assistant
through the MCP server. Credentials are personal access tokens (\`sbt_live_...\`) that carry only
the abilities they were minted with, or OAuth 2.1 for MCP clients.

## REST API

\`${a.baseUrl}/v1\`, JSON, versioned in the path. Every write takes an \`Idempotency-Key\`.

- [API reference](${a.docsUrl}/reference), rendered from the [OpenAPI document](${a.baseUrl}/openapi.json)
- [REST API guide](${a.docsUrl}/guides/rest-api): authentication, idempotency, errors, pagination, rate limits, versioning
- [Error reference](${a.docsUrl}/errors) and the [ability catalog](${a.baseUrl}/abilities.json)

## MCP server

\`${a.mcpUrl}\`, Model Context Protocol over Streamable HTTP (protocol 2026-07-28), for Claude,
Cursor, VS Code, Windsurf and any other MCP client.

- [MCP guide](${a.docsUrl}/guides/mcp): client setup, toolsets, read-only mode, OAuth
- One-click install, signing in with OAuth: [VS Code](${install.vscode}) · [Cursor](${install.cursor})
- [Every tool with its ability](${a.baseUrl}/mcp-tools.json)

## Webhooks

Signed JSON deliveries to your endpoint when something changes: \`SB-Signature\` (HMAC with your
endpoint's secret) and an RFC 9421 HTTP Message Signature checked against
[our published key](/.well-known/http-message-signatures-directory).

- [Webhooks guide](${a.docsUrl}/guides/webhooks): verifying, retries, de-duplication
- [Event catalog](${a.docsUrl}/webhooks/events)

## TypeScript SDK

[\`@subbridge/sdk\` on npm](${SDK_PACKAGE_URL}): a typed client with idempotency keys, retries,
typed errors and pagination, webhook verification, and the connector manifest validator.

\`\`\`sh
npm install @subbridge/sdk
\`\`\`

Until it is on npm: \`npm run sdk:pack\` in a clone of the repository, then \`npm install\` the \`.tgz\` path it prints.
ES modules and CommonJS, with type declarations for both.

Every operation is a method named as in stripe-node, \`sb.<resource>.<method>(ids, body, options)\`;
creating a plan, as the [API reference](${a.docsUrl}/reference#tag/plans/POST/v1/projects/{project}/plans) shows it:

\`\`\`ts
${sdkSample("create_plan", a.baseUrl)}\`\`\`

## For agents

Agents register for a token without a browser, then a person confirms it:
see [auth.md](/auth.md). The [API catalog](/.well-known/api-catalog) and [llms.txt](/llms.txt)
list every machine-readable document.
`,
  };
}
