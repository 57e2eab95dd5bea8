// tools/call runs the REST pipeline: the same ability and tenancy checks, the generated
// validators, the same handlers; failures come back as isError results carrying the envelope.
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Client, CallToolResult, Tool } from "@modelcontextprotocol/client";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";
import { DOCS_URL } from "../helpers/server.ts";
import { connectMcp, FRESH, rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);

/** The error envelope of a failed call, checked for the encoding the getting-started guide documents. */
function toolError(result: CallToolResult, code: string): Record<string, any> {
  assert.equal(result.isError, true, `expected isError with ${code}, got ${JSON.stringify(result).slice(0, 300)}`);
  const envelope = result.structuredContent as { error: Record<string, any> };
  assert.equal(envelope.error.code, code);
  assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), envelope, "the text block holds the same envelope");
  for (const key of ["message", "docs_url", "remediation", "request_id"]) assert.equal(typeof envelope.error[key], "string", key);
  assert.equal(envelope.error.docs_url, `${DOCS_URL}/errors#${code.toLowerCase()}`);
  return envelope.error;
}

describe("mcp tool calls", () => {
  let mcp: RunningMcp;
  let creator: TestCreator;
  let client: Client;
  let tools: Map<string, Tool>;
  const others: Client[] = [];

  function assertMatchesOutputSchema(name: string, result: CallToolResult) {
    assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
    const schema = tools.get(name)!.outputSchema!;
    assert.ok(schema, `${name} declares an outputSchema`);
    const validate = ajv.compile(schema);
    assert.ok(validate(result.structuredContent), `${name}: ${ajv.errorsText(validate.errors)}`);
    assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), result.structuredContent);
  }

  before(async () => {
    mcp = await startMcp();
    creator = await createTestCreator();
    client = await connectMcp(mcp, creator.token);
    tools = new Map((await client.listTools(undefined, FRESH)).tools.map((t) => [t.name, t]));
  });
  after(async () => {
    await Promise.all([client.close(), ...others.map((c) => c.close())]);
    await mcp.close();
  });

  it("get_current_team answers the token's team, valid against its outputSchema", async () => {
    const result = await client.callTool({ name: "get_current_team", arguments: {} });
    assertMatchesOutputSchema("get_current_team", result);
    assert.equal((result.structuredContent as any).data.id, creator.teamId);
  });

  it("list_tokens answers a page with REST links, valid against its outputSchema", async () => {
    await tokenFor(creator, ["team:view"]);
    const result = await client.callTool({ name: "list_tokens", arguments: { per_page: 1, page: 2 } });
    assertMatchesOutputSchema("list_tokens", result);
    const page = result.structuredContent as any;
    assert.equal(page.data.length, 1);
    assert.ok(page.meta.total >= 2);
    assert.equal(page.meta.current_page, 2);
    assert.equal(page.links.first, "http://api.test/v1/tokens?per_page=1&page=1");
  });

  it("delete_token deletes a token, which stops working at once", async () => {
    const victim = await tokenFor(creator, ["team:view"]);
    const victimClient = await connectMcp(mcp, victim.token);
    others.push(victimClient);
    assert.notEqual((await victimClient.callTool({ name: "get_current_team", arguments: {} })).isError, true);

    const result = await client.callTool({ name: "delete_token", arguments: { token_id: victim.id } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent, undefined);
    assert.match((result.content[0] as { text: string }).text, /delete_token succeeded/);

    const after = await rawRpc(mcp, "tools/call", { token: victim.token, params: { name: "get_current_team", arguments: {} } });
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, "AUTHENTICATION_REQUIRED");
    const { db } = await testDatabase();
    const row = await db("personal_access_tokens").where({ id: victim.id }).first("revoked_at");
    assert.ok(row.revoked_at, "the token row is revoked");
  });

  it("answers TOKEN_MISSING_ABILITY naming the ability the REST operation requires", async () => {
    const narrow = await tokenFor(creator, ["team:view"]);
    const narrowClient = await connectMcp(mcp, narrow.token);
    others.push(narrowClient);
    const list = toolError(await narrowClient.callTool({ name: "list_tokens", arguments: {} }), "TOKEN_MISSING_ABILITY");
    assert.deepEqual(list.context, { required_ability: "token:view-any" });
    const del = toolError(await narrowClient.callTool({ name: "delete_token", arguments: { token_id: narrow.id } }), "TOKEN_MISSING_ABILITY");
    assert.equal(del.context.required_ability, "token:delete");
    assert.notEqual((await narrowClient.callTool({ name: "get_current_team", arguments: {} })).isError, true);
  });

  it("answers RESOURCE_NOT_FOUND for another team's token id, and leaves it alone", async () => {
    const other = await createTestCreator({ label: "other-team" });
    const error = toolError(await client.callTool({ name: "delete_token", arguments: { token_id: other.tokenId } }), "RESOURCE_NOT_FOUND");
    assert.equal(error.fields, undefined);
    const still = await rawRpc(mcp, "tools/call", { token: other.token, params: { name: "get_current_team", arguments: {} } });
    assert.equal(still.status, 200);
    assert.equal(still.body.result.structuredContent.data.id, other.teamId);
  });

  it("answers VALIDATION_FAILED with fields for bad and unknown arguments", async () => {
    const range = toolError(
      await client.callTool({ name: "list_tokens", arguments: { per_page: 0, sort_direction: "sideways" } }),
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(range.fields).sort(), ["per_page", "sort_direction"]);
    assert.deepEqual(range.fields.per_page, ["must be at least 1"]);

    const unknown = toolError(await client.callTool({ name: "get_current_team", arguments: { team: creator.teamId } }), "VALIDATION_FAILED");
    assert.deepEqual(unknown.fields, { team: ["is not a known argument of this tool"] });

    const pathType = toolError(await client.callTool({ name: "delete_token", arguments: { token_id: 42 } }), "VALIDATION_FAILED");
    assert.deepEqual(pathType.fields, { token_id: ["must be of type string"] });
    const missing = toolError(await client.callTool({ name: "delete_token", arguments: {} }), "VALIDATION_FAILED");
    assert.deepEqual(missing.fields, { token_id: ["is required"] });

    const activity = toolError(
      await client.callTool({ name: "get_activity_log", arguments: { subject_type: "App\\Models\\Team", subject_id: "nope", limit: 500 } }),
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(activity.fields).sort(), ["limit", "subject_id", "subject_type"]);
  });

  it("answers a malformed path id like REST does: RESOURCE_NOT_FOUND", async () => {
    toolError(await client.callTool({ name: "delete_token", arguments: { token_id: "not-a-number" } }), "RESOURCE_NOT_FOUND");
  });

  it("answers TENANT_MISMATCH for a token whose team its creator can no longer see", async () => {
    const stranger = await createTestCreator({ label: "stranger" });
    const orphan = await tokenFor(creator, ["team:view"]);
    const { db } = await testDatabase();
    await db("personal_access_tokens").where({ id: orphan.id }).update({ team_id: stranger.teamId });
    const orphanClient = await connectMcp(mcp, orphan.token);
    others.push(orphanClient);
    const error = toolError(await orphanClient.callTool({ name: "get_current_team", arguments: {} }), "TENANT_MISMATCH");
    assert.match(error.message, /team scope/);
  });

  it("puts the request id of the HTTP response into the envelope", async () => {
    const res = await rawRpc(mcp, "tools/call", { token: creator.token, params: { name: "delete_token", arguments: { token_id: "999999" } } });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.isError, true);
    assert.equal(res.body.result.structuredContent.error.code, "RESOURCE_NOT_FOUND");
    assert.equal(res.body.result.structuredContent.error.request_id, res.headers.get("x-request-id"));
  });

  it("answers every read tool that needs no argument with content valid against its outputSchema", async () => {
    const reads = [...tools.values()].filter((t) => t.annotations?.readOnlyHint && !(t.inputSchema.required ?? []).length);
    assert.ok(reads.some((t) => t.name === "list_tokens"));
    for (const tool of reads) assertMatchesOutputSchema(tool.name, await client.callTool({ name: tool.name, arguments: {} }));
  });

  it("reads get_activity_log with its own limit argument", async () => {
    const result = await client.callTool({ name: "get_activity_log", arguments: { subject_type: "team", subject_id: creator.teamId, limit: 1 } });
    assertMatchesOutputSchema("get_activity_log", result);
    assert.equal((result.structuredContent as any).data.length, 1);
  });
});
