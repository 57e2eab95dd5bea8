// Replaying one delivery (the dashboard's replay, POST /v1/webhook-deliveries/{id}/replay): a
// delivered or dead delivery is queued again and posted with the same event id to the same
// endpoint; a queued one is refused; another team's, or one outside the token's projects, is 404.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { deliverDue } from "../../../src/workers/deliveries/worker.ts";
import type { WebhookNetwork } from "../../../src/modules/webhooks/address-guard.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { activityOf } from "../resources/support.ts";
import { expectCredentialRefusals } from "../subscriptions/commerce.ts";
import { createEndpoint, insertDelivery, startReceiver, type Receiver } from "./support.ts";

const network: WebhookNetwork = { ...TEST_WEBHOOK_NETWORK, allowHttp: false, resolve: async (host) => (host === "localhost" ? ["127.0.0.1"] : []) };
const replayPath = (id: string) => `/v1/webhook-deliveries/${id}/replay`;

describe("webhook delivery replay", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ api: { webhooks: network }, creator: { label: "delivery-replay", projects: 2 } });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver({ tls: "trusted", host: "localhost" });
  });
  after(() => receiver.close());
  afterEach(async () => {
    // Keep this file's endpoints from receiving the next test's events.
    const { db } = await testDatabase();
    await db("webhook_endpoints").where({ team_id: suite.creator.teamId }).update({ is_active: false });
  });

  const deliver = async (now: Date) =>
    deliverDue({
      db: (await testDatabase()).db,
      appKey: TEST_APP_KEY,
      network,
      release: "9.9.9",
      logger: testLogger,
      now,
      teams: [suite.creator.teamId],
    });

  it("posts a delivered event again, with the same event id, to the same endpoint; the attempt history keeps both rounds", async () => {
    const { data: endpoint } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    const renamed = await suite.client.request("PATCH", `/v1/projects/${suite.creator.projectIds[0]}`, {
      body: { name: `Renamed ${randomUUID().slice(0, 6)}` },
    });
    assert.equal(renamed.status, 200);
    const t0 = new Date(Date.now() + 60_000);
    assert.deepEqual(
      (await deliver(t0)).map((o) => o.status),
      ["delivered"],
    );
    const [delivered] = (await suite.client.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).body.data;
    assert.equal(delivered.status, "delivered");

    const res = await suite.client.post(replayPath(delivered.id));
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const queued = res.body.data;
    assert.deepEqual(
      [queued.id, queued.event_id, queued.endpoint_id, queued.status, queued.attempts, queued.delivered_at],
      [delivered.id, delivered.event_id, endpoint.id, "queued", 0, null],
    );
    assert.equal(queued.attempt_history.length, 1, "the first round's attempt is kept");
    const [entry] = await activityOf(suite.creator.teamId, "delivery_replayed", endpoint.id);
    assert.deepEqual(entry?.properties, { delivery_id: delivered.id, event_id: delivered.event_id });

    expectError(await suite.client.post(replayPath(delivered.id)), 400, "WEBHOOK_DELIVERY_IN_PROGRESS");
    assert.deepEqual(
      (await deliver(new Date(t0.getTime() + 1000))).map((o) => o.status),
      ["delivered"],
    );
    assert.equal(receiver.received.length, 2);
    const [first, again] = receiver.received as [(typeof receiver.received)[0], (typeof receiver.received)[0]];
    assert.equal(again.headers["sb-event-id"], first.headers["sb-event-id"], "receivers de-duplicate by the event id");
    assert.deepEqual([JSON.parse(first.body).id, JSON.parse(again.body).id], [delivered.event_id, delivered.event_id]);
    const [after] = (await suite.client.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).body.data;
    assert.deepEqual(
      [after.status, after.attempt_history.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome])],
      [
        "delivered",
        [
          [1, "delivered"],
          [1, "delivered"],
        ],
      ],
    );
  });

  it("re-queues a dead delivery; refuses a queued one (400) and answers 404 for an unknown one", async () => {
    const { data: endpoint } = await createEndpoint(suite.client);
    const dead = await insertDelivery(suite.creator.teamId, endpoint.id, {
      status: "dead",
      attempts: 9,
      next_attempt_at: null,
      response_status: 500,
    });
    const res = await suite.client.post(replayPath(dead.id));
    assert.equal(res.status, 202);
    assert.deepEqual([res.body.data.status, res.body.data.attempts], ["queued", 0]);
    assert.ok(Math.abs(Date.parse(res.body.data.next_attempt_at) - Date.now()) < 10_000, "due now");
    const queued = await insertDelivery(suite.creator.teamId, endpoint.id);
    const refused = expectError(await suite.client.post(replayPath(queued.id)), 400, "WEBHOOK_DELIVERY_IN_PROGRESS");
    assert.deepEqual(refused.context, { delivery_id: queued.id, status: "queued" });
    expectError(await suite.client.post(replayPath(randomUUID())), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post("/v1/webhook-deliveries/not-an-id/replay"), 404, "RESOURCE_NOT_FOUND");
  });

  it("needs webhook-delivery:retry; another team's delivery, or one outside the token's projects, answers 404 and stays as it was", async () => {
    const { data: endpoint } = await createEndpoint(suite.client);
    const dead = await insertDelivery(suite.creator.teamId, endpoint.id, { status: "dead", attempts: 9, next_attempt_at: null });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "POST", path: replayPath(dead.id), ability: "webhook-delivery:retry" });
    const stranger = await createTestCreator({ label: "delivery-replay-stranger" });
    expectError(await suite.client.withToken(stranger.token).post(replayPath(dead.id)), 404, "RESOURCE_NOT_FOUND");
    const [, p2] = suite.creator.projectIds as [string, string];
    const onlyP2 = suite.client.withToken((await tokenFor(suite.creator, ["webhook-delivery:retry"], [p2])).token);
    expectError(await onlyP2.post(replayPath(dead.id)), 404, "RESOURCE_NOT_FOUND");
    const { db } = await testDatabase();
    assert.equal((await db("webhook_deliveries").where({ id: dead.id }).first()).status, "dead");
    assert.equal((await activityOf(suite.creator.teamId, "delivery_replayed", endpoint.id)).length, 0);
  });
});
