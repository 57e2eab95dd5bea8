// The reference site over plain HTTP: every page written in Markdown has its twin; the event
// catalog lists every webhook of the spec; the error reference has the anchor every docs_url of
// the API names; the reference page loads Scalar and the OpenAPI document from this host.
import assert from "node:assert/strict";
import { startSites, type RunningSites } from "../helpers/site.ts";
import { readGeneratedJson } from "../../src/repository-files.ts";

const MARKDOWN_PAGES = [
  { path: "/", twin: "/index.md", heading: "SubBridge reference" },
  { path: "/guides/rest-api", twin: "/guides/rest-api.md", heading: "REST API guide" },
  { path: "/guides/mcp", twin: "/guides/mcp.md", heading: "MCP server guide" },
  { path: "/guides/webhooks", twin: "/guides/webhooks.md", heading: "Webhooks guide" },
  { path: "/webhooks/events", twin: "/webhooks/events.md", heading: "Webhook events" },
  { path: "/errors", twin: "/errors.md", heading: "Error reference" },
];

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
    for (const guide of ["rest-api", "mcp", "webhooks"]) {
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
    assert.deepEqual(scripts, [' src="/assets/scalar-api-reference.js"']);
    const bundle = await fetch(`${sites.docs.url}/assets/scalar-api-reference.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get("content-type")!, /javascript/);
    const text = await bundle.text();
    assert.ok(text.length > 1_000_000);
    assert.equal(Number(bundle.headers.get("content-length")), Buffer.byteLength(text), "streamed from disk whole, its length announced");
    const served = await (await fetch(`${sites.docs.url}/openapi.json`)).json();
    const api = await (await fetch(`${sites.api.url}/openapi.json`)).json();
    assert.deepEqual(served, api);
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
