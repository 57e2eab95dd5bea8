// Issue 47: tools a model can use without help. An empty tools/list says why, search_tools says
// when nothing matches and what to try, a path id that is no id is named as such, and a value
// refused by a pattern is told the rule in words.
import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { tokenFor } from "../helpers/fixtures.ts";
import { FRESH, rawRpc, useMcpWithCreator } from "../helpers/mcp.ts";

const refusal = (result: CallToolResult, code: string): any => {
  assert.equal(result.isError, true, JSON.stringify(result.structuredContent).slice(0, 400));
  const { error } = result.structuredContent as { error: any };
  assert.equal(error.code, code, JSON.stringify(error));
  return error;
};

describe("mcp tool guidance (issue 47)", () => {
  const suite = useMcpWithCreator();

  it("a token whose abilities admit no tool gets an empty list that says why, in the list and the instructions", async () => {
    const { token } = await tokenFor(suite.creator, ["team-member:view"]);
    const client = await suite.connect(token, { toolsets: null });
    const listed = await client.listTools(undefined, FRESH);
    assert.deepEqual(listed.tools, []);
    const reason = String(listed._meta?.["subbridge/empty_reason"]);
    assert.match(reason, /team-member:view/);
    assert.match(reason, /admit no tool/);
    assert.match(client.getInstructions() ?? "", /No tool is listed/);
  });

  it("a token whose tools are in other toolsets is told which to name", async () => {
    const { token } = await tokenFor(suite.creator, ["webhook-endpoint:view-any"]);
    const client = await suite.connect(token, { toolsets: null });
    const listed = await client.listTools(undefined, FRESH);
    assert.deepEqual(listed.tools, []);
    assert.match(String(listed._meta?.["subbridge/empty_reason"]), /webhooks/);
    // A token that lists tools gets no such note.
    const full = await suite.connect(suite.creator.token);
    const all = await full.listTools(undefined, FRESH);
    assert.ok(all.tools.length > 0);
    assert.equal(all._meta?.["subbridge/empty_reason"], undefined);
  });

  it("search_tools says when nothing matches, and names matching tools the token lacks abilities for", async () => {
    const full = await suite.connect(suite.creator.token, { toolsets: "dynamic" });
    const none = (await full.callTool({ name: "search_tools", arguments: { query: "zebra xylophone" } })).structuredContent as any;
    assert.equal(none.total, 0);
    assert.match(none.note, /No tool matches/);
    assert.match(none.note, /list_toolsets/);

    const { token } = await tokenFor(suite.creator, ["project:view-any"]);
    const narrow = await suite.connect(token, { toolsets: "dynamic" });
    const lacking = (await narrow.callTool({ name: "search_tools", arguments: { query: "webhook endpoint" } })).structuredContent as any;
    assert.equal(lacking.total, 0);
    assert.match(lacking.note, /list_webhook_endpoints \(webhook-endpoint:view-any\)/);

    const found = (await full.callTool({ name: "search_tools", arguments: { query: "webhook endpoint" } })).structuredContent as any;
    assert.ok(found.total > 0);
    assert.equal(found.note, undefined);
  });

  it("a path id that is not a UUID is named as no id, with the argument", async () => {
    const client = await suite.connect(suite.creator.token);
    const error = refusal(
      (await client.callTool({ name: "get_project", arguments: { project: "my-project" } })) as CallToolResult,
      "RESOURCE_NOT_FOUND",
    );
    assert.match(error.message, /project "my-project" is not an id: ids are UUIDs/);
    assert.equal(error.context.parameter, "project");
  });

  it("a value refused by a pattern is told the rule", async () => {
    const client = await suite.connect(suite.creator.token);
    const project = suite.creator.projectIds[0]!;
    const result = (await client.callTool({
      name: "create_plan",
      arguments: { project, name: "Lower", price: { amount: 100, currency: "eur" }, billing_cycle: "month", resources: [] },
    })) as CallToolResult;
    const error = refusal(result, "VALIDATION_FAILED");
    const messages: string[] = error.fields["price.currency"] ?? [];
    assert.ok(
      messages.some((m) => m.startsWith("must match ^[A-Z]{3}$: three upper-case letters")),
      JSON.stringify(error.fields),
    );
  });

  it("tools/list over a raw request carries the reason too", async () => {
    const { token } = await tokenFor(suite.creator, ["team-member:view"]);
    const res = await rawRpc(suite.mcp, "tools/list", { token, toolsets: null });
    assert.equal(res.status, 200);
    assert.match(String(res.body.result._meta["subbridge/empty_reason"]), /admit no tool/);
  });
});
