// Issue 47: an agent sets a project up to a published plan over MCP alone, retrying its writes
// safely with idempotency_key, and hands its human one link when a payment method is missing:
// the project's payments page in the dashboard. The human's part (turning a method on there) is
// the page's own call, made here over REST as the page makes it through the SDK.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { testDatabase } from "../helpers/backends.ts";
import { newTelegramBot } from "../helpers/platforms.ts";
import { connectMcp, DASHBOARD_URL, FRESH, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { useApiWithCreator } from "../helpers/suite.ts";

const data = (result: CallToolResult): any => {
  assert.notEqual(result.isError, true, JSON.stringify(result.structuredContent).slice(0, 400));
  return (result.structuredContent as { data: unknown }).data;
};
const refusal = (result: CallToolResult, code: string): any => {
  assert.equal(result.isError, true, JSON.stringify(result.structuredContent).slice(0, 400));
  const { error } = result.structuredContent as { error: any };
  assert.equal(error.code, code, JSON.stringify(error));
  return error;
};

describe("an agent sets up a project over MCP (issue 47)", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ creator: { projects: 0 } });
  let mcp: RunningMcp;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  before(async () => {
    mcp = await startMcp({ baseUrl: suite.api.url });
    client = await connectMcp(mcp, suite.creator.token);
  });
  after(async () => {
    await client?.close();
    await mcp?.close();
  });

  it("a write retried with its idempotency_key creates once; other arguments under the key are refused", async () => {
    const key = randomUUID();
    const first = data(await call("create_project", { name: "Retried once", idempotency_key: key }));
    // Keys in another order are the same arguments.
    const again = data(await call("create_project", { idempotency_key: key, name: "Retried once" }));
    assert.equal(again.id, first.id);
    const { db } = await testDatabase();
    const rows = await db("projects").where({ team_id: suite.creator.teamId, name: "Retried once" }).count<{ n: string }[]>("id as n");
    assert.equal(Number(rows[0]!.n), 1, "one project for two calls with one key");
    const reused = refusal(await call("create_project", { name: "Another name", idempotency_key: key }), "IDEMPOTENCY_KEY_REUSED");
    assert.match(reused.message, /idempotency key/i);
    // Without a key every call is a new write, as before.
    const other = data(await call("create_project", { name: "Retried once twice" }));
    assert.notEqual(other.id, first.id);
    await mcp.settled();
    const entries: { properties: any }[] = await db("activity_log")
      .where({ team_id: suite.creator.teamId, event: "tool_invoked" })
      .select("properties");
    const outcomes = entries
      .map((e) => (typeof e.properties === "string" ? JSON.parse(e.properties) : e.properties))
      .filter((p) => p.tool === "create_project")
      .map((p) => String(p.outcome));
    assert.ok(outcomes.includes("replayed"), `the replay is recorded: ${outcomes.join(", ")}`);
  });

  it("an empty or overlong idempotency_key is refused, naming the argument", async () => {
    const empty = refusal(await call("create_project", { name: "Keyless", idempotency_key: "" }), "VALIDATION_FAILED");
    assert.ok(empty.fields.idempotency_key, JSON.stringify(empty.fields));
    const long = refusal(await call("create_project", { name: "Keyless", idempotency_key: "k".repeat(256) }), "VALIDATION_FAILED");
    assert.ok(long.fields.idempotency_key, JSON.stringify(long.fields));
  });

  it("project, resource, plan; publishing without a payment method hands over the payments page; once the human turns one on, publishing succeeds", async () => {
    const tools = new Map((await client.listTools(undefined, FRESH)).tools.map((t) => [t.name, t]));
    for (const name of ["list_payment_methods", "update_payment_method"])
      assert.ok(tools.get(name)!.description!.includes(`${DASHBOARD_URL}/projects/{project}/payments`), `${name} names the payments page`);
    assert.match(tools.get("create_plan")!.description!, /idempotency_key/);
    // The published catalog ({base_url}/mcp-tools.json) says what tools/list says: no placeholder left.
    const catalog = (await (await fetch(`${suite.api.url}/mcp-tools.json`)).json()) as { tools: { name: string; description: string }[] };
    for (const tool of catalog.tools) {
      assert.ok(!tool.description.includes("{payments_page}"), `${tool.name}: ${tool.description}`);
      if (tools.has(tool.name)) assert.equal(tool.description, tools.get(tool.name)!.description, tool.name);
    }

    const project = data(await call("create_project", { name: "Agent's community", idempotency_key: randomUUID() }));
    const bot = await newTelegramBot("agent");
    data(
      await call("install_connector", {
        project: project.id,
        connector: "telegram",
        fields: { bot_token: bot.token },
        idempotency_key: randomUUID(),
      }),
    );
    const perk = data(await call("create_resource", { project: project.id, kind: "perk", title: "Monthly call", idempotency_key: randomUUID() }));
    const plan = data(
      await call("create_plan", {
        project: project.id,
        name: "Supporter",
        price: { amount: 500, currency: "EUR" },
        billing_cycle: "month",
        resources: [perk.id],
        idempotency_key: randomUUID(),
      }),
    );

    const page = `${DASHBOARD_URL}/projects/${project.id}/payments`;
    const refused = refusal(await call("publish_plan", { project: project.id, plan: plan.id }), "PAYMENT_METHOD_NOT_CONFIGURED");
    assert.equal(refused.context.payments_url, page);
    assert.ok(refused.remediation.includes(page), refused.remediation);

    // The human opens the page and turns the project's method on (the page's own call).
    const methods = await suite.client.get(`/v1/projects/${project.id}/payment-methods`);
    const method = methods.body.data[0];
    const turnedOn = await suite.client.patch(`/v1/projects/${project.id}/payment-methods/${method.id}`, {
      enabled: true,
      currencies: ["EUR"],
      billing_cycles: ["month"],
    });
    assert.equal(turnedOn.status, 200, JSON.stringify(turnedOn.body));

    const published = data(await call("publish_plan", { project: project.id, plan: plan.id, idempotency_key: randomUUID() }));
    assert.equal(published.status, "published");
  });

  it("REST's refusal names the same page", async () => {
    const project = (await suite.client.post("/v1/projects", { name: "REST community" })).body.data;
    const bot = await newTelegramBot("rest");
    const installed = await suite.client.post(`/v1/projects/${project.id}/connectors/telegram`, { fields: { bot_token: bot.token } });
    assert.ok(installed.status < 300, JSON.stringify(installed.body));
    const perk = (await suite.client.post(`/v1/projects/${project.id}/resources`, { kind: "perk", title: "Sticker" })).body.data;
    const body = { name: "Basic", price: { amount: 300, currency: "EUR" }, billing_cycle: "month", resources: [perk.id] };
    const plan = (await suite.client.post(`/v1/projects/${project.id}/plans`, body)).body.data;
    const res = await suite.client.post(`/v1/projects/${project.id}/plans/${plan.id}/publish`);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "PAYMENT_METHOD_NOT_CONFIGURED");
    assert.equal(res.body.error.context.payments_url, `${DASHBOARD_URL}/projects/${project.id}/payments`);
  });
});
