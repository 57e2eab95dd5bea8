// The pricing page: the three tiers and what each allows, built from the limits the code enforces
// (project count, monthly access codes) and the features Growth gates (requireGrowth and the
// connector install rule), so the page cannot promise what the API refuses. The prices are the
// list prices of src/modules/billing/prices.ts, the same the billing page shows and the simulated
// Stripe charges.
import type { MarkdownPage } from "../pages/markdown-routes.ts";
import { PROJECT_LIMITS } from "../../../modules/projects/limits.ts";
import { MONTHLY_CODE_QUOTA } from "../../../modules/access-codes/codes.ts";
import { TIER_NAMES as NAMES, TIER_PRICES, tierPriceText } from "../../../modules/billing/prices.ts";
import { TIERS } from "../../../modules/teams/tier.ts";
import type { Tier } from "../../../modules/teams/tier.ts";
import type { SiteAddresses } from "./addresses.ts";

/** What Growth unlocks (description, rule 4); each is refused below Growth with the code named. */
export const GROWTH_FEATURES: readonly { feature: string; refusal: string }[] = [
  { feature: "Inviting team members and changing their role", refusal: "TEAM_TIER_REQUIRED" },
  { feature: "Running two distinct connectors on one project", refusal: "CONNECTOR_TIER_REQUIRED" },
  { feature: "A custom handle for a project's portal", refusal: "TEAM_TIER_REQUIRED" },
  { feature: "Advanced role-based access: custom roles and groups", refusal: "TEAM_TIER_REQUIRED" },
];

export function pricingPage(a: SiteAddresses): MarkdownPage {
  const row = (label: string, value: (tier: Tier) => string) => `| ${label} | ${TIERS.map(value).join(" | ")} |`;
  const yes = (tier: Tier) => (tier === "growth" ? "Yes" : "No");
  return {
    path: "/pricing",
    title: "Pricing",
    description: "SubBridge tiers Free, Starter and Growth, and what Growth unlocks.",
    markdown: `# Pricing

Three tiers: **${TIERS.map((t) => NAMES[t]).join("**, **")}**. A team's tier is its owner's: everyone working on the
team gets what the owner's tier allows. You choose, change or cancel your tier on the billing page
of your account; payments are taken by Stripe, and a cancelled tier lasts until the end of the
period you paid.

| | ${TIERS.map((t) => NAMES[t]).join(" | ")} |
|---|${TIERS.map(() => "---").join("|")}|
${row("Price", (t) => (t === "free" ? "Free" : tierPriceText(TIER_PRICES[t])))}
${row("Projects per team", (t) => String(PROJECT_LIMITS[t]))}
${row("Access codes generated per month", (t) => String(MONTHLY_CODE_QUOTA[t]))}
${row("Plans, members, portal, webhooks, REST API and MCP server", () => "Yes")}
${row("Removing a team member", () => "Yes")}
${GROWTH_FEATURES.map((g) => row(g.feature, yes)).join("\n")}

## What Growth unlocks

${GROWTH_FEATURES.map((g) => `- **${g.feature}.** Below Growth the API answers \`403 ${g.refusal}\` and nothing changes.`).join("\n")}

Removing a team member is never tier-gated. A team over a limit after moving to a lower tier keeps
what it has; it cannot add more until it is below the limit again.

See the [error reference](${a.docsUrl}/errors#team_tier_required) for what each refusal carries.
`,
  };
}
