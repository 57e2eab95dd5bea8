// The server card and the tool catalog report true numbers: the tool count is the number of RM
// operations, the resource count what resources/list answers, the version the release.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createTestCreator } from "../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { AUTH_URL, connectMcp, FRESH, rawRequest, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { DOCS_URL } from "../helpers/server.ts";
import { TestClock } from "../helpers/clock.ts";

type Json = Record<string, any>;
const openapi: Json = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
const abilities: Json = JSON.parse(readFileSync(new URL("../../generated/abilities.json", import.meta.url), "utf8"));
const rm = new Set(abilities.abilities.filter((a: Json) => a.enforcement === "RM").map((a: Json) => a.value));
const rmOperationCount = Object.values<Json>(openapi.paths)
  .flatMap((item) => Object.values<Json>(item))
  .filter((op) => op && typeof op === "object" && rm.has(op["x-ability"]) && op["x-rest-only"] !== true).length;

describe("mcp discovery documents", () => {
  let api: RunningApi;
  let mcp: RunningMcp;
  before(async () => {
    api = await startApi();
    mcp = await startMcp({ baseUrl: api.url });
  });
  after(() => Promise.all([mcp.close(), api.close()]));

  it("serves the server card with true counts and the release", async () => {
    const res = await rawRequest(mcp, "GET", "/.well-known/mcp/server-card.json");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const card = res.body;
    assert.deepEqual(card.serverInfo, {
      name: "subbridge",
      title: "SubBridge",
      version: "3.0.0",
      description: card.serverInfo.description,
    });
    assert.equal(card.protocolVersion, "2026-07-28");
    assert.deepEqual(card.supportedProtocolVersions, ["2026-07-28"]);
    assert.deepEqual(card.transport, { type: "streamable-http", endpoint: mcp.url });
    assert.deepEqual(card.remotes, [{ type: "streamable-http", url: mcp.url }]);
    assert.deepEqual(card.authentication, {
      schemes: ["oauth2", "bearer"],
      resourceMetadataUrl: `${mcp.url}/.well-known/oauth-protected-resource`,
      authorizationServers: [AUTH_URL],
      scopes: ["mcp:use"],
    });
    assert.equal(card.documentationUrl, DOCS_URL);
    assert.equal(card.toolCatalogUrl, `${api.url}/mcp-tools.json`);

    const creator = await createTestCreator();
    const client = await connectMcp(mcp, creator.token);
    try {
      const { tools } = await client.listTools(undefined, FRESH);
      const { resources } = await client.listResources(undefined, FRESH);
      assert.deepEqual(card.capabilities, {
        tools: { count: rmOperationCount, listChanged: false },
        resources: { count: 6, listChanged: false },
        prompts: { count: 0, listChanged: false },
      });
      assert.equal(tools.length, rmOperationCount, "a token holding every ability sees every tool");
      assert.equal(resources.length, card.capabilities.resources.count);
      assert.equal(client.getServerVersion()?.version, card.serverInfo.version, "the handshake reports the same release");
    } finally {
      await client.close();
    }
  });

  it("serves {base_url}/mcp-tools.json: every tool with its ability", async () => {
    const res = await fetch(`${api.url}/mcp-tools.json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const catalog = (await res.json()) as { release: string; count: number; tools: { name: string; ability: string }[] };
    assert.equal(catalog.release, "3.0.0");
    assert.equal(catalog.count, rmOperationCount);
    assert.equal(catalog.tools.length, rmOperationCount);
    for (const tool of catalog.tools) {
      assert.match(tool.ability, /^[a-z-]+:[a-z-]+$/, tool.name);
      assert.ok(rm.has(tool.ability), `${tool.name}'s ability is RM`);
    }
  });

  it("answers unknown paths on the MCP host with the error envelope", async () => {
    const res = await rawRequest(mcp, "GET", "/nothing-here");
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    const wrongMethod = await rawRequest(mcp, "POST", "/up");
    assert.equal(wrongMethod.status, 405);
  });

  it("limits discovery documents to 60 requests a minute per IP", async () => {
    const clock = new TestClock(Date.UTC(2026, 10, 21, 12, 0, 0));
    const limited = await startMcp({ clock, baseUrl: api.url });
    try {
      for (let i = 0; i < 60; i++) {
        const path = i % 2 ? "/.well-known/mcp/server-card.json" : "/.well-known/oauth-protected-resource";
        assert.equal((await rawRequest(limited, "GET", path)).status, 200, `request ${i + 1}`);
      }
      const refused = await rawRequest(limited, "GET", "/.well-known/mcp/server-card.json");
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("retry-after"), "61", "the minute's 60 s, then until its 61 counted fade below 60");
      assert.equal(refused.headers.get("access-control-allow-origin"), "*");
      assert.equal(JSON.parse(refused.text).error.code, "RATE_LIMITED");
      clock.advance(61_000);
      assert.equal((await rawRequest(limited, "GET", "/.well-known/mcp/server-card.json")).status, 200);
    } finally {
      await limited.close();
    }
  });
});
