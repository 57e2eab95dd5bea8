// The marketing home ({site_url}/, twin /index.md): what SubBridge does, for whom, and where a
// creator, a developer or an agent goes next.
import type { MarkdownPage } from "../pages/markdown-routes.ts";
import type { ConnectorRegistry } from "../../../modules/connectors/registry.ts";
import { markdownText } from "../pages/markdown.ts";
import type { SiteAddresses } from "./addresses.ts";

export function homePage(a: SiteAddresses, connectors: ConnectorRegistry): MarkdownPage {
  const available = connectors.cards.filter((card) => card.status === "available").map((card) => markdownText(card.name));
  const platforms = available.length ? available.join(", ") : "the platforms your operator connects";
  return {
    path: "/",
    title: "SubBridge",
    description: "Paid memberships for creators' communities on Telegram, Discord and more: plans, access, members and payments in one place.",
    markdown: `# Paid memberships for your community

SubBridge runs paid memberships for creators' communities on the platforms where they already
live (${platforms}). Sell subscription plans, and SubBridge lets paying members in and takes
them out again when their membership ends.

- **Plans and passes**: monthly or yearly plans, trials, coupons, single-use access codes and dated passes.
- **Access that follows payment**: each plan grants resources (gated channels, groups and roles, or
  perks you hand over yourself); members gain and lose them as they subscribe, cancel or stop paying.
- **A portal for your members**: a public page at your project's handle where members pick a plan,
  redeem a code and sign in.
- **Your team**: invite teammates with roles, see every change in the activity log, and answer
  members' support messages together.

## Built for developers and agents

Everything the dashboard does is in the [REST API](${a.docsUrl}/guides/rest-api) and, for AI
assistants, the [MCP server](${a.docsUrl}/guides/mcp). [Signed webhooks](${a.docsUrl}/guides/webhooks)
tell your systems when something changes. See [Developers](/developers).

## Next

- [Pricing](/pricing): Free, Starter and Growth.
- [Connectors](/connectors): the platforms SubBridge runs on, and what is coming.
- [Create an account](${a.authUrl}/sign-up) or [sign in](${a.authUrl}/sign-in).
`,
  };
}
