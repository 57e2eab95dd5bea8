// The way in (issue 47): the official client connects and calls tools when built exactly as the MCP
// guide's snippet shows (the snippet itself is run, taken from the rendered guide), and a client
// that opens with the 2025 handshake (the official client at its default, any 1.x client's
// initialize) is refused with -32022 whose message and data name 2026-07-28 and the guide.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { guidePages } from "../../src/apps/docs/pages/guides.ts";
import { DOCS_URL } from "../helpers/server.ts";
import { ENVELOPE_META, FRESH, MCP_PROTOCOL, rawRequest, useMcpWithCreator } from "../helpers/mcp.ts";

const GUIDE_SECTION = `${DOCS_URL}/guides/mcp#protocol-version`;
const SNIPPET_IMPORT = 'import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";';

/** The TypeScript snippet under "The official TypeScript SDK" in the guide as served for `mcpUrl`. */
function guideSnippet(mcpUrl: string): string {
  const guide = guidePages({ baseUrl: "http://api.test", mcpUrl, authUrl: "http://auth.test", siteUrl: "http://site.test", docsUrl: DOCS_URL }).find(
    (page) => page.path === "/guides/mcp",
  )!;
  const section = guide.markdown.split("### The official TypeScript SDK")[1]!;
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(snippet, "the guide shows a TypeScript snippet for the official SDK");
  return snippet;
}

/**
 * Runs the snippet as written: it is plain JavaScript apart from its import, which is checked and
 * given the real package's exports; it returns the client and what it got.
 */
async function runSnippet(snippet: string): Promise<{ client: Client; tools: { name: string }[]; projects: any }> {
  const [importLine, ...body] = snippet.split("\n");
  assert.equal(importLine, SNIPPET_IMPORT);
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<any>;
  const run = new AsyncFunction("Client", "StreamableHTTPClientTransport", `${body.join("\n")}\nreturn { client, tools, projects };`);
  return run(Client, StreamableHTTPClientTransport);
}

function assertExplained(error: { code: number; message: string; data: Record<string, unknown> }, requested: string | undefined) {
  assert.equal(error.code, -32022);
  assert.match(error.message, /this server speaks MCP 2026-07-28 only/);
  assert.match(error.message, /versionNegotiation: \{ mode: "auto" \}/);
  assert.ok(error.message.endsWith(`See ${GUIDE_SECTION}`), error.message);
  assert.deepEqual(error.data.supported, [MCP_PROTOCOL]);
  assert.equal(error.data.requested, requested ?? error.data.requested);
  assert.equal(error.data.docs_url, GUIDE_SECTION);
  assert.match(String(error.data.remediation), /@modelcontextprotocol\/client/);
}

describe("mcp: the documented client configuration", () => {
  const suite = useMcpWithCreator();
  let savedToken: string | undefined;
  before(() => {
    savedToken = process.env.SUBBRIDGE_TOKEN;
    process.env.SUBBRIDGE_TOKEN = suite.creator.token;
  });
  after(() => {
    if (savedToken === undefined) delete process.env.SUBBRIDGE_TOKEN;
    else process.env.SUBBRIDGE_TOKEN = savedToken;
  });

  it("connects the official client exactly as the guide's snippet builds it, lists tools and calls one", async () => {
    const snippet = guideSnippet(suite.mcp.url);
    assert.match(snippet, /versionNegotiation: \{ mode: "auto" \}/);
    const { client, tools, projects } = await runSnippet(snippet);
    try {
      assert.equal(client.getProtocolEra(), "modern");
      assert.equal(client.getNegotiatedProtocolVersion(), MCP_PROTOCOL);
      assert.ok(
        tools.some((t) => t.name === "list_projects"),
        "list_projects is listed",
      );
      assert.equal(projects.isError, undefined, JSON.stringify(projects));
      assert.equal(projects.structuredContent.data[0].id, suite.creator.projectIds[0]);
    } finally {
      await client.close();
    }
  });

  it("refuses the official client at its default (legacy) negotiation, saying which version and where the guide is", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(suite.mcp.url), {
      requestInit: { headers: { Authorization: `Bearer ${suite.creator.token}` } },
    });
    const client = new Client({ name: "default-client", version: "1.0.0" });
    try {
      await assert.rejects(client.connect(transport), (err: Error) => {
        // The SDK's legacy leg reports the HTTP answer's body: the explained refusal.
        const body = JSON.parse(err.message.slice(err.message.indexOf("{")));
        assertExplained(body.error, undefined);
        assert.match(body.error.message, /^Unsupported protocol version 20\d\d-\d\d-\d\d:/);
        return true;
      });
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it("answers a 1.x client's initialize with a JSON-RPC error naming 2026-07-28 and the guide", async () => {
    const res = await rawRequest(suite.mcp, "POST", "/", {
      headers: {
        authorization: `Bearer ${suite.creator.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "one-x-client", version: "1.17.0" } },
      }),
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.jsonrpc, "2.0");
    assert.equal(res.body.id, 0);
    assertExplained(res.body.error, "2025-06-18");
    assert.match(res.body.error.message, /^Unsupported protocol version 2025-06-18: /);
  });

  it("explains a request that names no version, and one that names a revision not served", async () => {
    const bare = await rawRequest(suite.mcp, "POST", "/", {
      headers: { authorization: `Bearer ${suite.creator.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} }),
    });
    assert.equal(bare.status, 400);
    assertExplained(bare.body.error, undefined);
    assert.match(bare.body.error.message, /^The request named no 2026-era protocol version: /);

    const future = await rawRequest(suite.mcp, "POST", "/", {
      headers: {
        authorization: `Bearer ${suite.creator.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2027-01-01",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/list",
        params: { _meta: { ...ENVELOPE_META, "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
      }),
    });
    assert.equal(future.status, 400, JSON.stringify(future.body));
    assert.equal(future.body.id, 4);
    assertExplained(future.body.error, "2027-01-01");
  });

  it("says the same on the server card and in subbridge://guides/getting-started", async () => {
    const card = (await rawRequest(suite.mcp, "GET", "/.well-known/mcp/server-card.json")).body;
    assert.deepEqual(card.connecting.officialClient.options, { versionNegotiation: { mode: "auto" } });
    assert.equal(card.connecting.protocolVersion, MCP_PROTOCOL);
    assert.equal(card.connecting.guideUrl, GUIDE_SECTION);

    const client = await suite.connect(suite.creator.token);
    const { contents } = await client.readResource({ uri: "subbridge://guides/getting-started" }, FRESH);
    const guide = (contents[0] as { text: string }).text;
    assert.match(guide, /## Connecting\n/);
    assert.ok(guide.includes('versionNegotiation: { mode: "auto" }'), "the resource shows the client setting");
    assert.ok(guide.includes(GUIDE_SECTION), "the resource links the guide section");
  });
});
