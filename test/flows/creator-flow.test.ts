// Issue 9's flow, end to end, over each of the creator's ways in (REST, MCP tools, the SDK): create a
// project, install Telegram, add a manual perk, enable the access-codes payment method, create and
// publish a plan granting the perk, generate access codes; a member redeems one in the bot; the
// creator task appears, the creator completes it, the grant is granted; the outbox holds
// subscription.created, creator_task.completed and member.resource_added for that grant, in order.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { operationTable, type OperationId } from "../../generated/operations.ts";
import { createClient } from "../../sdk/src/index.ts";
import { updatesSecret } from "../../src/modules/connectors/bot/session.ts";
import { testDatabase } from "../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../helpers/events.ts";
import { newTelegramBot } from "../helpers/platforms.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { expectReached, RestCaller } from "../tenancy/callers.ts";
import { useMcpBeside } from "../modules/connectors/support.ts";
import type { CallInput, CallResult, Caller } from "../tenancy/types.ts";

/** The SDK as a caller: the generated client's raw methods, by the operation's method and path. */
class SdkCaller implements Caller {
  readonly transport = "rest" as const;
  readonly label = "the SDK";
  private readonly client;
  constructor(baseUrl: string, token: string) {
    this.client = createClient({ baseUrl, token });
  }
  async call<Id extends OperationId>(id: Id, input: CallInput<Id> = {}): Promise<CallResult> {
    const op = operationTable[id];
    const send = (
      this.client.raw as unknown as Record<string, (path: string, init: object) => Promise<{ data?: unknown; error?: any; response: Response }>>
    )[op.method]!;
    const init = { params: { path: input.path ?? {}, query: input.query ?? {} }, ...(input.body !== undefined ? { body: input.body } : {}) };
    const { data, error, response } = await send(op.path, init);
    const request = `${op.method} ${op.path} (the SDK)`;
    if (response.ok) return { ok: true, transport: "rest", request, status: response.status, body: data ?? null };
    return { ok: false, transport: "rest", request, status: response.status, code: error?.error?.code, body: error };
  }
}

describe("a creator runs a paid community end to end", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ creator: { tier: "growth", projects: 0 } });
  const mcp = useMcpBeside(suite);

  const ways: [string, () => Promise<Caller>][] = [
    ["over REST", async () => new RestCaller(suite.api.url, suite.creator.token, "REST")],
    ["over MCP tools", () => mcp.creator()],
    ["through the SDK", async () => new SdkCaller(suite.api.url, suite.creator.token)],
  ];

  for (const [way, callerOf] of ways) {
    it(way, async () => {
      const creator = await callerOf();
      // Bodies as a client sends them (defaults left out), so typed loosely.
      const call = async (id: OperationId, input: { path?: object; query?: object; body?: object } = {}) => {
        const body = expectReached(await creator.call(id, input as CallInput<typeof id>), id);
        return (body?.data ?? body) as any;
      };

      const project = await call("create_project", { body: { name: `Flow ${way}` } });
      const bot = await newTelegramBot("flow");
      const installation = await call("install_connector", {
        path: { project: project.id, connector: "telegram" },
        body: { fields: { bot_token: bot.token } },
      });
      const perk = await call("create_resource", { path: { project: project.id }, body: { kind: "perk", title: "Signed print" } });
      assert.equal(perk.grant_mode, "creator_task");

      const [method] = (await call("list_payment_methods", { path: { project: project.id } })) as { id: string; provider: string }[];
      assert.equal(method?.provider, "access_codes");
      await call("update_payment_method", {
        path: { project: project.id, payment_method: method!.id },
        body: { enabled: true, currencies: ["EUR"], billing_cycles: ["month"] },
      });
      const plan = await call("create_plan", {
        path: { project: project.id },
        body: { name: "Supporter", price: { amount: 900, currency: "EUR" }, billing_cycle: "month", resources: [perk.id] },
      });
      await call("publish_plan", { path: { project: project.id, plan: plan.id } });
      const batch = await call("bulk_generate_access_codes", { path: { project: project.id, plan: plan.id }, body: { quantity: 2 } });
      const codes = batch.codes as { code: string }[];
      assert.equal(codes.length, 2);

      // The member opens the bot with the code (Telegram delivers the /start message).
      const member = randomInt(1_000_000, 9_999_999);
      const res = await fetch(`${suite.api.url}/connectors/telegram/${installation.id}/updates`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": updatesSecret(TEST_APP_KEY, installation.id) },
        body: JSON.stringify({
          update_id: 1,
          message: {
            message_id: 1,
            date: 0,
            chat: { id: member, type: "private" },
            from: { id: member, is_bot: false, first_name: "Flo" },
            text: `/start ${codes[0]!.code}`,
          },
        }),
      });
      assert.equal(res.status, 200);

      const tasks = (await call("list_creator_tasks", { path: { project: project.id } })) as any[];
      assert.equal(tasks.length, 1);
      const task = tasks[0]!;
      assert.equal(task.completed_at, null);
      const done = await call("complete_creator_task", { path: { project: project.id, creator_task: task.id } });
      assert.equal(done.completed_by_user_id, suite.creator.userId);

      const { db } = await testDatabase();
      const grant = await db("access_grants").where({ id: task.grant_id }).first();
      assert.equal(grant.status, "granted");
      const events = (await eventsOf(suite.creator.teamId)).filter((e) => e.project_id === project.id);
      for (const e of events) assertValidEvent(e);
      const order = events
        .filter((e) => ["subscription.created", "creator_task.completed", "member.resource_added"].includes(e.type))
        .map((e) => e.type);
      assert.deepEqual(order, ["subscription.created", "creator_task.completed", "member.resource_added"]);
      const aboutGrant = events.filter((e) => JSON.stringify(e.data).includes(task.grant_id)).map((e) => e.type);
      assert.ok(aboutGrant.includes("creator_task.completed") && aboutGrant.includes("member.resource_added"), aboutGrant.join(", "));
      const subscription = events.find((e) => e.type === "subscription.created")!;
      assert.equal((subscription.data as any).subscription?.id ?? (subscription.data as any).id, grant.subscription_id);
    });
  }
});
