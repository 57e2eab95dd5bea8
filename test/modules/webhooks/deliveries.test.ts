// Deliveries (durable rows the dispatcher writes): listed per endpoint with the refusal reason in
// the response excerpt, dead ones re-queued by retry-dead; and the sample event payloads.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { expectError } from "../../helpers/http.ts";
import { tokenFor } from "../../helpers/fixtures.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { openapi } from "../../helpers/http.ts";
import { activityOf } from "../resources/support.ts";
import { createEndpoint, insertDelivery } from "./support.ts";

describe("webhook deliveries and sample events", () => {
  const suite = useApiWithCreator({ creator: { label: "webhook-deliveries", projects: 2 } });

  it("lists an endpoint's deliveries newest first, filtered by status, with the refusal reason in the excerpt", async () => {
    const { data } = await createEndpoint(suite.client);
    const t = (s: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, s));
    const delivered = await insertDelivery(suite.creator.teamId, data.id, {
      status: "delivered",
      attempts: 1,
      delivered_at: t(1),
      response_status: 200,
      response_excerpt: "ok",
      duration_ms: 40,
      next_attempt_at: null,
      created_at: t(1),
    });
    const refused = await insertDelivery(suite.creator.teamId, data.id, {
      status: "dead",
      attempts: 1,
      next_attempt_at: null,
      response_excerpt: "refused: hooks.example.com resolved to 10.0.0.7, outside allowed_ips",
      created_at: t(2),
    });
    const queued = await insertDelivery(suite.creator.teamId, data.id, { created_at: t(3) });
    const page = (await suite.client.get(`/v1/webhook-endpoints/${data.id}/deliveries`)).body;
    assert.deepEqual(
      page.data.map((d: { id: string }) => d.id),
      [queued.id, refused.id, delivered.id],
    );
    assert.equal(page.meta.per_page, 25);
    const dead = (await suite.client.get(`/v1/webhook-endpoints/${data.id}/deliveries?status=dead`)).body.data;
    assert.deepEqual(
      dead.map((d: { id: string; response_excerpt: string }) => [d.id, d.response_excerpt]),
      [[refused.id, refused.response_excerpt]],
    );
    expectError(await suite.client.get(`/v1/webhook-endpoints/${data.id}/deliveries?status=lost`), 422, "VALIDATION_FAILED");
    expectError(await suite.client.get(`/v1/webhook-endpoints/${randomUUID()}/deliveries`), 404, "RESOURCE_NOT_FOUND");
  });

  it("retry-dead re-queues dead deliveries for an attempt now (all, or one endpoint's) and answers how many", async () => {
    const a = (await createEndpoint(suite.client)).data;
    const b = (await createEndpoint(suite.client)).data;
    const dead = { status: "dead", attempts: 8, next_attempt_at: null, response_status: 500 };
    const deadOfA = await insertDelivery(suite.creator.teamId, a.id, dead);
    await insertDelivery(suite.creator.teamId, a.id, { status: "delivered", attempts: 1 });
    const deadOfB = [await insertDelivery(suite.creator.teamId, b.id, dead), await insertDelivery(suite.creator.teamId, b.id, dead)];

    const one = await suite.client.post("/v1/webhook-deliveries/retry-dead", { endpoint_id: a.id });
    assert.deepEqual(one.body, { data: { requeued: 1 } });
    const { db } = await testDatabase();
    const requeued = await db("webhook_deliveries").where({ id: deadOfA.id }).first();
    assert.deepEqual([requeued.status, requeued.attempts], ["queued", 0]);
    assert.ok(Math.abs(new Date(requeued.next_attempt_at).getTime() - Date.now()) < 10_000);
    assert.equal((await db("webhook_deliveries").where({ id: deadOfB[0]!.id }).first()).status, "dead", "another endpoint's stay dead");
    assert.equal((await activityOf(suite.creator.teamId, "deliveries_requeued", a.id)).length, 1);

    const all = await suite.client.post("/v1/webhook-deliveries/retry-dead");
    assert.ok(all.body.data.requeued >= 2, JSON.stringify(all.body));
    for (const d of deadOfB) assert.equal((await db("webhook_deliveries").where({ id: d.id }).first()).status, "queued");
    assert.deepEqual((await suite.client.post("/v1/webhook-deliveries/retry-dead")).body, { data: { requeued: 0 } });
    expectError(await suite.client.post("/v1/webhook-deliveries/retry-dead", { endpoint_id: randomUUID() }), 404, "RESOURCE_NOT_FOUND");
  });

  it("a token restricted to projects re-queues only its projects' deliveries", async () => {
    const [p1] = suite.creator.projectIds as [string, string];
    const teamWide = (await createEndpoint(suite.client)).data;
    const ofP1 = (await createEndpoint(suite.client, { project_id: p1 })).data;
    const dead = { status: "dead", attempts: 8, next_attempt_at: null };
    const hidden = await insertDelivery(suite.creator.teamId, teamWide.id, dead);
    const inside = await insertDelivery(suite.creator.teamId, ofP1.id, dead);
    const restricted = suite.client.withToken((await tokenFor(suite.creator, ["webhook-delivery:retry"], [p1])).token);
    assert.equal((await restricted.post("/v1/webhook-deliveries/retry-dead")).body.data.requeued, 1);
    const { db } = await testDatabase();
    assert.equal((await db("webhook_deliveries").where({ id: inside.id }).first()).status, "queued");
    assert.equal((await db("webhook_deliveries").where({ id: hidden.id }).first()).status, "dead");
  });

  it("serves sample payloads: one envelope per event type, 3 a page by default, at most 10, filtered by name or group", async () => {
    const types = Object.keys(openapi.webhooks).sort();
    const first = (await suite.client.get("/v1/webhook-events")).body;
    assert.equal(first.meta.per_page, 3);
    assert.equal(first.meta.total, types.length);
    assert.deepEqual(
      first.data.map((e: { type: string }) => e.type),
      types.slice(0, 3),
    );
    assert.equal((await suite.client.get("/v1/webhook-events?per_page=50")).body.data.length, 10, "clamped to 10");
    const plans = (await suite.client.get("/v1/webhook-events?type=plan.*&per_page=10")).body.data;
    assert.deepEqual(
      plans.map((e: { type: string }) => e.type),
      types.filter((t) => t.startsWith("plan.")),
    );
    for (const e of plans) assert.match(e.id, /^evt_[0-9A-Z]{26}$/);
    const one = (await suite.client.get("/v1/webhook-events?type=team.member.joined")).body.data;
    assert.deepEqual(
      one.map((e: { type: string }) => e.type),
      ["team.member.joined"],
    );
    const past = (await suite.client.get("/v1/webhook-events?page=99")).body;
    assert.deepEqual([past.data, past.meta.total], [[], types.length]);
    expectError(await suite.client.get("/v1/webhook-events?type=nothing.*"), 422, "VALIDATION_FAILED");
  });
});
