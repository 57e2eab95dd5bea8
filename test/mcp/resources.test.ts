// The six resources: catalogs every agent may cache, and the caller's own team and projects,
// scoped by tenancy, the project allow-list and abilities.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ProtocolError, type Client } from "@modelcontextprotocol/client";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { connectMcp, FRESH, rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";

const generated = (name: string) => JSON.parse(readFileSync(new URL(`../../generated/${name}`, import.meta.url), "utf8"));

describe("mcp resources", () => {
  let mcp: RunningMcp;
  let creator: TestCreator;
  let client: Client;
  const read = async (c: Client, uri: string) => {
    const result = await c.readResource({ uri }, FRESH);
    assert.equal(result.contents.length, 1);
    assert.equal(result.contents[0]!.uri, uri);
    return result.contents[0] as { uri: string; mimeType: string; text: string };
  };

  before(async () => {
    mcp = await startMcp();
    creator = await createTestCreator({ projects: 2 });
    client = await connectMcp(mcp, creator.token);
  });
  after(async () => {
    await client.close();
    await mcp.close();
  });

  it("lists six resources, each with a name, title, description and media type", async () => {
    const { resources } = await client.listResources(undefined, FRESH);
    assert.deepEqual(resources.map((r) => r.uri).sort(), [
      "subbridge://abilities",
      "subbridge://errors",
      "subbridge://guides/getting-started",
      "subbridge://team",
      "subbridge://toolsets",
      "subbridge://webhook-events",
    ]);
    for (const r of resources) {
      assert.ok(r.name && r.title && r.description && r.description.length > 40, r.uri);
      assert.ok(r.mimeType === "application/json" || r.mimeType === "text/markdown", r.uri);
    }
    assert.deepEqual((await client.listResourceTemplates(undefined, FRESH)).resourceTemplates, []);
  });

  it("serves the ability and error catalogs as generated", async () => {
    assert.deepEqual(JSON.parse((await read(client, "subbridge://abilities")).text), generated("abilities.json"));
    assert.deepEqual(JSON.parse((await read(client, "subbridge://errors")).text), generated("error-codes.json"));
  });

  it("serves the webhook events the description names, with their envelope", async () => {
    const catalog = JSON.parse((await read(client, "subbridge://webhook-events")).text);
    const names = catalog.events.map((e: { name: string }) => e.name);
    for (const name of ["subscription.created", "team.member.invited", "creator_task.completed", "member.resource_added", "billing.*"]) {
      assert.ok(names.includes(name), name);
    }
    assert.equal(new Set(names).size, names.length, "each event once");
    assert.match(catalog.note, /published/);
    assert.ok(catalog.envelope.api_version);
    const billing = catalog.events.find((e: { name: string }) => e.name === "billing.*");
    assert.equal(billing.required_ability, "billing:read");
    // The payment events (issue 33) come from the webhooks section, each with its payload schema; the note names the failure's.
    for (const name of ["payment.failed", "payment.disputed", "payment.dispute_closed", "subscription.reactivated"]) {
      const event = catalog.events.find((e: { name: string }) => e.name === name);
      assert.match(event?.payload_schema ?? "", new RegExp(`/openapi\\.json#/webhooks/${name.replace(".", "\\.")}$`), name);
    }
    assert.match(catalog.note, /payment\.failed/);
  });

  it("serves every toolset with its tools and abilities", async () => {
    const { toolsets } = JSON.parse((await read(client, "subbridge://toolsets")).text);
    const tools = generated("mcp-tools.json").tools as { name: string; ability: string }[];
    const listed = toolsets.flatMap((s: { tools: { name: string; ability: string }[] }) => s.tools);
    assert.deepEqual([...new Set(listed.map((t: { name: string }) => t.name))].sort(), tools.map((t) => t.name).sort());
    for (const t of listed) assert.equal(t.ability, tools.find((x) => x.name === t.name)!.ability);
    const tokens = toolsets.find((s: { name: string }) => s.name === "tokens");
    assert.equal(tokens.tag, "Tokens");
    assert.ok(tokens.abilities.includes("token:delete"));
  });

  it("serves the getting-started guide in Markdown, documenting the error encoding", async () => {
    const guide = await read(client, "subbridge://guides/getting-started");
    assert.equal(guide.mimeType, "text/markdown");
    for (const part of ["isError: true", "structuredContent", "X-MCP-Toolsets", "idempotency_key", "per_page", mcp.url]) {
      assert.ok(guide.text.includes(part), `mentions ${part}`);
    }
  });

  it("serves the caller's team and every project to an unrestricted token", async () => {
    const doc = JSON.parse((await read(client, "subbridge://team")).text);
    assert.equal(doc.team.id, creator.teamId);
    assert.deepEqual(doc.projects.map((p: { id: string }) => p.id).sort(), [...creator.projectIds].sort());
    assert.equal(doc.credential.project_allow_list, null);
    assert.equal(doc.credential.id, creator.tokenId);
    assert.equal(doc.hidden, undefined);
  });

  it("scopes the team resource to the allow-list and the abilities held", async () => {
    const restricted = await tokenFor(creator, ["team:view", "project:view-any"], [creator.projectIds[1]!]);
    const restrictedClient = await connectMcp(mcp, restricted.token);
    const narrow = await tokenFor(creator, ["activity:read"]);
    const narrowClient = await connectMcp(mcp, narrow.token);
    const other = await createTestCreator({ label: "other" });
    try {
      const doc = JSON.parse((await read(restrictedClient, "subbridge://team")).text);
      assert.deepEqual(
        doc.projects.map((p: { id: string }) => p.id),
        [creator.projectIds[1]],
      );
      assert.deepEqual(doc.credential.project_allow_list, [creator.projectIds[1]]);

      const bare = JSON.parse((await read(narrowClient, "subbridge://team")).text);
      assert.equal(bare.team, null);
      assert.equal(bare.projects, null);
      assert.deepEqual(bare.hidden, [
        { field: "team", required_ability: "team:view" },
        { field: "projects", required_ability: "project:view-any" },
      ]);
      assert.deepEqual(bare.credential.abilities, ["activity:read"]);
      assert.ok(!JSON.stringify(doc).includes(other.teamId));
    } finally {
      await Promise.all([restrictedClient.close(), narrowClient.close()]);
    }
  });

  it("caches documents publicly and the team resource only privately", async () => {
    const team = await rawRpc(mcp, "resources/read", { token: creator.token, params: { uri: "subbridge://team" } });
    assert.equal(team.body.result.cacheScope, "private");
    assert.equal(team.body.result.ttlMs, 0);
    const errors = await rawRpc(mcp, "resources/read", { token: creator.token, params: { uri: "subbridge://errors" } });
    assert.equal(errors.body.result.cacheScope, "public");
    assert.equal(errors.body.result.ttlMs, 3_600_000);
  });

  it("answers an unknown resource with -32602 naming the uri", async () => {
    await assert.rejects(
      client.readResource({ uri: "subbridge://nothing" }, FRESH),
      (err: unknown) => err instanceof ProtocolError && err.code === -32602 && (err.data as { uri: string }).uri === "subbridge://nothing",
    );
  });
});
