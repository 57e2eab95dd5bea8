// The connectors catalog: the cards GET /v1/connectors answers (the loaded manifests, with their
// English strings, plus the operator's catalog file: paused packages and announced connectors),
// grouped by status. Built from the registry at start, so it lists exactly what runs.
import type { MarkdownPage } from "../pages/markdown-routes.ts";
import type { ConnectorCard } from "../../../modules/connectors/cards.ts";
import type { ConnectorRegistry } from "../../../modules/connectors/registry.ts";
import { markdownText } from "../pages/markdown.ts";
import { CAPABILITY_MEANINGS } from "../../../modules/connectors/claims.ts";
import type { SiteAddresses } from "./addresses.ts";

const GROUPS: readonly { status: ConnectorCard["status"]; heading: string; intro: string }[] = [
  { status: "available", heading: "Available now", intro: "Install these on a project today." },
  { status: "paused", heading: "Paused", intro: "Running for the projects that have them; new installs are paused for now." },
  { status: "in_development", heading: "In development", intro: "Being built; not installable yet." },
  { status: "roadmap", heading: "On the roadmap", intro: "Announced; not installable yet." },
];

const CATEGORY: Record<ConnectorCard["category"], string> = {
  messaging: "Messaging",
  community: "Community",
  payments: "Payments",
  productivity: "Productivity",
};

const LINK_LABELS: Record<string, string> = {
  documentation: "Documentation",
  homepage: "Homepage",
  support: "Support",
  privacy: "Privacy",
  terms: "Terms",
};

/** A manifest's overview is Markdown; its headings sit under the card's own (h3), never above. */
function nestedOverview(overview: string): string {
  return overview.replace(/^(#{1,3})\s/gm, "#### ");
}

function cardSection(card: ConnectorCard): string {
  const facts = [`**Category:** ${CATEGORY[card.category]}`];
  if (card.version) facts.push(`**Version:** ${markdownText(card.version)}`);
  if (card.marketing) {
    facts.push(`**For:** ${markdownText(card.marketing.audience)}`);
    facts.push(`**Gates:** ${markdownText(card.marketing.places)}`);
    if (card.marketing.native_payment) facts.push(`**Native payment:** ${markdownText(card.marketing.native_payment)}`);
  }
  if (card.resource_kinds.length) facts.push(`**Resources:** ${card.resource_kinds.map((k) => markdownText(k.label)).join(", ")}`);
  // The capabilities in a creator's words, from the one table the claims test and the connector guide read.
  const does = card.capabilities.map((c) => `- ${CAPABILITY_MEANINGS[c as keyof typeof CAPABILITY_MEANINGS]?.says ?? markdownText(c)}`);
  const links = Object.entries(card.links)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([name, url]) => `[${LINK_LABELS[name] ?? markdownText(name)}](<${url}>)`);
  return [
    `### ${markdownText(card.name)} {#${card.key}}`,
    "",
    `*${markdownText(card.tagline)}*`,
    "",
    facts.map((f) => `- ${f}`).join("\n"),
    card.overview ? `\n${nestedOverview(card.overview)}` : "",
    does.length ? `\n**What it does:**\n\n${does.join("\n")}` : "",
    links.length ? `\n${links.join(" · ")}` : "",
    "",
  ].join("\n");
}

export function connectorsPage(a: SiteAddresses, registry: ConnectorRegistry): MarkdownPage {
  const sections = GROUPS.map((group) => {
    const cards = registry.cards.filter((card) => card.status === group.status);
    if (!cards.length) return "";
    return `## ${group.heading}\n\n${group.intro}\n\n${cards.map(cardSection).join("\n")}`;
  }).filter(Boolean);
  return {
    path: "/connectors",
    title: "Connectors",
    description: "The platforms SubBridge runs memberships on, and the ones coming next.",
    markdown: `# Connectors

A connector runs a project's memberships on one platform: it lets paying members into the places
you gate there and takes them out when their membership ends. A project runs one connector, or two
distinct ones on [Growth](/pricing).

${sections.join("\n")}
The same catalog is available to programs as \`GET ${a.baseUrl}/v1/connectors\` (see the
[API reference](${a.docsUrl}/reference)). Connector authors: the package format is described by
[the manifest schema](${a.baseUrl}/schemas/connector.schema.json).
`,
  };
}
