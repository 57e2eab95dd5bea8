// The discovery documents (description, "Discovery documents"), each fetched over HTTP and checked
// against its format: the RFC 9727 / RFC 9264 linkset and its HEAD Link header, the AI catalog,
// the A2A 1.0 agent card, the MCP server card (the same on the site and the MCP host), the Agent
// Skills 0.2.0 index with the digest of every skill's served bytes and its YAML front matter,
// auth.md on three hosts, AGENTS.md, sitemap.md, llms.txt and the plugin manifest. Every one
// answers GET and HEAD with the public cache and CORS headers, and the 61st request of a minute
// from one IP is refused. The release is the same in the agent card, the server card and the MCP
// initialize response.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { testDatabase, testKv } from "../helpers/backends.ts";
import { TestClock } from "../helpers/clock.ts";
import { createTestCreator } from "../helpers/fixtures.ts";
import { AUTH_URL, connectMcp, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { marketingTestDeps } from "../helpers/site.ts";
import { DOCS_URL, MCP_URL, serveOnFreePort, startApi, TEST_APP_KEY, testLogger, type RunningApi } from "../helpers/server.ts";
import { createSiteApp } from "../../src/apps/site/site-app.ts";

type Json = Record<string, any>;
const RELEASE = "3.0.0";
const LINKSET_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
const generated = (name: string): Json => JSON.parse(readFileSync(new URL(`../../generated/${name}`, import.meta.url), "utf8"));
const tools: Json = generated("mcp-tools.json");
const abilities: Json = generated("abilities.json");

interface Site {
  url: string;
  close(): Promise<void>;
}

async function startSite(clock: TestClock, urls: { baseUrl: string; mcpUrl: string }): Promise<Site> {
  const { db } = await testDatabase();
  const kv = await testKv({ now: clock.nowMs });
  return serveOnFreePort((url) =>
    createSiteApp({
      db,
      kv,
      appKey: TEST_APP_KEY,
      now: clock.now,
      release: RELEASE,
      logger: testLogger,
      siteUrl: url,
      docsUrl: DOCS_URL,
      ...marketingTestDeps(),
      ...urls,
    }),
  );
}

async function get(url: string, method = "GET") {
  const res = await fetch(url, { method });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes, text: bytes.toString("utf8") };
}

async function getJson(url: string): Promise<Json> {
  const { res, text } = await get(url);
  assert.equal(res.status, 200, url);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, url);
  return JSON.parse(text) as Json;
}

function assertDiscoveryHeaders(res: Response, what: string) {
  assert.equal(res.headers.get("cache-control"), "public, max-age=3600", what);
  assert.equal(res.headers.get("access-control-allow-origin"), "*", what);
}

const isAbsoluteUrl = (value: unknown) => typeof value === "string" && /^https?:\/\/[^/]/.test(value) && new URL(value).href.length > 0;

/** RFC 9264 section 4.2 (JSON linkset) as RFC 9727 uses it: anchors with arrays of target objects. */
function assertLinkset(doc: Json) {
  assert.deepEqual(Object.keys(doc), ["linkset"]);
  assert.ok(Array.isArray(doc.linkset) && doc.linkset.length > 0);
  for (const context of doc.linkset) {
    assert.ok(isAbsoluteUrl(context.anchor), `anchor ${context.anchor}`);
    for (const [relation, targets] of Object.entries<any>(context)) {
      if (relation === "anchor") continue;
      assert.match(relation, /^[a-z][a-z0-9.-]*$/, "a registered relation type");
      assert.ok(Array.isArray(targets) && targets.length > 0, `${relation} holds an array of targets`);
      for (const target of targets) {
        assert.ok(isAbsoluteUrl(target.href), `${relation} href ${target.href}`);
        for (const [name, value] of Object.entries(target)) if (name !== "href") assert.equal(typeof value, "string", `${relation}.${name}`);
      }
    }
  }
}

const hrefs = (context: Json, relation: string) => (context[relation] as Json[]).map((t) => t.href);

describe("discovery documents", () => {
  const clock = new TestClock(Date.UTC(2026, 10, 23, 12, 0, 0));
  let api: RunningApi;
  let mcp: RunningMcp;
  let site: Site;
  before(async () => {
    api = await startApi({ clock });
    mcp = await startMcp({ clock, baseUrl: api.url });
    site = await startSite(clock, { baseUrl: api.url, mcpUrl: mcp.url });
  });
  after(() => Promise.all([site.close(), mcp.close(), api.close()]));
  // Each test starts with a fresh rate-limit budget (two minutes on, the sliding minute is empty): the per-IP budget is tested on its own below.
  beforeEach(() => clock.advance(121_000));

  const siteDocuments = () => [
    "/.well-known/api-catalog",
    "/.well-known/ai-catalog.json",
    "/.well-known/agent-card.json",
    "/.well-known/mcp/server-card.json",
    "/.well-known/agent-skills/index.json",
    "/.well-known/agent-skills/rest-api/SKILL.md",
    "/.well-known/agent-skills/mcp/SKILL.md",
    "/.well-known/agent-skills/webhooks/SKILL.md",
    "/auth.md",
    "/AGENTS.md",
    "/sitemap.md",
    "/llms.txt",
  ];

  it("answers GET and HEAD of every document without credentials, cacheable for an hour from any origin", async () => {
    const urls = [
      ...siteDocuments().map((p) => site.url + p),
      `${api.url}/.well-known/api-catalog`,
      `${api.url}/auth.md`,
      `${api.url}/.well-known/ai-plugin.json`,
      `${mcp.url}/auth.md`,
      `${mcp.url}/.well-known/mcp/server-card.json`,
    ];
    for (const url of urls) {
      const got = await get(url);
      assert.equal(got.res.status, 200, url);
      assertDiscoveryHeaders(got.res, `GET ${url}`);
      assert.ok(got.bytes.length > 0, url);
      const head = await get(url, "HEAD");
      assert.equal(head.res.status, 200, `HEAD ${url}`);
      assertDiscoveryHeaders(head.res, `HEAD ${url}`);
      assert.equal(head.bytes.length, 0, `HEAD ${url} has no body`);
      assert.equal(head.res.headers.get("content-type"), got.res.headers.get("content-type"), `HEAD ${url} names the same type`);
    }
  });

  it("serves the API catalog on the site and the API host as an RFC 9727 linkset, anchored on {base_url}/v1 and {mcp_url}", async () => {
    for (const [host, urls] of [
      [site.url, { baseUrl: api.url, mcpUrl: mcp.url }],
      [api.url, { baseUrl: api.url, mcpUrl: MCP_URL }],
    ] as const) {
      const { res, text } = await get(`${host}/.well-known/api-catalog`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), LINKSET_TYPE);
      assert.equal(res.headers.get("link"), `<${host}/.well-known/api-catalog>; rel="api-catalog"`);
      const doc = JSON.parse(text) as Json;
      assertLinkset(doc);
      assert.deepEqual(
        doc.linkset.map((c: Json) => c.anchor),
        [`${urls.baseUrl}/v1`, urls.mcpUrl],
      );
      const [rest, mcpEntry] = doc.linkset as Json[];
      assert.deepEqual(Object.keys(rest!).sort(), ["anchor", "service-desc", "service-doc", "service-meta", "status"]);
      assert.deepEqual(hrefs(rest!, "service-desc"), [`${urls.baseUrl}/openapi.json`]);
      assert.deepEqual(hrefs(rest!, "service-doc"), [`${DOCS_URL}/guides/rest-api`, `${DOCS_URL}/guides/webhooks`]);
      assert.deepEqual(hrefs(rest!, "service-meta"), [`${urls.baseUrl}/.well-known/ai-plugin.json`]);
      assert.deepEqual(hrefs(rest!, "status"), [`${urls.baseUrl}/up`]);
      assert.deepEqual(Object.keys(mcpEntry!).sort(), ["anchor", "service-doc", "service-meta", "status"]);
      assert.deepEqual(hrefs(mcpEntry!, "service-doc"), [`${DOCS_URL}/guides/mcp`]);
      assert.deepEqual(hrefs(mcpEntry!, "service-meta"), [`${urls.mcpUrl}/.well-known/oauth-protected-resource`]);
      assert.deepEqual(hrefs(mcpEntry!, "status"), [`${urls.mcpUrl}/up`]);

      // RFC 9727 section 4.2: HEAD answers the Link header naming the catalog.
      const head = await get(`${host}/.well-known/api-catalog`, "HEAD");
      assert.equal(head.res.status, 200);
      assert.equal(head.res.headers.get("link"), `<${host}/.well-known/api-catalog>; rel="api-catalog"`);
      assert.equal(head.res.headers.get("content-type"), LINKSET_TYPE);
    }

    // The site's catalog points at live documents.
    const doc = JSON.parse((await get(`${site.url}/.well-known/api-catalog`)).text) as Json;
    const live = doc.linkset.flatMap((c: Json) => ["service-desc", "service-meta", "status"].flatMap((r) => (c[r] ? hrefs(c, r) : [])));
    for (const href of live) assert.equal((await fetch(href)).status, 200, href);
    assert.equal((await getJson(`${api.url}/openapi.json`)).openapi, "3.1.0");
  });

  it("lists every discovery document in the AI catalog with media type, address, description and sample queries", async () => {
    const catalog = await getJson(`${site.url}/.well-known/ai-catalog.json`);
    assert.equal(typeof catalog.name, "string");
    assert.equal(typeof catalog.description, "string");
    const documents = catalog.documents as Json[];
    for (const d of documents) {
      assert.ok(isAbsoluteUrl(d.url), d.url);
      assert.match(d.mediaType, /^[a-z]+\/[a-z0-9.+-]+/, d.url);
      assert.ok(d.description.length > 10, d.url);
      assert.ok(Array.isArray(d.sampleQueries) && d.sampleQueries.length > 0 && d.sampleQueries.every((q: unknown) => typeof q === "string"), d.url);
    }
    const listed = new Set(documents.map((d) => d.url));
    for (const path of [
      ...siteDocuments().filter((p) => !p.includes("/agent-skills/") || p.endsWith("index.json")),
      "/.well-known/http-message-signatures-directory",
    ])
      assert.ok(listed.has(site.url + path), `${path} is listed`);
    for (const url of [
      `${api.url}/.well-known/api-catalog`,
      `${api.url}/.well-known/ai-plugin.json`,
      `${mcp.url}/.well-known/mcp/server-card.json`,
      `${mcp.url}/.well-known/oauth-protected-resource`,
      `${AUTH_URL}/.well-known/oauth-authorization-server`,
    ])
      assert.ok(listed.has(url), `${url} is listed`);
    // Each document this test can reach answers with the media type the catalog gives it.
    for (const d of documents.filter((d) => !d.url.startsWith(AUTH_URL))) {
      const { res } = await get(d.url);
      assert.equal(res.status, 200, d.url);
      assert.equal(res.headers.get("content-type")?.split(";")[0], d.mediaType.split(";")[0], d.url);
    }
  });

  it("serves an A2A agent card: one MCP interface at 2026-07-28, capabilities false, oauth2 with PKCE and bearer, ability groups as skills", async () => {
    const card = await getJson(`${site.url}/.well-known/agent-card.json`);
    // A2A 1.0 AgentCard required members.
    for (const field of ["name", "description", "version"]) assert.ok(typeof card[field] === "string" && card[field].length > 0, field);
    for (const field of ["supportedInterfaces", "defaultInputModes", "defaultOutputModes", "skills"])
      assert.ok(Array.isArray(card[field]) && card[field].length > 0, field);
    for (const legacy of ["url", "preferredTransport", "protocolVersion", "supportsAuthenticatedExtendedCard", "security"])
      assert.ok(!(legacy in card), `no A2A 0.3 ${legacy}`);
    assert.equal(card.version, RELEASE);
    assert.deepEqual(card.supportedInterfaces, [
      { url: mcp.url, protocolBinding: "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports", protocolVersion: "2026-07-28" },
    ]);
    assert.deepEqual(card.capabilities, { streaming: false, pushNotifications: false, extendedAgentCard: false });
    assert.match(card.description, /A2A task methods .* are not served/);
    for (const mode of [...card.defaultInputModes, ...card.defaultOutputModes]) assert.match(mode, /^[a-z]+\/[a-z0-9.+-]+$/);
    assert.ok(isAbsoluteUrl(card.provider.url) && card.provider.organization);

    // Security schemes: each a oneof of the A2A 1.0 scheme messages.
    assert.deepEqual(Object.keys(card.securitySchemes).sort(), ["bearer", "oauth2"]);
    const oauth = card.securitySchemes.oauth2;
    assert.deepEqual(Object.keys(oauth), ["oauth2SecurityScheme"]);
    assert.deepEqual(Object.keys(oauth.oauth2SecurityScheme.flows), ["authorizationCode"]);
    const flow = oauth.oauth2SecurityScheme.flows.authorizationCode;
    assert.equal(flow.authorizationUrl, `${AUTH_URL}/oauth/authorize`);
    assert.equal(flow.tokenUrl, `${AUTH_URL}/oauth/token`);
    assert.deepEqual(Object.keys(flow.scopes), ["mcp:use"]);
    assert.equal(flow.pkceRequired, true);
    assert.deepEqual(card.securitySchemes.bearer, {
      httpAuthSecurityScheme: { description: card.securitySchemes.bearer.httpAuthSecurityScheme.description, scheme: "Bearer" },
    });
    for (const requirement of card.securityRequirements)
      for (const name of Object.keys(requirement.schemes)) assert.ok(name in card.securitySchemes, name);

    // Skills: the ability categories, tagged with exactly the MCP tools their abilities gate.
    const categoryOf = new Map<string, string>(abilities.abilities.map((a: Json) => [a.value, a.category]));
    const seen = new Set<string>();
    for (const skill of card.skills) {
      for (const field of ["id", "name", "description"]) assert.ok(typeof skill[field] === "string" && skill[field].length > 0, field);
      assert.ok(skill.id in abilities.categories, `${skill.id} is an ability category`);
      assert.ok(skill.tags.length > 0);
      const expected = tools.tools.filter((t: Json) => categoryOf.get(t.ability) === skill.id).map((t: Json) => t.name);
      assert.deepEqual(skill.tags, expected, skill.id);
      for (const tag of skill.tags) seen.add(tag);
    }
    assert.equal(new Set(card.skills.map((s: Json) => s.id)).size, card.skills.length, "skill ids are unique");
    assert.equal(seen.size, tools.count, "every MCP tool is tagged in one skill");
  });

  it("serves the MCP server card on the site as on the MCP host, and the release equals the MCP handshake's", async () => {
    const onSite = await getJson(`${site.url}/.well-known/mcp/server-card.json`);
    const onMcp = await getJson(`${mcp.url}/.well-known/mcp/server-card.json`);
    assert.deepEqual(onSite, onMcp);
    for (const field of [
      "serverInfo",
      "protocolVersion",
      "supportedProtocolVersions",
      "transport",
      "remotes",
      "authentication",
      "capabilities",
      "documentationUrl",
      "toolCatalogUrl",
    ])
      assert.ok(field in onSite, field);
    assert.deepEqual(onSite.transport, { type: "streamable-http", endpoint: mcp.url });
    assert.deepEqual(onSite.authentication.schemes, ["oauth2", "bearer"]);
    assert.deepEqual(onSite.authentication.scopes, ["mcp:use"]);
    assert.equal(onSite.capabilities.tools.count, tools.count);

    const card = await getJson(`${site.url}/.well-known/agent-card.json`);
    const creator = await createTestCreator();
    const client = await connectMcp(mcp, creator.token);
    try {
      const handshake = client.getServerVersion()?.version;
      assert.equal(handshake, RELEASE);
      assert.equal(onSite.serverInfo.version, handshake);
      assert.equal(card.version, handshake);
    } finally {
      await client.close();
    }
  });

  it("serves the Agent Skills index (0.2.0): every digest is the SHA-256 of the bytes its url serves, every SKILL.md has YAML front matter", async () => {
    const index = await getJson(`${site.url}/.well-known/agent-skills/index.json`);
    assert.equal(index.$schema, "https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    assert.deepEqual(
      index.skills.map((s: Json) => s.name),
      ["rest-api", "mcp", "webhooks"],
    );
    for (const entry of index.skills) {
      assert.deepEqual(Object.keys(entry).sort(), ["description", "digest", "name", "type", "url"]);
      assert.match(entry.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(entry.name.length <= 64);
      assert.equal(entry.type, "skill-md");
      assert.ok(entry.description.length > 0 && entry.description.length <= 1024);
      assert.equal(entry.url, `${site.url}/.well-known/agent-skills/${entry.name}/SKILL.md`);
      assert.match(entry.digest, /^sha256:[0-9a-f]{64}$/);

      const { res, bytes, text } = await get(entry.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(`sha256:${createHash("sha256").update(bytes).digest("hex")}`, entry.digest, `${entry.name}'s digest`);
      const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
      assert.ok(match, `${entry.name} opens with YAML front matter`);
      const front = parseYaml(match[1]!) as Json;
      assert.equal(front.name, entry.name);
      assert.equal(front.description, entry.description);
      assert.ok(text.slice(match[0].length).trim().startsWith("# "), "a Markdown body follows");
    }
    const mcpSkill = (await get(`${site.url}/.well-known/agent-skills/mcp/SKILL.md`)).text;
    for (const set of tools.toolsets) assert.ok(mcpSkill.includes(`\`${set.name}\``), `the mcp skill names toolset ${set.name}`);
  });

  it("serves the same auth.md on the site, the API host and the MCP host", async () => {
    const bodies: string[] = [];
    for (const host of [site.url, api.url, mcp.url]) {
      const { res, text } = await get(`${host}/auth.md`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
      bodies.push(text);
    }
    // The API test host names a placeholder MCP address; the site and the MCP host name the real one.
    assert.equal(bodies[0], bodies[2]);
    const auth = bodies[0]!;
    for (const needle of [
      `POST ${AUTH_URL}/agent/identity`,
      `${AUTH_URL}/agent/identity/claim`,
      "grant_type=urn:example:agent-auth:grant-type:claim",
      `POST ${AUTH_URL}/oauth/register`,
      `GET ${AUTH_URL}/oauth/authorize`,
      "code_challenge_method=S256",
      "scope=mcp:use",
      "grant_type=refresh_token",
      `${AUTH_URL}/tokens`,
      `resource_metadata="${mcp.url}/.well-known/oauth-protected-resource"`,
      "sbt_",
      "authorization_pending",
      "slow_down",
      "TENANT_MISMATCH",
    ])
      assert.ok(auth.includes(needle), `auth.md mentions ${needle}`);
    assert.match(auth, /^# /);
  });

  it("serves AGENTS.md, sitemap.md and llms.txt with counts from the catalogs and absolute links", async () => {
    const agents = await get(`${site.url}/AGENTS.md`);
    assert.equal(agents.res.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.match(agents.text, /^# AGENTS\.md/);
    assert.ok(agents.text.includes(`${tools.count} tools`), "the tool count from mcp-tools.json");
    assert.ok(agents.text.includes(`${abilities.count} exist`), "the ability count from abilities.json");
    assert.ok(agents.text.includes(`${site.url}/auth.md`));

    const sitemap = await get(`${site.url}/sitemap.md`);
    assert.equal(sitemap.res.headers.get("content-type"), "text/markdown; charset=utf-8");
    const links = [...sitemap.text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 10);
    for (const link of links) assert.ok(isAbsoluteUrl(link), link);
    for (const path of siteDocuments()) assert.ok(links.includes(site.url + path), `sitemap lists ${path}`);

    // llms.txt: an H1 title, a blockquote summary, then H2 sections of "- [name](url): notes" lists.
    const llms = await get(`${site.url}/llms.txt`);
    assert.equal(llms.res.headers.get("content-type"), "text/plain; charset=utf-8");
    const lines = llms.text.split("\n");
    assert.equal(lines[0], "# SubBridge");
    assert.match(lines[2]!, /^> \S/);
    assert.ok(lines.includes("## Optional"));
    for (const line of lines.filter((l) => l.startsWith("- "))) assert.match(line, /^- \[[^\]]+\]\(https?:\/\/[^)]+\)(: .+)?$/, line);
  });

  it("serves {base_url}/.well-known/ai-plugin.json naming the OpenAPI document", async () => {
    const plugin = await getJson(`${api.url}/.well-known/ai-plugin.json`);
    assert.equal(plugin.schema_version, "v1");
    for (const field of ["name_for_human", "name_for_model", "description_for_human", "description_for_model"])
      assert.equal(typeof plugin[field], "string", field);
    assert.match(plugin.name_for_model, /^[a-z0-9_]+$/);
    assert.deepEqual(plugin.auth, { type: "user_http", authorization_type: "bearer" });
    assert.equal(plugin.api.type, "openapi");
    assert.equal(plugin.api.url, `${api.url}/openapi.json`);
    const openapi = await getJson(plugin.api.url);
    assert.equal(openapi.openapi, "3.1.0");
  });

  it("refuses the 61st discovery request of a minute from one IP with 429 and Retry-After", async () => {
    const own = new TestClock(Date.UTC(2026, 10, 23, 12, 0, 0));
    const limited = await startSite(own, { baseUrl: api.url, mcpUrl: mcp.url });
    try {
      const paths = siteDocuments();
      for (let i = 0; i < 60; i++) {
        const res = await fetch(limited.url + paths[i % paths.length], { method: i % 3 === 0 ? "HEAD" : "GET" });
        assert.equal(res.status, 200, `request ${i + 1}`);
        await res.arrayBuffer();
      }
      const refused = await fetch(`${limited.url}/.well-known/agent-card.json`);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("retry-after"), "61", "the minute's 60 s, then until its 61 counted fade below 60");
      assert.equal(refused.headers.get("access-control-allow-origin"), "*");
      assert.notEqual(refused.headers.get("cache-control"), "public, max-age=3600", "a refusal is not cached as the document");
      assert.equal(((await refused.json()) as Json).error.code, "RATE_LIMITED");
      own.advance(61_000);
      assert.equal((await fetch(`${limited.url}/.well-known/agent-card.json`)).status, 200);
    } finally {
      await limited.close();
    }
  });
});
