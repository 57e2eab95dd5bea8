// Every tool invocation, reads and failures included, is in the activity log with actor_kind
// mcp, the creator and the credential kind; writes also record their own domain entries as mcp.
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";
import { ApiClient } from "../helpers/http.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { connectMcp, ENVELOPE_META, rawRequest, rawToolHeaders, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import knex from "knex";
import { recordToolInvocation, toolInvocationEntry } from "../../src/modules/activity/tool-invocations.ts";
import { createDomainContext } from "../../src/db/tenant.ts";
import { loadConfig } from "../../src/config.ts";

/** The actor of an MCP call by the suite's creator (full token, no allow-list). */
function mcpActorOf(creator: { userId: string; teamId: string }, requestId: string) {
  return {
    userId: creator.userId,
    teamId: creator.teamId,
    projectIds: null,
    kind: "mcp" as const,
    credentialKind: "personal_access_token" as const,
    requestId,
  };
}

describe("mcp tool activity", () => {
  let api: RunningApi;
  let mcp: RunningMcp;
  let creator: TestCreator;
  let client: Client;
  before(async () => {
    api = await startApi();
    mcp = await startMcp({ baseUrl: api.url });
    creator = await createTestCreator();
    client = await connectMcp(mcp, creator.token);
  });
  after(async () => {
    await client.close();
    await Promise.all([mcp.close(), api.close()]);
  });

  const teamActivity = async () => {
    await mcp.settled(); // reads' and refusals' entries are written just after their answers
    const res = await new ApiClient(api.url, creator.token).get(`/v1/activity?subject_type=team&subject_id=${creator.teamId}&limit=200`);
    assert.equal(res.status, 200);
    return (res.body.data as Record<string, any>[]).filter((e) => e.event === "tool_invoked");
  };

  it("records reads, writes and failures against the team, readable over REST", async () => {
    const victim = await tokenFor(creator, ["team:view"]);
    const narrow = await tokenFor(creator, ["team:view"]);
    const narrowClient = await connectMcp(mcp, narrow.token);
    try {
      await client.callTool({ name: "get_current_team", arguments: {} });
      await client.callTool({ name: "delete_token", arguments: { token_id: victim.id } });
      await client.callTool({ name: "list_tokens", arguments: { per_page: 0 } });
      await narrowClient.callTool({ name: "list_tokens", arguments: {} });
    } finally {
      await narrowClient.close();
    }

    const entries = await teamActivity();
    const byTool = (tool: string, outcome: string) => entries.find((e) => e.properties.tool === tool && e.properties.outcome === outcome);
    const read = byTool("get_current_team", "ok");
    assert.ok(read, "the read is recorded");
    assert.equal(read.description, "MCP tool get_current_team called");
    assert.equal(read.subject_type, "team");
    assert.equal(read.subject_id, creator.teamId);
    assert.equal(read.project_id, null);
    assert.equal(read.actor_kind, "mcp");
    assert.equal(read.credential_kind, "personal_access_token");
    assert.equal(read.causer_type, "user");
    assert.equal(read.causer_id, creator.userId);
    assert.deepEqual(read.properties.arguments, {});
    assert.ok(read.request_id);

    const write = byTool("delete_token", "ok");
    assert.deepEqual(write?.properties.arguments, { token_id: victim.id });
    assert.ok(byTool("list_tokens", "VALIDATION_FAILED"), "a refused call is recorded with its error code");
    const missing = byTool("list_tokens", "TOKEN_MISSING_ABILITY");
    assert.ok(missing, "a call without the ability is recorded");

    // The write's own domain entry is in the same log, acting as mcp with the same request id.
    const { db } = await testDatabase();
    const deleted = await db("activity_log").where({ subject_type: "token", subject_id: victim.id, event: "deleted" }).first();
    assert.equal(deleted.actor_kind, "mcp");
    assert.equal(deleted.credential_kind, "personal_access_token");
    assert.equal(deleted.request_id, write!.request_id);
  });

  it("records nothing for a call refused before it names a tool", async () => {
    const before = (await teamActivity()).length;
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }));
    assert.equal((await teamActivity()).length, before);
  });

  it("records against a named project of the team, and never against a foreign one", async () => {
    const { db } = await testDatabase();
    const other = await createTestCreator({ label: "foreign" });
    const actor = mcpActorOf(creator, "r-1");
    const own = creator.projectIds[0]!;
    await recordToolInvocation(createDomainContext(db, actor, new Date()), {
      tool: "get_project",
      outcome: "ok",
      arguments: { project: own },
      projectId: own,
    });
    const foreign = other.projectIds[0]!;
    await recordToolInvocation(createDomainContext(db, { ...actor, requestId: "r-2" }, new Date()), {
      tool: "get_project",
      outcome: "RESOURCE_NOT_FOUND",
      arguments: { project: foreign },
      projectId: foreign,
    });
    const restricted = { ...actor, projectIds: [foreign], requestId: "r-3" };
    await recordToolInvocation(createDomainContext(db, restricted, new Date()), {
      tool: "get_project",
      outcome: "TENANT_MISMATCH",
      arguments: { project: own },
      projectId: own,
    });

    const rows = await db("activity_log").whereIn("request_id", ["r-1", "r-2", "r-3"]).orderBy("request_id");
    assert.deepEqual(
      rows.map((r: any) => [r.request_id, r.team_id, r.subject_type, r.subject_id, r.project_id]),
      [
        ["r-1", creator.teamId, "project", own, own],
        ["r-2", creator.teamId, "team", creator.teamId, null],
        ["r-3", creator.teamId, "team", creator.teamId, null],
      ],
    );
  });

  it("records against the team when the project lookup fails (the entry still goes)", async () => {
    const unreachable = knex({ client: "pg", connection: "postgres://127.0.0.1:1/none", pool: { min: 0, max: 1 }, acquireConnectionTimeout: 5_000 });
    try {
      const ctx = createDomainContext(unreachable, mcpActorOf(creator, "r-lookup"), new Date());
      const entry = await toolInvocationEntry(ctx, { tool: "get_project", outcome: "ok", arguments: {}, projectId: creator.projectIds[0]! });
      assert.deepEqual([entry.subjectType, entry.subjectId, entry.projectId], ["team", creator.teamId, null]);
    } finally {
      await unreachable.destroy();
    }
  });

  it("drops secret-like argument keys", async () => {
    const { db } = await testDatabase();
    const actor = mcpActorOf(creator, "r-secret");
    await recordToolInvocation(createDomainContext(db, actor, new Date()), {
      tool: "create_webhook_endpoint",
      outcome: "ok",
      arguments: { name: "hook", secret: "whsec_x", nested: { api_key: "k" } },
      projectId: null,
    });
    const row = await db("activity_log").where({ request_id: "r-secret" }).first();
    const properties = typeof row.properties === "string" ? JSON.parse(row.properties) : row.properties;
    assert.deepEqual(properties.arguments, { name: "hook", nested: {} });
  });

  it("records calls whose arguments no text column could take: NUL, unpaired surrogates, deep nesting, huge values", async () => {
    const { db } = await testDatabase();
    const rows = async () => db("activity_log").where({ team_id: creator.teamId, event: "tool_invoked" }).count({ n: "*" }).first();
    const before = Number((await rows())!.n);
    const deep = "[".repeat(10_000) + "]".repeat(10_000);
    const bodies = [
      `{"name":"list_tokens","arguments":{"sort_by":"na\\u0000me"}}`,
      `{"name":"list_tokens","arguments":{"sort_by":"\\ud800"}}`,
      `{"name":"list_tokens","arguments":{"sort_by":${deep}}}`,
      `{"name":"list_tokens","arguments":{"k\\u0000":${deep}}}`,
      `{"name":"list_tokens","arguments":{"per_page":"${"x".repeat(300_000)}"}}`,
    ];
    for (const params of bodies) {
      const res = await rawRpcText(params);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.body.result?.isError, true, res.text.slice(0, 300));
      assert.equal(res.body.result.structuredContent.error.code, "VALIDATION_FAILED");
    }
    await mcp.settled();
    assert.equal(Number((await rows())!.n), before + bodies.length, "one entry per invocation");
    const last = await db("activity_log").where({ team_id: creator.teamId, event: "tool_invoked" }).orderBy("seq", "desc").limit(bodies.length);
    for (const row of last) {
      const text = JSON.stringify(row.properties);
      assert.ok(text.length < 20_000, "stored arguments are bounded");
      assert.ok(!text.includes("\\u0000"), "no NUL stored");
    }
  });

  it("answers a read once its entry is committed when the operator asks for it (MCP_INVOCATION_ENTRIES=committed)", async () => {
    assert.equal(loadConfig({}, "1").mcpInvocationEntries, "recorded");
    assert.equal(loadConfig({ MCP_INVOCATION_ENTRIES: "committed" }, "1").mcpInvocationEntries, "committed");
    assert.throws(() => loadConfig({ MCP_INVOCATION_ENTRIES: "sometimes" }, "1"), /MCP_INVOCATION_ENTRIES must be recorded or committed/);

    const strict = await startMcp({ baseUrl: api.url, awaitInvocationEntries: true });
    try {
      const { db } = await testDatabase();
      for (const [tool, args, outcome] of [
        ["get_current_team", {}, "ok"],
        ["list_tokens", { per_page: 0 }, "VALIDATION_FAILED"],
      ] as const) {
        const res = await rawRequest(strict, "POST", "/", {
          headers: rawToolHeaders(tool, creator.token),
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args, _meta: ENVELOPE_META } }),
        });
        assert.equal(res.status, 200);
        // Read at once, without waiting for the writer: the answer came after the commit.
        const entry = await db("activity_log")
          .where({ request_id: res.headers.get("x-request-id") })
          .first();
        assert.equal(entry?.properties.tool, tool);
        assert.equal(entry?.properties.outcome, outcome);
      }
    } finally {
      await strict.close();
    }
  });

  /** A tools/call whose JSON params are written by hand (the SDK client would refuse or recurse). */
  async function rawRpcText(params: string) {
    const name = /"name":"([a-z_]+)"/.exec(params)![1]!;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${params.slice(0, -1)},"_meta":${JSON.stringify(ENVELOPE_META)}}}`;
    return rawRequest(mcp, "POST", "/", { headers: rawToolHeaders(name, creator.token), body });
  }
});
