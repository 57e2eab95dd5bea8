// The reference site's home ({docs_url}/, twin /index.md): where each guide and reference is.
import type { MarkdownPage } from "../../site/pages/markdown-routes.ts";
import type { DocsAddresses } from "./addresses.ts";

export function docsIndexPage(a: DocsAddresses): MarkdownPage {
  return {
    path: "/",
    title: "SubBridge reference",
    description: "Guides and reference for the SubBridge REST API, MCP server and webhooks.",
    markdown: `# SubBridge reference

## Guides

- [REST API](/guides/rest-api): authentication, idempotency, errors, pagination, rate limits, versioning
- [MCP server](/guides/mcp): client setup for Claude, Cursor, VS Code and Windsurf; toolsets, read-only mode, OAuth
- [Webhooks](/guides/webhooks): verifying SB-Signature and the RFC 9421 signature, retries, de-duplication
- [Telegram](/guides/telegram): your bot, the team's commands, join requests, languages, terms and Stars
- [Discord](/guides/discord): the application, adding the bot to a server, members' sign-in, slash commands
- [Broadcasts](/guides/broadcasts): messaging a segment of members, test sends, scheduling, opt-out
- [Recovery](/guides/recovery): health probes, a standby bot that takes over, standby places
- [Connector packages](/guides/connectors): what each claim of a connector manifest obliges a package to do

## Reference

- [API reference](/reference): every operation and webhook, rendered from the [OpenAPI document](/openapi.json)
- [Webhook events](/webhooks/events): every event and its payload
- [Error reference](/errors): every error code, when it happens and what to do

## Machine-readable

- [OpenAPI 3.1 document](${a.baseUrl}/openapi.json)
- [Ability catalog](${a.baseUrl}/abilities.json)
- [MCP tools](${a.baseUrl}/mcp-tools.json)
- [Error codes](/errors/error-codes.json)
- [llms.txt](${a.siteUrl}/llms.txt) and the [API catalog](${a.siteUrl}/.well-known/api-catalog)

Every guide and reference page here is also available as Markdown: add \`.md\` to its address, or
ask for \`text/markdown\`.
`,
  };
}
