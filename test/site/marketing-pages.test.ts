// The marketing site over plain HTTP: every page carries the discovery Link header, has its
// Markdown twin at <page>.md, answers that twin to a request preferring text/markdown (Vary:
// Accept) and HTML to a browser; the pricing and connectors pages say what the code enforces and
// what the registry holds.
import assert from "node:assert/strict";
import { startSites, type RunningSites } from "../helpers/site.ts";
import { repositoryConnectorRegistry } from "../helpers/server.ts";
import { renderMarkdown } from "../../src/apps/site/pages/markdown.ts";
import { PROJECT_LIMITS } from "../../src/modules/projects/limits.ts";
import { MONTHLY_CODE_QUOTA } from "../../src/modules/access-codes/codes.ts";

const PAGES = [
  { path: "/", twin: "/index.md", heading: "Paid memberships for your community" },
  { path: "/pricing", twin: "/pricing.md", heading: "Pricing" },
  { path: "/connectors", twin: "/connectors.md", heading: "Connectors" },
  { path: "/developers", twin: "/developers.md", heading: "Developers" },
];
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

/** The Link header's targets by relation. */
function linkRelations(header: string | null): Map<string, string> {
  const relations = new Map<string, string>();
  for (const part of (header ?? "").split(/,(?=\s*<)/)) {
    const target = /<([^>]*)>/.exec(part)?.[1];
    const rel = /rel="([^"]+)"/.exec(part)?.[1];
    if (target !== undefined && rel) for (const name of rel.split(" ")) relations.set(name, target);
  }
  return relations;
}

describe("marketing site pages", function () {
  this.timeout(60_000);
  let sites: RunningSites;
  before(async () => {
    sites = await startSites();
  });
  after(() => sites?.close());

  for (const page of PAGES) {
    it(`${page.path}: Link header, Markdown twin at ${page.twin}, negotiation on Accept`, async () => {
      const expectLinks = (res: Response) => {
        const rels = linkRelations(res.headers.get("link"));
        assert.equal(rels.get("api-catalog"), "/.well-known/api-catalog");
        assert.equal(rels.get("service-desc"), `${sites.api.url}/openapi.json`);
        assert.equal(rels.get("service-doc"), `${sites.docs.url}/`);
        assert.equal(rels.get("describedby"), "/llms.txt");
      };
      const html = await fetch(sites.site.url + page.path, { headers: { accept: BROWSER_ACCEPT } });
      assert.equal(html.status, 200);
      assert.match(html.headers.get("content-type")!, /^text\/html/);
      assert.match(html.headers.get("vary")!, /Accept/);
      expectLinks(html);
      const htmlText = await html.text();
      assert.ok(htmlText.includes(`<link rel="alternate" type="text/markdown" href="${page.twin}"`), "names its twin");

      const twin = await fetch(sites.site.url + page.twin);
      assert.equal(twin.status, 200);
      assert.equal(twin.headers.get("content-type"), "text/markdown; charset=utf-8");
      expectLinks(twin);
      // A twin is a discovery document: cacheable for an hour, readable from any origin.
      const expectDiscoveryHeaders = (res: Response, what: string) => {
        assert.equal(res.headers.get("cache-control"), "public, max-age=3600", what);
        assert.equal(res.headers.get("access-control-allow-origin"), "*", what);
      };
      expectDiscoveryHeaders(twin, page.twin);
      const markdown = await twin.text();
      assert.ok(markdown.startsWith(`# ${page.heading}\n`), markdown.slice(0, 80));
      // The HTML is the twin rendered: they cannot drift.
      assert.ok(htmlText.includes(renderMarkdown(markdown).trim()), "the page's main content is its Markdown rendered");

      for (const accept of ["text/markdown", "text/markdown, text/html;q=0.9", "text/markdown;q=1, */*;q=0.1"]) {
        const negotiated = await fetch(sites.site.url + page.path, { headers: { accept } });
        assert.equal(negotiated.headers.get("content-type"), "text/markdown; charset=utf-8", accept);
        assert.match(negotiated.headers.get("vary")!, /Accept/);
        expectLinks(negotiated);
        expectDiscoveryHeaders(negotiated, `${page.path} as ${accept}`);
        assert.equal(await negotiated.text(), markdown);
      }
      for (const accept of ["*/*", "text/html, text/markdown;q=0.5"]) {
        const res = await fetch(sites.site.url + page.path, { headers: { accept } });
        assert.match(res.headers.get("content-type")!, /^text\/html/, accept);
      }

      const head = await fetch(sites.site.url + page.path, { method: "HEAD" });
      assert.equal(head.status, 200);
      expectLinks(head);
      assert.equal(await head.text(), "");
    });
  }

  it("serves the pages with a strict CSP and the one stylesheet from this host", async () => {
    const res = await fetch(sites.site.url + "/pricing");
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe/);
    const html = await res.text();
    assert.deepEqual(
      [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]),
      ["/assets/site.css"],
    );
    assert.doesNotMatch(html, /<script|style=|https?:\/\/[^"]*\.(css|js)\b/);
    const css = await fetch(sites.site.url + "/assets/site.css");
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type")!, /^text\/css/);
  });

  it("pricing: the three tiers, the limits the code enforces and what Growth gates", async () => {
    const markdown = await (await fetch(sites.site.url + "/pricing.md")).text();
    assert.match(markdown, /\| \| Free \| Starter \| Growth \|/);
    assert.ok(markdown.includes(`| Projects per team | ${PROJECT_LIMITS.free} | ${PROJECT_LIMITS.starter} | ${PROJECT_LIMITS.growth} |`));
    assert.ok(markdown.includes(`| ${MONTHLY_CODE_QUOTA.free} | ${MONTHLY_CODE_QUOTA.starter} | ${MONTHLY_CODE_QUOTA.growth} |`));
    for (const gated of [
      "Inviting team members and changing their role",
      "Running two distinct connectors on one project",
      "custom handle",
      "custom roles and groups",
    ])
      assert.match(markdown, new RegExp(`${gated}[^\\n]*\\| No \\| No \\| Yes \\|`, "i"), gated);
    assert.match(markdown, /\| Removing a team member \| Yes \| Yes \| Yes \|/);
    assert.match(markdown, /403 CONNECTOR_TIER_REQUIRED/);
  });

  it("connectors: every card of the registry (packages and the operator's catalog) by status", async () => {
    const markdown = await (await fetch(sites.site.url + "/connectors.md")).text();
    const registry = repositoryConnectorRegistry();
    assert.ok(registry.cards.length >= 3);
    for (const card of registry.cards) {
      assert.ok(markdown.includes(`### ${card.name} {#${card.key}}`), card.key);
      assert.ok(markdown.includes(card.tagline.replace(/[*_[\]<>|#\\`]/g, "\\$&")), card.tagline);
    }
    const order = ["## Available now", "## In development", "## On the roadmap"].map((h) => markdown.indexOf(h));
    assert.ok(
      order.every((i, n) => i > 0 && (n === 0 || i > order[n - 1]!)),
      "grouped by status in order",
    );
    const html = await (await fetch(sites.site.url + "/connectors")).text();
    assert.match(html, /<h3 id="telegram">Telegram<\/h3>/);
  });

  it("developers: links to the reference, the guides, the MCP server and the SDK on npm", async () => {
    const markdown = await (await fetch(sites.site.url + "/developers.md")).text();
    for (const target of [
      `${sites.docs.url}/reference`,
      `${sites.docs.url}/guides/rest-api`,
      `${sites.docs.url}/guides/mcp`,
      `${sites.docs.url}/guides/webhooks`,
      `${sites.api.url}/openapi.json`,
      "https://www.npmjs.com/package/@subbridge/sdk",
    ])
      assert.ok(markdown.includes(`](${target})`), target);
  });

  it("shows raw HTML in Markdown as text: a page never passes markup through", () => {
    assert.equal(renderMarkdown("a <script>alert(1)</script> b").trim(), "<p>a &lt;script&gt;alert(1)&lt;/script&gt; b</p>");
    assert.equal(renderMarkdown("<img src=x onerror=alert(1)>").trim(), "&lt;img src=x onerror=alert(1)&gt;");
  });

  it("answers 404 in the error envelope for a page that does not exist, and for its .md", async () => {
    for (const path of ["/nope", "/nope.md"]) {
      const res = await fetch(sites.site.url + path);
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, "RESOURCE_NOT_FOUND");
    }
  });
});
