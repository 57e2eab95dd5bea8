// How workers share the queue: two workers draining at once post each delivery once; a worker that
// dies holding a claim loses nothing (its lease runs out and the delivery is claimed again), and its
// late outcome cannot overwrite the next claim's. And what a delivery's body may carry.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { claimDueDeliveries, recordOutcomes } from "../../../src/modules/webhooks/delivery-queue.ts";
import { deliverableData } from "../../../src/modules/webhooks/payload-policy.ts";
import { deliverDue, type DeliveryWorkerOptions } from "../../../src/workers/deliveries/worker.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createEndpoint, startReceiver, type Receiver } from "./support.ts";

describe("webhook delivery leases", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ creator: { label: "delivery-leases" } });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver({ tls: "trusted" });
  });
  after(() => receiver.close());
  afterEach(async () => {
    const { db } = await testDatabase();
    await db("webhook_endpoints").where({ team_id: suite.creator.teamId }).update({ is_active: false });
  });

  const options = async (now: Date): Promise<DeliveryWorkerOptions & { now: Date; teams: string[] }> => ({
    db: (await testDatabase()).db,
    appKey: TEST_APP_KEY,
    network: TEST_WEBHOOK_NETWORK,
    release: "test",
    logger: testLogger,
    now,
    teams: [suite.creator.teamId],
  });
  const fireEvents = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await suite.client.request("PATCH", `/v1/projects/${suite.creator.projectIds[0]}`, {
        body: { name: `P ${randomUUID().slice(0, 6)}` },
      });
      assert.equal(res.status, 200);
    }
  };
  const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

  it("two workers draining at once post each delivery exactly once", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    const before = receiver.received.length;
    await fireEvents(30);
    const now = later(60);
    const [a, b] = await Promise.all([deliverDue({ ...(await options(now)), batchSize: 4 }), deliverDue({ ...(await options(now)), batchSize: 4 })]);
    assert.equal(a.length + b.length, 30);
    const ids = receiver.received.slice(before).map((r) => r.headers["sb-event-id"]);
    assert.equal(new Set(ids).size, 30, "no event posted twice");
    const { db } = await testDatabase();
    const statuses = await db("webhook_deliveries").where({ endpoint_id: data.id }).pluck("status");
    assert.deepEqual([...new Set(statuses)], ["delivered"]);
  });

  it("a claim whose worker died is claimed again once its lease runs out; the dead worker's late outcome is ignored", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    await fireEvents(1);
    const { db } = await testDatabase();
    const t = later(60);
    const leaseMs = 30_000;
    // Worker A claims, then "dies": it never records an outcome.
    const [claimed] = await claimDueDeliveries(db, t, 10, leaseMs, { teams: [suite.creator.teamId] });
    assert.ok(claimed);
    assert.equal((await deliverDue({ ...(await options(new Date(t.getTime() + leaseMs - 1))), leaseMs })).length, 0, "leased: not claimed again");
    const retaken = await deliverDue({ ...(await options(new Date(t.getTime() + leaseMs))), leaseMs });
    assert.equal(retaken.length, 1);
    assert.equal(retaken[0]!.status, "delivered");
    // Worker A comes back with a failure to record: the delivery keeps the outcome of the claim that held it.
    await recordOutcomes(
      db,
      [
        {
          delivery: claimed,
          status: "queued",
          failed: true,
          attemptedAt: t,
          nextAttemptAt: new Date(t.getTime() + 10_000),
          responseStatus: 500,
          excerpt: "stale",
          refused: false,
          durationMs: 1,
        },
      ],
      t,
    );
    const row = await db("webhook_deliveries").where({ endpoint_id: data.id }).first();
    assert.equal(row.status, "delivered");
    assert.equal(row.attempts, 1);
    assert.equal((await db("webhook_endpoints").where({ id: data.id }).first()).consecutive_failures, 0);
  });
});

describe("what a delivery may carry", () => {
  const data = {
    subscription: { id: "s1", fees: { platform: 3 }, fee_breakdown: [1, 2] },
    member: { id: "m1", display_name: "Lin", email: "lin@example.com", phone: "+100", nested: { token: "abc" } },
    invitation: { id: "i1", email: "grace@example.com", invitation_token: "inv_secret", token: "raw" },
    payment: { provider_credentials: { key: "sk" }, card_number: "4242", amount: 5, fee: { amount: 1 }, net: { amount: 4 } },
    passkeys: [{ id: "p" }],
  };

  it("never carries fee breakdowns (a net gives the fee away too), provider credentials, invitation tokens or passkey credentials", () => {
    const out = deliverableData("subscription.created", data, { subscriberContacts: true }) as Record<string, any>;
    assert.deepEqual(out.subscription, { id: "s1" });
    assert.deepEqual(out.invitation, { id: "i1", email: "grace@example.com" });
    assert.deepEqual(out.payment, { amount: 5 });
    assert.equal(out.passkeys, undefined);
    assert.deepEqual(out.member.nested, {});
  });

  it("carries a subscriber's email and phone only when the endpoint's owner may view project users; a teammate's always", () => {
    const withheld = deliverableData("subscription.created", data, { subscriberContacts: false }) as Record<string, any>;
    assert.deepEqual(withheld.member, { id: "m1", display_name: "Lin", nested: {} });
    const allowed = deliverableData("subscription.created", data, { subscriberContacts: true }) as Record<string, any>;
    assert.equal(allowed.member.email, "lin@example.com");
    assert.equal(allowed.member.phone, "+100");
    const teammate = deliverableData(
      "team.member.joined",
      { member: { id: "u", email: "ada@example.com" } },
      { subscriberContacts: false },
    ) as Record<string, any>;
    assert.equal(teammate.member.email, "ada@example.com");
  });
});
