// The reference site over plain HTTP: every page written in Markdown has its twin; the event
// catalog lists every webhook of the spec; the error reference has the anchor every docs_url of
// the API names; the reference page loads Scalar and the OpenAPI document from this host; code is
// highlighted on the server, every page has the search box and the copy script, and search answers
// any query with a page; the MCP guide and the developers page carry the one-click install links.
import assert from "node:assert/strict";
import { startSites, type RunningSites } from "../helpers/site.ts";
import { MCP_URL } from "../helpers/server.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";
import { mcpInstallLinks } from "../../src/apps/docs/pages/mcp-install.ts";
import { QUERY_MAX_LENGTH, RESULTS_MAX } from "../../src/apps/docs/search-index.ts";

const MARKDOWN_PAGES = [
  { path: "/", twin: "/index.md", heading: "SubBridge reference" },
  { path: "/guides/rest-api", twin: "/guides/rest-api.md", heading: "REST API guide" },
  { path: "/guides/mcp", twin: "/guides/mcp.md", heading: "MCP server guide" },
  { path: "/guides/webhooks", twin: "/guides/webhooks.md", heading: "Webhooks guide" },
  { path: "/guides/discord", twin: "/guides/discord.md", heading: "Discord guide" },
  { path: "/guides/connectors", twin: "/guides/connectors.md", heading: "Connector packages guide" },
  { path: "/guides/recovery", twin: "/guides/recovery.md", heading: "Recovery guide" },
  { path: "/guides/broadcasts", twin: "/guides/broadcasts.md", heading: "Broadcasts guide" },
  { path: "/guides/telegram", twin: "/guides/telegram.md", heading: "Telegram guide" },
  { path: "/webhooks/events", twin: "/webhooks/events.md", heading: "Webhook events" },
  { path: "/errors", twin: "/errors.md", heading: "Error reference" },
];

/** The links of a search results page's hits, in order. */
function hitLinks(html: string): string[] {
  const list = /<ol class="search-results">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? "";
  return [...list.matchAll(/<li>\s*<a href="([^"]+)"/g)].map((m) => m[1]!);
}

describe("reference site pages", function () {
  this.timeout(60_000);
  let sites: RunningSites;
  before(async () => {
    sites = await startSites();
  });
  after(() => sites?.close());

  it("serves every Markdown-written page as HTML, as its .md twin and to Accept: text/markdown", async () => {
    for (const page of MARKDOWN_PAGES) {
      const html = await fetch(sites.docs.url + page.path);
      assert.equal(html.status, 200, page.path);
      assert.match(html.headers.get("content-type")!, /^text\/html/);
      assert.doesNotMatch(html.headers.get("content-security-policy")!, /unsafe/);
      const twin = await fetch(sites.docs.url + page.twin);
      assert.equal(twin.headers.get("content-type"), "text/markdown; charset=utf-8");
      const markdown = await twin.text();
      assert.ok(markdown.startsWith(`# ${page.heading}\n`), page.twin);
      const negotiated = await fetch(sites.docs.url + page.path, { headers: { accept: "text/markdown" } });
      assert.equal(await negotiated.text(), markdown);
      assert.match(negotiated.headers.get("vary")!, /Accept/);
    }
  });

  it("fills the guides with this deployment's addresses and leaves no placeholder", async () => {
    for (const guide of ["rest-api", "mcp", "webhooks", "telegram"]) {
      const markdown = await (await fetch(`${sites.docs.url}/guides/${guide}.md`)).text();
      assert.doesNotMatch(markdown, /\{(base_url|mcp_url|auth_url|site_url|docs_url)\}|\{\{\w+\}\}/, guide);
    }
    const rest = await (await fetch(`${sites.docs.url}/guides/rest-api.md`)).text();
    assert.ok(rest.includes(`"${sites.api.url}/v1"`));
    for (const section of ["Authentication", "Idempotency", "Errors", "Pagination", "Rate limits", "Versioning"])
      assert.match(rest, new RegExp(`^## ${section}$`, "m"), section);
    const mcp = await (await fetch(`${sites.docs.url}/guides/mcp.md`)).text();
    for (const section of [
      "### Claude Code",
      "### Claude Desktop",
      "### Cursor",
      "### VS Code",
      "### Windsurf",
      "## Toolsets",
      "## Read-only mode",
      "## OAuth for client developers",
    ])
      assert.ok(mcp.includes(`${section}\n`), section);
    const { toolsets } = readGeneratedJson<{ toolsets: { name: string; tools: string[] }[] }>("mcp-tools.json");
    for (const set of toolsets) assert.match(mcp, new RegExp(`\\| \`${set.name}\` \\| (yes)? \\| ${set.tools.length} \\|`), set.name);
    const webhooks = await (await fetch(`${sites.docs.url}/guides/webhooks.md`)).text();
    for (const section of ["## Verifying SB-Signature", "## Verifying the RFC 9421 signature", "## Retries", "## De-duplication and order"])
      assert.ok(webhooks.includes(`${section}\n`), section);
    assert.match(
      webhooks,
      /\| 8 \| 24 hours after attempt 7 failed \|\n\| 9 \| 72 hours after attempt 8 failed \|\n\n/,
      "the eighth retry, 72 h on, ends the table",
    );
    const html = await (await fetch(`${sites.docs.url}/guides/rest-api`)).text();
    assert.match(html, /<h2 id="idempotency">Idempotency<\/h2>/);
  });

  it("lists every webhook event of the spec, each at an anchor named after it", async () => {
    const events = Object.keys(readGeneratedJson<{ webhooks: Record<string, unknown> }>("openapi.json").webhooks);
    assert.ok(events.length > 10);
    const html = await (await fetch(`${sites.docs.url}/webhooks/events`)).text();
    for (const name of events) assert.ok(html.includes(`id="${name}"`), name);
    const markdown = await (await fetch(`${sites.docs.url}/webhooks/events.md`)).text();
    assert.match(markdown, /### `subscription\.created` \{#subscription\.created\}\n\n\*\*A subscription was created\.\*\*/);
    assert.match(markdown, /"type": "subscription\.created"/);
  });

  it("keeps the error reference where every docs_url points", async () => {
    const res = await fetch(`${sites.api.url}/v1/teams/current`);
    const { error } = (await res.json()) as { error: { code: string; docs_url: string } };
    const named = new URL(error.docs_url);
    assert.equal(named.pathname, "/errors");
    const html = await (await fetch(sites.docs.url + named.pathname)).text();
    assert.ok(html.includes(`id="${named.hash.slice(1)}"`), named.hash);
    const { errors } = readGeneratedJson<{ errors: { docs_anchor: string }[] }>("error-codes.json");
    for (const entry of errors) assert.ok(html.includes(`id="${entry.docs_anchor}"`), entry.docs_anchor);
    for (const path of ["/errors/error-codes.json", "/error-codes.json"]) {
      const json = await fetch(sites.docs.url + path);
      assert.equal(json.status, 200);
      assert.equal(((await json.json()) as { errors: unknown[] }).errors.length, errors.length);
    }
    const slash = await fetch(`${sites.docs.url}/errors/`); // the address the first release served too
    assert.equal(slash.status, 200);
    assert.ok((await slash.text()).includes(`id="${named.hash.slice(1)}"`));
  });

  it("serves the reference page with Scalar and the OpenAPI document from this host, no CDN", async () => {
    const res = await fetch(`${sites.docs.url}/reference`);
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval/);
    assert.match(csp, new RegExp(`connect-src 'self' ${sites.api.url}`));
    const html = await res.text();
    assert.match(html, /<div id="api-reference" data-url="\/openapi.json" data-configuration="[^"]*withDefaultFonts&quot;:false/);
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    assert.equal(scripts.length, 1);
    const bundlePath = /^ src="(\/assets\/scalar-api-reference\.[\w-]{16}\.js)"$/.exec(scripts[0]!)?.[1];
    assert.ok(bundlePath, `the bundle at an address carrying its hash: ${scripts[0]}`);
    // Uncompressed here (identity asked for); test/http/compression.test.ts covers the encodings.
    const bundle = await fetch(sites.docs.url + bundlePath, { headers: { "accept-encoding": "identity" } });
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get("content-type")!, /javascript/);
    const text = await bundle.text();
    assert.ok(text.length > 1_000_000);
    assert.equal(Number(bundle.headers.get("content-length")), Buffer.byteLength(text), "streamed from disk whole, its length announced");
    const served = await (await fetch(`${sites.docs.url}/openapi.json`)).json();
    const api = await (await fetch(`${sites.api.url}/openapi.json`)).json();
    assert.deepEqual(served, api);
  });

  it("highlights code on the server; every page has the search box, and the Markdown pages the copy script, from this host", async () => {
    for (const page of [...MARKDOWN_PAGES.map((p) => p.path), "/reference", "/search"]) {
      const res = await fetch(sites.docs.url + page);
      const csp = res.headers.get("content-security-policy")!;
      assert.match(csp, /script-src 'self'(;|$)/, page);
      assert.match(csp, /form-action 'self'(;|$)/, page);
      const html = await res.text();
      assert.match(html, /<form class="site-search" role="search" action="\/search" method="get">/, page);
      assert.match(html, new RegExp(`<input\\s+id="site-search-q"\\s+type="search"\\s+name="q"\\s+maxlength="${QUERY_MAX_LENGTH}"`), page);
      if (MARKDOWN_PAGES.some((p) => p.path === page)) assert.ok(html.includes('<script src="/assets/copy-code.js"></script>'), page);
    }
    const rest = await (await fetch(`${sites.docs.url}/guides/rest-api`)).text();
    assert.match(rest, /<pre [^>]*><code class="hljs language-ts"><span class="hljs-keyword">import<\/span>/);
    assert.match(rest, /<code class="hljs language-sh">/);
    const script = await fetch(`${sites.docs.url}/assets/copy-code.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type")!, /^text\/javascript/);
    assert.match(await script.text(), /navigator\.clipboard/);
  });

  it("search: finds the REST guide's idempotency section at its anchor, the words marked; the twin says the same in Markdown", async () => {
    const res = await fetch(`${sites.docs.url}/search?q=idempotency`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("vary")!, /Accept/);
    const html = await res.text();
    const hrefs = hitLinks(html);
    assert.equal(hrefs[0], "/guides/rest-api#idempotency");
    assert.ok(hrefs.includes("/errors#idempotency_key_reused"), "the error reference's entries are searched too");
    assert.match(html, /<mark>Idempotency<\/mark>-Key/);
    assert.match(html, /<input\s+id="site-search-q"[^>]* value="idempotency"/);
    assert.match(html, /<link rel="alternate" type="text\/markdown" href="\/search\.md\?q=idempotency" \/>/);
    const guide = await (await fetch(`${sites.docs.url}/guides/rest-api`)).text();
    assert.ok(guide.includes('id="idempotency"'), "the anchor a hit links to exists");

    const twin = await (await fetch(`${sites.docs.url}/search.md?q=idempotency`)).text();
    assert.match(
      twin,
      /^# Search\n\n\d+ sections matching “idempotency”\.\n\n1\. \[REST API guide › Idempotency\]\(\/guides\/rest-api#idempotency\): .*\*\*Idempotency\*\*-Key/,
    );
    const negotiated = await fetch(`${sites.docs.url}/search?q=idempotency`, { headers: { accept: "text/markdown" } });
    assert.equal(negotiated.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(await negotiated.text(), twin);
    // An event, by its name, at its own anchor.
    const event = await (await fetch(`${sites.docs.url}/search.md?q=subscription.created`)).text();
    assert.match(event, /\n1\. \[Webhook events › subscription\.created\]\(\/webhooks\/events#subscription\.created\)/);
  });

  it("search: an empty, repeated, bracketed, oversized or unusual query answers a page, never an error", async () => {
    const empty = await (await fetch(`${sites.docs.url}/search`)).text();
    assert.match(empty, /<p class="search-summary" role="status">Search the guides/);
    assert.doesNotMatch(empty, /class="search-results"/);
    for (const query of [
      "q=",
      "q[]=x",
      "q=%00%ff",
      "q=a&q=b",
      `q=${encodeURIComponent("ünïcødé 検索 🙂 ' \" <script>")}`,
      `q=${"idempotency ".repeat(300)}`,
    ]) {
      const res = await fetch(`${sites.docs.url}/search?${query}`);
      assert.equal(res.status, 200, query.slice(0, 40));
      const html = await res.text();
      assert.doesNotMatch(html, /<script>/, query.slice(0, 40));
      const value = /<input\s+id="site-search-q"[^>]* value="([^"]*)"/.exec(html)?.[1] ?? "";
      assert.ok(value.length <= QUERY_MAX_LENGTH, `${query.slice(0, 40)}: the query is cut to ${QUERY_MAX_LENGTH} characters`);
    }
    const common = await (await fetch(`${sites.docs.url}/search?q=the`)).text();
    assert.equal(hitLinks(common).length, RESULTS_MAX);
    assert.match(common, new RegExp(`The first ${RESULTS_MAX} sections matching “the”`));
  });

  it("links the one-click MCP install for VS Code and Cursor from the MCP guide and the developers page", async () => {
    const links = mcpInstallLinks(MCP_URL);
    const guide = await (await fetch(`${sites.docs.url}/guides/mcp.md`)).text();
    for (const link of [links.vscode, links.vscodeInsiders, links.vscodeWeb, links.cursor, links.cursorWeb])
      assert.ok(guide.includes(`](${link})`), link);
    // Each under its client's snippet.
    assert.ok(guide.indexOf(links.cursor) > guide.indexOf("### Cursor") && guide.indexOf(links.cursor) < guide.indexOf("### VS Code"));
    assert.ok(guide.indexOf(links.vscode) > guide.indexOf("### VS Code") && guide.indexOf(links.vscode) < guide.indexOf("### Windsurf"));
    const developers = await (await fetch(`${sites.site.url}/developers.md`)).text();
    assert.ok(developers.includes(`[VS Code](${links.vscode})`) && developers.includes(`[Cursor](${links.cursor})`));
  });

  it("is read-only and answers unknown paths in the error envelope", async () => {
    const post = await fetch(`${sites.docs.url}/errors`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.match(post.headers.get("allow")!, /GET/);
    const missing = await fetch(`${sites.docs.url}/guides/nope`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "RESOURCE_NOT_FOUND");
  });
});
