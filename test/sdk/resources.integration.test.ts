// The program with the resource methods against the real API in-process: list projects,
// install Telegram (a bot on the fake platform), create a resource and a plan with an idempotency
// key (the same key again answers the same plan), paginate, typed errors, and the server taking the
// SDK's User-Agent.
import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { newTelegramBot } from "../helpers/platforms.ts";
import { createClient, NotFoundError, PermissionError, SDK_VERSION, ValidationError, type SubBridgeClient } from "../../sdk/src/index.ts";

describe("sdk resource methods against the live API", function () {
  this.timeout(30_000);
  let api: RunningApi;
  let creator: TestCreator;
  let sb: SubBridgeClient;
  /** Every request the client sent, and the status it got. */
  const sent: { method: string; url: string; headers: Headers; status: number }[] = [];

  before(async () => {
    api = await startApi();
    creator = await createTestCreator({ label: "sdk-resources", projects: 1 });
    const recordingFetch = async (request: Request) => {
      const response = await fetch(request.clone());
      sent.push({ method: request.method, url: request.url, headers: new Headers(request.headers), status: response.status });
      return response;
    };
    sb = createClient({ baseUrl: `${api.url}/v1`, token: creator.token, fetch: recordingFetch });
  });
  after(() => api.close());
  beforeEach(() => void sent.splice(0));

  it("runs the issue's program: projects, Telegram, a resource, a plan (the same key twice, one plan), pages", async () => {
    const projects = await sb.projects.list({ per_page: 50 });
    assert.ok(projects.data.length >= 1);
    const project = projects.data[0]!.id;
    assert.equal(new URL(sent[0]!.url).search, "?per_page=50&page=1");

    const bot = await newTelegramBot("sdk");
    const installed = await sb.projectConnectors.install(
      project,
      "telegram",
      { fields: { bot_token: bot.token } },
      { idempotencyKey: `install-${project}` },
    );
    assert.equal(installed.data.connector, "telegram");
    assert.equal(installed.data.status, "active");

    // No defaulted field spelled out (early_admission_hold, active).
    const { data: resource } = await sb.resources.create(project, { kind: "perk", title: "Monthly call" });
    assert.equal(resource.active, true);

    const key = `plan-${crypto.randomUUID()}`;
    const body = { name: "Monthly", price: { amount: 900, currency: "EUR" }, billing_cycle: "month" as const, resources: [resource.id] };
    const first = await sb.plans.create(project, body, { idempotencyKey: key });
    const again = await sb.plans.create(project, body, { idempotencyKey: key });
    assert.equal(again.data.id, first.data.id, "the same key answers the same plan");
    assert.deepEqual(again, first);
    assert.equal(first.data.billing_cycle_count, 1, "defaults filled in by the server");
    assert.equal(first.data.trial_days, 0);
    const creates = sent.filter((s) => s.method === "POST" && s.url.endsWith("/plans"));
    assert.deepEqual(
      creates.map((s) => s.headers.get("idempotency-key")),
      [key, key],
    );

    for (let i = 0; i < 4; i++) await sb.plans.create(project, { ...body, name: `Plan ${i}` });
    sent.splice(0);
    const names: string[] = [];
    for await (const plan of sb.plans.list(project, { per_page: 2 })) names.push(plan.name);
    assert.equal(names.length, 5);
    assert.equal(sent.length, 3, "three pages of two");
    const two = await sb.plans.list(project, { per_page: 2 }).toArray({ limit: 3 });
    assert.equal(two.length, 3);
    const pages: number[] = [];
    for await (const page of sb.plans.list(project, { per_page: 2 }).pages()) pages.push(page.meta.current_page);
    assert.deepEqual(pages, [1, 2, 3]);

    const retrieved = await sb.plans.retrieve(project, first.data.id);
    assert.equal(retrieved.data.name, "Monthly");
    const updated = await sb.plans.update(project, first.data.id, { description: "Monthly access" });
    assert.equal(updated.data.description, "Monthly access");
    // The activity log records the SDK's writes as any other.
    const log = await sb.activity.list({ subject_type: "plan", subject_id: first.data.id });
    assert.ok(log.data.length >= 2, JSON.stringify(log));
    assert.equal(await sb.projectConnectors.uninstall(project, "telegram"), undefined);
  });

  it("throws typed errors: not found, a bad body's fields, a missing ability", async () => {
    const project = creator.projectIds[0]!;
    const missing = await sb.plans.retrieve(project, crypto.randomUUID()).catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError, String(missing));
    assert.equal(missing.requestId, missing.headers?.get("x-request-id"));
    const invalid = await sb.projects.create({ name: "" }).catch((e: unknown) => e);
    assert.ok(invalid instanceof ValidationError, String(invalid));
    assert.ok(invalid.fields?.name);
    const narrow = createClient({ baseUrl: api.url, token: (await tokenFor(creator, ["team:view"])).token });
    const denied = await narrow.plans.list(project).catch((e: unknown) => e);
    assert.ok(denied instanceof PermissionError, String(denied));
    assert.equal(denied.requiredAbility, "project-subscription-plan:view-any");
  });

  it("sends the SDK's User-Agent, which the server takes", async () => {
    const { data } = await sb.system.ping();
    assert.equal(data.status, "ok");
    const agent = sent[0]!.headers.get("user-agent") ?? "";
    assert.ok(agent.startsWith(`subbridge-sdk-typescript/${SDK_VERSION} (node `), agent);
    assert.equal(sent[0]!.status, 200);
  });
});
