// The delivery engine against real local HTTPS receivers (certificates of the test CA) with an
// injected clock: the fan-out of an event to subscribed endpoints, the headers and signature of a
// delivery, the whole retry ladder to dead, retry-dead, disabling after 20 consecutive failures,
// secret rotation, and the send-time address checks (allowed_ips, unresolvable names, a name that
// turns private after registration, every refused address class).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { verifyWebhook, verifyWebhookMessageSignature } from "../../../sdk/src/webhooks.ts";
import { signingKeyDirectory } from "../../../src/modules/webhooks/signing-keys.ts";
import { deliverDue, type DeliveryWorkerOptions } from "../../../src/workers/deliveries/worker.ts";
import { RETRY_DELAYS_SECONDS } from "../../../src/modules/webhooks/ladder.ts";
import type { WebhookNetwork } from "../../../src/modules/webhooks/address-guard.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { activityOf } from "../resources/support.ts";
import { createEndpoint, startReceiver, type Receiver } from "./support.ts";

/** Names the tests resolve, changeable between registration and delivery. */
const names = new Map<string, string[]>();
const network: WebhookNetwork = {
  ...TEST_WEBHOOK_NETWORK,
  allowHttp: false,
  resolve: async (host) => names.get(host) ?? (host === "localhost" ? ["127.0.0.1"] : []),
};

describe("webhook delivery engine", function () {
  this.timeout(120_000);
  const suite = useApiWithCreator({ api: { webhooks: network }, creator: { label: "delivery-engine", projects: 2 } });
  let receiver: Receiver;
  let t0: Date;

  beforeEach(async () => {
    receiver = await startReceiver({ tls: "trusted", host: "localhost" });
    // The worker's clock starts a minute ahead: what a test queues in its first minute is due at t0.
    t0 = new Date(Date.now() + 60_000);
  });
  afterEach(() => receiver.close());

  const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
  const deliver = async (now: Date, extra: Partial<DeliveryWorkerOptions> = {}) => {
    const { db } = await testDatabase();
    return deliverDue({
      db,
      appKey: TEST_APP_KEY,
      network,
      release: "9.9.9",
      logger: testLogger,
      now,
      teams: [suite.creator.teamId],
      ...extra,
    });
  };
  /** Renames a project: one project.updated event in that project. */
  const fireEvent = async (project = suite.creator.projectIds[0]!) => {
    const res = await suite.client.request("PATCH", `/v1/projects/${project}`, { body: { name: `Renamed ${randomUUID().slice(0, 6)}` } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const deliveriesOf = async (endpointId: string) => {
    const { db } = await testDatabase();
    return db("webhook_deliveries").where({ endpoint_id: endpointId }).orderBy("created_at").select("*");
  };
  const endpointRow = async (id: string) => (await testDatabase()).db("webhook_endpoints").where({ id }).first();
  /** Other tests' endpoints of this team would receive this file's events too: keep them out. */
  afterEach(async () => {
    const { db } = await testDatabase();
    await db("webhook_endpoints").where({ team_id: suite.creator.teamId }).update({ is_active: false });
  });

  it("fans an event out to every active endpoint subscribed within its team or project, in the event's transaction", async () => {
    const [p1, p2] = suite.creator.projectIds as [string, string];
    const teamWide = (await createEndpoint(suite.client, { url: receiver.url, events: ["project.*"] })).data;
    const ofP1 = (await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"], project_id: p1 })).data;
    const ofP2 = (await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"], project_id: p2 })).data;
    const otherEvents = (await createEndpoint(suite.client, { url: receiver.url, events: ["plan.*"] })).data;
    const inactive = (await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] })).data;
    await suite.client.patch(`/v1/webhook-endpoints/${inactive.id}`, { is_active: false });

    await fireEvent(p1);
    const { db } = await testDatabase();
    const event = await db("events").where({ team_id: suite.creator.teamId, type: "project.updated", project_id: p1 }).orderBy("id", "desc").first();
    const queued = await db("webhook_deliveries").where({ event_id: event.id }).select("endpoint_id", "status", "attempts", "event_type");
    assert.deepEqual(queued.map((d) => d.endpoint_id).sort(), [teamWide.id, ofP1.id].sort());
    assert.ok(queued.every((d) => d.status === "queued" && d.attempts === 0 && d.event_type === "project.updated"));
    for (const id of [ofP2.id, otherEvents.id, inactive.id]) assert.equal((await deliveriesOf(id)).length, 0);

    // A refused change writes no event and queues nothing.
    const refused = await suite.client.request("PATCH", `/v1/projects/${p1}`, { body: { name: "" } });
    assert.equal(refused.status, 422);
    assert.equal((await deliveriesOf(teamWide.id)).length, 1);
  });

  it("posts the envelope with exactly the described headers and an SB-Signature the SDK verifies; 2xx is delivered", async () => {
    const { data, secret } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    await fireEvent();
    const outcomes = await deliver(t0);
    assert.equal(outcomes.length, 1);
    assert.equal(receiver.received.length, 1);
    const { headers, body } = receiver.received[0]!;
    const event = JSON.parse(body);
    assert.deepEqual(Object.keys(event), ["id", "type", "created_at", "api_version", "project_id", "data"]);
    assert.match(event.id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers["user-agent"], "SubBridge-Webhooks/9.9.9");
    assert.equal(headers["sb-event-id"], event.id.slice(4));
    assert.equal(headers["sb-event-name"], "project.updated");
    assert.match(String(headers["sb-signature"]), /^t=\d+,v1=[0-9a-f]{64}$/);
    const verified = await verifyWebhook(body, headers as Record<string, string>, secret);
    assert.equal(verified.id, event.id);
    // And the service's RFC 9421 signature, checked against its published key directory.
    const directory = await signingKeyDirectory((await testDatabase()).db);
    const signed = await verifyWebhookMessageSignature(
      { method: "POST", url: receiver.url, headers: headers as Record<string, string>, body },
      directory as never,
    );
    assert.deepEqual(signed.components, ["@method", "@target-uri", "content-digest", "content-type", "sb-event-id", "sb-event-name"]);
    assert.match(String(headers["content-digest"]), /^sha-256=:[A-Za-z0-9+/]+=*:$/);

    const [delivery] = await deliveriesOf(data.id);
    assert.equal(delivery.status, "delivered");
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.response_status, 200);
    assert.equal(delivery.response_excerpt, "ok");
    assert.equal(new Date(delivery.delivered_at).getTime(), t0.getTime());
    assert.equal(delivery.lease_expires_at, null);
    const listed = (await suite.client.get(`/v1/webhook-endpoints/${data.id}/deliveries`)).body.data;
    assert.equal(listed[0].status, "delivered");
    assert.equal((await deliver(at(3600))).length, 0, "a delivered delivery is never posted again");
  });

  it("climbs the whole ladder (10 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h, 72 h): eight retries, the eighth retry's failure is dead about four days on; retry-dead re-queues", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    receiver.status = 503;
    await fireEvent();
    let clock = 0;
    assert.equal((await deliver(at(clock))).length, 1);
    // The description's delays, written out so the test pins them rather than echoing the source.
    const ladder = [10, 30, 120, 600, 3_600, 21_600, 86_400, 259_200];
    assert.deepEqual([...RETRY_DELAYS_SECONDS], ladder);
    for (let failure = 1; failure <= ladder.length; failure++) {
      const [row] = await deliveriesOf(data.id);
      assert.equal(row.status, "queued");
      assert.equal(row.attempts, failure);
      assert.equal(row.response_status, 503);
      const delay = ladder[failure - 1]!;
      assert.equal(new Date(row.next_attempt_at).getTime(), at(clock + delay).getTime(), `wait after failure ${failure}`);
      assert.equal((await deliver(at(clock + delay - 1))).length, 0, "not before it is due");
      clock += delay;
      assert.equal((await deliver(at(clock))).length, 1);
    }
    const [dead] = await deliveriesOf(data.id);
    assert.equal(dead.status, "dead");
    assert.equal(dead.attempts, 9, "the first attempt and eight retries");
    assert.equal(dead.next_attempt_at, null);
    assert.equal(receiver.received.length, 9);
    assert.equal(clock, 371_560, "the last retry goes out about four days (103 h) after the first attempt");
    assert.equal((await deliver(at(clock + 400_000))).length, 0, "a dead delivery is not tried again");

    receiver.status = 204;
    const replay = await suite.client.post("/v1/webhook-deliveries/retry-dead", { endpoint_id: data.id });
    assert.equal(replay.body.data.requeued, 1);
    const outcomes = await deliver(at(clock + 1));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["delivered"],
    );
    assert.equal((await deliveriesOf(data.id))[0].status, "delivered");
    assert.equal(receiver.received.length, 10);
    // Every attempt is kept: nine failures, then the replay's first attempt.
    const [listed] = (await suite.client.get(`/v1/webhook-endpoints/${data.id}/deliveries`)).body.data;
    assert.deepEqual(
      listed.attempt_history.map((a: { attempt: number; outcome: string; response_status: number }) => [a.attempt, a.outcome, a.response_status]),
      [...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [n, "failed", 503]), [1, "delivered", 204]],
    );
    assert.ok(listed.attempt_history.every((a: { excerpt: string; duration_ms: number }) => a.excerpt.length <= 256 && a.duration_ms >= 0));
  });

  it("disables an endpoint after 20 consecutive failures until the creator re-enables it; a success resets the count", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    receiver.status = 500;
    for (let i = 0; i < 19; i++) await fireEvent();
    await deliver(t0);
    assert.equal((await endpointRow(data.id)).consecutive_failures, 19);
    receiver.status = 200;
    await fireEvent();
    await deliver(t0);
    assert.equal((await endpointRow(data.id)).consecutive_failures, 0, "a success resets the count");

    receiver.status = 500;
    for (let i = 0; i < 20; i++) await fireEvent();
    await deliver(at(5)); // 20 new failures (the 19 retries are not due before 10 s)
    const disabled = await endpointRow(data.id);
    assert.equal(disabled.is_active, false);
    assert.equal(new Date(disabled.disabled_at).getTime(), at(5).getTime());
    const [entry] = await activityOf(suite.creator.teamId, "disabled", data.id);
    assert.ok(entry, "an activity entry records the disabling");
    assert.equal((await suite.client.get(`/v1/webhook-endpoints/${data.id}`)).body.data.is_active, false);

    // Disabled: nothing is attempted and new events queue nothing for it.
    const before = receiver.received.length;
    assert.equal((await deliver(at(60))).length, 0);
    await fireEvent();
    assert.equal(receiver.received.length, before);

    receiver.status = 200;
    const enabled = await suite.client.patch(`/v1/webhook-endpoints/${data.id}`, { is_active: true });
    assert.equal(enabled.body.data.is_active, true);
    assert.equal(enabled.body.data.consecutive_failures, 0);
    const resumed = await deliver(at(60));
    assert.ok(resumed.length >= 20 && resumed.every((o) => o.status === "delivered"), "its queued deliveries go out once re-enabled");
  });

  it("signs with the new secret at once after rotation (the old one no longer verifies)", async () => {
    const { data, secret: old } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    const rotated = (await suite.client.post(`/v1/webhook-endpoints/${data.id}/rotate-secret`)).body.secret as string;
    await fireEvent();
    await deliver(t0);
    const { body, headers } = receiver.received[0]!;
    await verifyWebhook(body, headers as Record<string, string>, rotated);
    await assert.rejects(verifyWebhook(body, headers as Record<string, string>, old), /no v1 signature matches/);
  });

  it("dead-letters unposted when the host resolves outside allowed_ips, the refused address in the excerpt", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"], allowed_ips: ["203.0.113.0/24"] });
    await fireEvent();
    const [outcome] = await deliver(t0);
    assert.equal(outcome!.status, "dead");
    assert.equal(receiver.received.length, 0, "nothing was posted");
    const [row] = await deliveriesOf(data.id);
    assert.equal(row.status, "dead");
    assert.match(row.response_excerpt, /refused, not posted: the host localhost resolves to 127\.0\.0\.1, outside the endpoint's allowed_ips/);
    const listed = (await suite.client.get(`/v1/webhook-endpoints/${data.id}/deliveries?status=dead`)).body.data;
    assert.match(listed[0].response_excerpt, /127\.0\.0\.1/);
    assert.deepEqual(
      listed[0].attempt_history.map((a: { outcome: string; response_status: null }) => [a.outcome, a.response_status]),
      [["refused", null]],
    );

    // Inside the list: delivered.
    const inside = (await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"], allowed_ips: ["127.0.0.0/8"] })).data;
    await fireEvent();
    await deliver(t0);
    assert.equal((await deliveriesOf(inside.id))[0].status, "delivered");
  });

  it("an endpoint registered over http before https was required keeps receiving", async () => {
    const plain = await startReceiver({ host: "localhost" });
    try {
      const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
      // As an earlier release stored it (the URL cannot be changed through the API).
      await (await testDatabase()).db("webhook_endpoints").where({ id: data.id }).update({ url: plain.url });
      await fireEvent();
      const [outcome] = await deliver(t0);
      assert.equal(outcome!.status, "delivered");
      assert.equal(plain.received.length, 1);
    } finally {
      await plain.close();
    }
  });

  it("a name that does not resolve at delivery follows the retry ladder, unposted", async () => {
    const host = `gone-${randomUUID().slice(0, 8)}.test`;
    names.set(host, ["127.0.0.1"]);
    const { data } = await createEndpoint(suite.client, { url: receiver.url.replace("localhost", host), events: ["project.updated"] });
    names.delete(host);
    await fireEvent();
    await deliver(t0);
    const [row] = await deliveriesOf(data.id);
    assert.equal(row.status, "queued");
    assert.equal(row.attempts, 1);
    assert.equal(new Date(row.next_attempt_at).getTime(), at(10).getTime());
    assert.match(row.response_excerpt, /does not resolve/);
    assert.equal(receiver.received.length, 0);
  });

  it("a name public at registration and private at delivery, and every refused address class, are dead-lettered unposted", async () => {
    const host = `turncoat-${randomUUID().slice(0, 8)}.test`;
    names.set(host, ["93.184.215.14"]);
    const { data } = await createEndpoint(suite.client, { url: `https://${host}:${receiver.port}/hook`, events: ["project.updated"] });
    const refused: [string, RegExp][] = [
      ["10.0.0.5", /a private address/],
      ["172.16.4.4", /a private address/],
      ["192.168.1.1", /a private address/],
      ["169.254.169.254", /a link-local address/],
      ["100.64.0.1", /carrier-grade NAT/],
      ["224.0.0.1", /a multicast address/],
      ["0.0.0.0", /an unspecified address/],
      ["192.0.2.10", /reserved or documentation/],
      ["240.0.0.1", /reserved/],
      ["255.255.255.255", /broadcast/],
      ["::ffff:10.0.0.1", /IPv4-mapped/],
      ["fc00::1", /unique local/],
      ["fe80::1", /link-local/],
      ["2001:db8::1", /reserved or documentation/],
      ["64:ff9b::a00:1", /NAT64/],
      ["2002:a00:1::", /6to4/],
      ["::", /unspecified/],
      ["ff02::1", /multicast/],
    ];
    for (const [address, reason] of refused) {
      names.set(host, ["93.184.215.14", address]);
      await fireEvent();
      const outcomes = await deliver(t0);
      assert.equal(outcomes.length, 1, address);
      assert.equal(outcomes[0]!.status, "dead", address);
      assert.match(outcomes[0]!.excerpt, new RegExp(`resolves to ${address.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, `), address);
      assert.match(outcomes[0]!.excerpt, reason, address);
    }
    assert.equal(receiver.received.length, 0, "nothing was posted to a refused address");
    assert.ok((await deliveriesOf(data.id)).every((d) => d.status === "dead"));
    names.delete(host);
  });

  it("an untrusted certificate or a receiver that does not answer in time is a failed attempt, retried", async () => {
    const untrusted = await startReceiver({ tls: "untrusted", host: "localhost" });
    try {
      const { data } = await createEndpoint(suite.client, { url: untrusted.url, events: ["project.updated"] });
      await fireEvent();
      await deliver(t0);
      const [row] = await deliveriesOf(data.id);
      assert.equal(row.status, "queued");
      assert.match(
        row.response_excerpt,
        /could not be reached \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/,
      );
      await suite.client.patch(`/v1/webhook-endpoints/${data.id}`, { is_active: false });
    } finally {
      await untrusted.close();
    }
    receiver.hang = true;
    const { data } = await createEndpoint(suite.client, { url: receiver.url, events: ["project.updated"] });
    await fireEvent();
    await deliver(t0);
    const [row] = await deliveriesOf(data.id);
    assert.equal(row.status, "queued");
    assert.match(row.response_excerpt, /did not answer within 2 seconds/);
  });
});
