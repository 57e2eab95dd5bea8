// /metrics on the operator's listener: after a few requests the counters show them by surface,
// operation and status (REST by operationId), MCP calls by tool and outcome, delivery attempts by
// outcome; the queues and the pool are read at scrape time; a configured METRICS_TOKEN is required.
// Also the MCP request's log line, which names the tool called.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import pino from "pino";
import { createMcpApp } from "../../src/apps/mcp/mcp-app.ts";
import { createMetricsApp } from "../../src/observability/metrics-app.ts";
import { readinessProbe } from "../../src/observability/readiness.ts";
import { deliverDue } from "../../src/workers/deliveries/worker.ts";
import { testDatabase, usingPostgres } from "../helpers/backends.ts";
import { rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { DOCS_URL, serveOnFreePort, TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "../helpers/server.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { queueMailAt } from "../../src/modules/mail/outbox.ts";
import { codesFor, redeem, seedPlan } from "../modules/subscriptions/commerce.ts";
import { createEndpoint, insertDelivery, startReceiver } from "../modules/webhooks/support.ts";

type Labels = Record<string, string>;

/** The samples of the Prometheus text format, as name, labels and value. */
function samples(text: string): { name: string; labels: Labels; value: number }[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(m, `a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none yet). */
function valueOf(text: string, name: string, labels: Labels = {}): number {
  const found = samples(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `one sample of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

const TOKEN = "metrics-scraper-token-0123456789";

describe("metrics (/metrics)", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { label: "metrics" } });
  let mcp: RunningMcp;
  let metricsUrl: string;
  const closers: (() => Promise<unknown>)[] = [];
  before(async () => {
    mcp = await startMcp({ baseUrl: suite.api.url });
    const { db, kv } = suite.api.deps;
    const metrics = await serveOnFreePort(() =>
      createMetricsApp({ db, logger: testLogger, docsUrl: DOCS_URL, release: "3.0.0", readiness: readinessProbe({ db, kv }), token: TOKEN }),
    );
    metricsUrl = metrics.url;
    closers.push(
      () => mcp.close(),
      () => metrics.close(),
    );
  });
  after(async () => {
    for (const close of closers) await close();
  });

  const scrape = async () => {
    const res = await fetch(`${metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it("asks for METRICS_TOKEN as a bearer token, in the error envelope", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789", TOKEN]) {
      const res = await fetch(`${metricsUrl}/metrics`, { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, "AUTHENTICATION_REQUIRED");
      assert.match(body.error.message, /METRICS_TOKEN/);
    }
    assert.equal((await fetch(`${metricsUrl}/up`)).status, 200);
    assert.equal((await fetch(`${metricsUrl}/ready`)).status, 200);
  });

  it("counts REST requests by operationId and status, with their latency", async () => {
    const before = await scrape();
    const labels = { surface: "api", operation: "get_current_team", status: "200" };
    for (let i = 0; i < 3; i++) assert.equal((await suite.client.get("/v1/teams/current")).status, 200);
    assert.equal((await suite.client.get(`/v1/projects/${randomUUID()}`)).status, 404);
    assert.equal((await suite.client.withToken("sbt_live_1_nothing").get("/v1/teams/current")).status, 401);
    assert.equal((await fetch(`${suite.api.url}/v1/no-such-route/${randomUUID()}`)).status, 404);
    const after = await scrape();
    const delta = (name: string, l: Labels) => valueOf(after, name, l) - valueOf(before, name, l);
    assert.equal(delta("subbridge_http_requests_total", labels), 3);
    assert.equal(delta("subbridge_http_request_duration_seconds_count", labels), 3);
    assert.ok(delta("subbridge_http_request_duration_seconds_sum", labels) > 0);
    assert.equal(delta("subbridge_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" }), 3);
    assert.equal(delta("subbridge_http_requests_total", { surface: "api", operation: "get_project", status: "404" }), 1);
    assert.equal(delta("subbridge_http_requests_total", { surface: "api", operation: "get_current_team", status: "401" }), 1);
    // A path no route claims is counted under one label, never its own path.
    assert.equal(delta("subbridge_http_requests_total", { surface: "api", operation: "unmatched", status: "404" }), 1);
    assert.ok(!after.includes("no-such-route"));
    // Node's own process metrics come along.
    assert.ok(valueOf(after, "process_cpu_user_seconds_total") > 0);
  });

  it("counts MCP calls by tool and outcome, a name outside the catalog as unknown", async () => {
    const before = await scrape();
    const call = (name: string, args: Record<string, unknown> = {}) =>
      rawRpc(mcp, "tools/call", { token: suite.creator.token, params: { name, arguments: args } });
    assert.equal((await call("get_current_team")).status, 200);
    assert.equal((await call("get_project", { project: randomUUID() })).status, 200);
    await call(`no_such_tool_${randomUUID().slice(0, 8)}`);
    const after = await scrape();
    const delta = (name: string, l: Labels) => valueOf(after, name, l) - valueOf(before, name, l);
    assert.equal(delta("subbridge_mcp_tool_calls_total", { tool: "get_current_team", outcome: "ok" }), 1);
    assert.equal(delta("subbridge_mcp_tool_calls_total", { tool: "get_project", outcome: "RESOURCE_NOT_FOUND" }), 1);
    assert.equal(delta("subbridge_mcp_tool_calls_total", { tool: "unknown", outcome: "not_found" }), 1);
    assert.equal(delta("subbridge_mcp_tool_call_duration_seconds_count", { tool: "get_current_team" }), 1);
    assert.ok(!after.includes("no_such_tool_"));
    assert.equal(delta("subbridge_http_requests_total", { surface: "mcp", operation: "tools/call", status: "200" }), 3);
  });

  it("reads the webhook delivery queue, the job queues and the pool at scrape time, and counts delivery attempts by outcome", async () => {
    const receiver = await startReceiver();
    closers.push(() => receiver.close());
    const endpoint = (await createEndpoint(suite.client, { url: receiver.url, events: ["project.*"] })).data;
    // Due a minute ago and claimed by nobody: the queue's age shows it.
    const past = new Date(Date.now() - 60_000);
    await insertDelivery(suite.creator.teamId, endpoint.id, { next_attempt_at: past, created_at: past, updated_at: past });
    const queued = await scrape();
    assert.ok(valueOf(queued, "subbridge_webhook_deliveries_queued") >= 1);
    assert.ok(valueOf(queued, "subbridge_webhook_deliveries_due") >= 1);
    assert.ok(valueOf(queued, "subbridge_webhook_deliveries_oldest_due_age_seconds") >= 55);
    for (const name of ["subbridge_jobs_queued", "subbridge_jobs_active", "subbridge_jobs_oldest_queued_age_seconds"]) {
      assert.match(queued, new RegExp(`^# TYPE ${name} gauge$`, "m"));
    }
    // The pool of a PostgreSQL database (PGlite in memory has none).
    if (usingPostgres) assert.ok(valueOf(queued, "subbridge_db_pool_max") > 0);

    // A real event, delivered by the worker's one-shot form: one attempt delivered.
    const res = await suite.client.request("PATCH", `/v1/projects/${suite.creator.projectIds[0]}`, { body: { name: "Renamed for metrics" } });
    assert.equal(res.status, 200);
    const { db } = await testDatabase();
    const before = valueOf(queued, "subbridge_webhook_delivery_attempts_total", { outcome: "delivered" });
    const outcomes = await deliverDue({
      db,
      appKey: TEST_APP_KEY,
      network: TEST_WEBHOOK_NETWORK,
      release: "3.0.0",
      logger: testLogger,
      now: new Date(Date.now() + 60_000),
      teams: [suite.creator.teamId],
    });
    const delivered = outcomes.filter((o) => o.status === "delivered").length;
    assert.ok(delivered >= 1, JSON.stringify(outcomes.map((o) => o.status)));
    const after = await scrape();
    assert.equal(valueOf(after, "subbridge_webhook_delivery_attempts_total", { outcome: "delivered" }) - before, delivered);
    await db("webhook_endpoints").where({ id: endpoint.id }).update({ is_active: false });
  });

  it("reads the mail and bot message outboxes (a message given up counts as failed) and the access the platforms have not followed", async () => {
    const { db } = await testDatabase();
    const past = new Date(Date.now() - 60_000);
    const to = `metrics-${randomUUID()}@example.com`;
    await queueMailAt(db, { to, subject: "Due a minute ago", body: "Nobody sent it yet." }, past);
    const before = await scrape();
    await db("mail_outbox").where({ to_address: to }).update({ status: "failed", last_error: "550 no such mailbox" });
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "bearer_link" }] });
    const [code] = await codesFor(suite.creator, plan);
    const { member } = await redeem(suite.creator, plan.projectId, code!, { connectorKey: "telegram", externalUserId: "7001", displayName: "Mo" });
    await db("access_grants")
      .where({ member_id: member.id })
      .update({ platform_attempts: 1, platform_error: "refused: Bad Request: not enough rights", created_at: past });
    const after = await scrape();

    assert.ok(valueOf(before, "subbridge_outbox_messages", { outbox: "mail", state: "due" }) >= 1);
    assert.ok(valueOf(before, "subbridge_outbox_oldest_due_age_seconds", { outbox: "mail" }) >= 55);
    assert.equal(
      valueOf(after, "subbridge_outbox_messages", { outbox: "mail", state: "failed" }) -
        valueOf(before, "subbridge_outbox_messages", { outbox: "mail", state: "failed" }),
      1,
    );
    for (const state of ["queued", "due", "sending", "failed"])
      assert.match(after, new RegExp(`^subbridge_outbox_messages\\{outbox="bot",state="${state}"\\} \\d+$`, "m"));
    assert.ok(valueOf(after, "subbridge_access_grants_unsynced", { state: "failing" }) >= 1);
    assert.ok(valueOf(after, "subbridge_access_grants_oldest_failing_age_seconds") >= 55);
  });

  it("names the tool on the MCP request's log line", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const logged = await serveOnFreePort((url) => createMcpApp({ ...mcp.deps, mcpUrl: url, logger }));
    closers.push(() => logged.close());
    const res = await rawRpc({ ...mcp, url: logged.url }, "tools/call", {
      token: suite.creator.token,
      params: { name: "list_projects", arguments: {} },
    });
    assert.equal(res.status, 200);
    const line = lines.find((l) => l.surface === "mcp" && l.method === "POST");
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line.tool, "list_projects");
    assert.equal(line.operation, "tools/call");
  });
});
