// The synchronous test call: a signed sample event posted to a local receiver (loopback and http
// exempted as WEBHOOK_ALLOWED_CIDRS and WEBHOOK_ALLOW_HTTP do for development), the receiver's answer
// reported whatever it is, 502 WEBHOOK_ENDPOINT_UNREACHABLE when none comes or the address is refused.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { startApi, TEST_WEBHOOK_NETWORK } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { verifyWebhook, verifyWebhookMessageSignature, WebhookVerificationError } from "../../../sdk/src/webhooks.ts";
import { signingKeyDirectory } from "../../../src/modules/webhooks/signing-keys.ts";
import { signatureHeader } from "../../../src/modules/webhooks/signature.ts";
import { STRICT_WEBHOOK_NETWORK } from "../../../src/modules/webhooks/address-guard.ts";
import { postToAddress } from "../../../src/modules/webhooks/send.ts";
import { createEndpoint, startReceiver, type Receiver } from "./support.ts";

const BASE = "/v1/webhook-endpoints";

describe("webhook endpoint test call", () => {
  const suite = useApiWithCreator({ creator: { label: "webhook-test" } });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it("posts one signed sample of a subscribed event; the SDK's verifier accepts it; reports the answer", async () => {
    const { data, secret } = await createEndpoint(suite.client, { url: receiver.url, events: ["coupon.*"] });
    const res = await suite.client.post(`${BASE}/${data.id}/test`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const report = res.body.data;
    assert.deepEqual([report.delivered, report.response_status, report.response_excerpt, report.event_type], [true, 200, "ok", "coupon.created"]);
    assert.ok(report.duration_ms >= 0);
    const request = receiver.received.at(-1)!;
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["user-agent"], "SubBridge-Webhooks/3.0.0");
    assert.equal(request.headers["sb-event-name"], "coupon.created");
    assert.equal(`evt_${request.headers["sb-event-id"]}`, report.event_id);
    assert.match(String(request.headers["sb-signature"]), /^t=\d+,v1=[0-9a-f]{64}$/);
    const event = await verifyWebhook(request.body, request.headers as Record<string, string>, secret);
    assert.deepEqual([event.id, event.type, event.api_version], [report.event_id, "coupon.created", "2026-11-23"]);
    assert.ok("coupon" in event.data);
    const directory = await signingKeyDirectory((await testDatabase()).db);
    const signed = await verifyWebhookMessageSignature(
      { method: "POST", url: receiver.url, headers: request.headers as Record<string, string>, body: request.body },
      directory as never,
    );
    assert.equal(signed.keyid, directory.keys[0]!.kid);

    // After rotation only the new secret verifies (no dual signing).
    const rotated = (await suite.client.post(`${BASE}/${data.id}/rotate-secret`)).body.secret as string;
    await suite.client.post(`${BASE}/${data.id}/test`);
    const after = receiver.received.at(-1)!;
    await verifyWebhook(after.body, after.headers as Record<string, string>, rotated);
    await assert.rejects(verifyWebhook(after.body, after.headers as Record<string, string>, secret), WebhookVerificationError);
    assert.equal(String(after.headers["sb-signature"]).split(",").length, 2, "a single v1 signature");
  });

  it("signs as the description says: hex HMAC-SHA256 of t.body keyed with the whole secret", () => {
    const expected = createHmac("sha256", "whsec_test").update('1700000000.{"a":1}').digest("hex");
    assert.equal(signatureHeader("whsec_test", '{"a":1}', new Date(1_700_000_000_900)), `t=1700000000,v1=${expected}`);
  });

  it("connects to the checked address, never resolving the name again (the Host header keeps the name)", async () => {
    const url = new URL(receiver.url.replace("127.0.0.1", "receiver.example"));
    const answer = await postToAddress(url, "127.0.0.1", "{}", { "content-type": "application/json" }, 2_000);
    assert.equal(answer.status, 200);
    assert.equal(receiver.received.at(-1)!.headers.host, url.host);
  });

  it("reports a non-2xx answer (200, delivered false) and records no delivery", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url });
    receiver.status = 503;
    try {
      const report = (await suite.client.post(`${BASE}/${data.id}/test`)).body.data;
      assert.deepEqual(
        [report.delivered, report.response_status, report.response_excerpt, report.event_type],
        [false, 503, "nope", "subscription.created"],
      );
    } finally {
      receiver.status = 200;
    }
    const { db } = await testDatabase();
    assert.equal((await db("webhook_deliveries").where({ endpoint_id: data.id })).length, 0);
  });

  it("answers 502 WEBHOOK_ENDPOINT_UNREACHABLE when nothing listens, and when no answer comes in time", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = (await createEndpoint(suite.client, { url: `http://127.0.0.1:${port}/hook` })).data;
    const error = expectError(await suite.client.post(`${BASE}/${refused.id}/test`), 502, "WEBHOOK_ENDPOINT_UNREACHABLE");
    assert.equal(error.context.reason, "connection_failed");

    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const slow = (await createEndpoint(suite.client, { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook` })).data;
      const started = Date.now();
      const late = expectError(await suite.client.post(`${BASE}/${slow.id}/test`), 502, "WEBHOOK_ENDPOINT_UNREACHABLE");
      assert.equal(late.context.reason, "timeout");
      assert.ok(Date.now() - started >= TEST_WEBHOOK_NETWORK.timeoutMs - 100);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("applies the endpoint's allowed_ips as deliveries do: an address outside them is not called (502, reason outside_allowed_ips)", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url, allowed_ips: ["10.0.0.0/8"] });
    const count = receiver.received.length;
    const error = expectError(await suite.client.post(`${BASE}/${data.id}/test`), 502, "WEBHOOK_ENDPOINT_UNREACHABLE");
    assert.deepEqual(error.context, { reason: "outside_allowed_ips", address: "127.0.0.1", allowed_ips: ["10.0.0.0/8"] });
    assert.equal(error.message, "The endpoint was not called: 127.0.0.1 is outside the endpoint's allowed_ips (10.0.0.0/8).");
    assert.equal(receiver.received.length, count, "nothing was posted");

    // Inside them, the call goes out.
    const inside = (await createEndpoint(suite.client, { url: receiver.url, allowed_ips: ["10.0.0.0/8", "127.0.0.1"] })).data;
    const res = await suite.client.post(`${BASE}/${inside.id}/test`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(receiver.received.length, count + 1);
  });

  it("checks the address again before sending: an endpoint now refused is not called (502, reason refused_address)", async () => {
    const { data } = await createEndpoint(suite.client, { url: receiver.url });
    const strict = await startApi({ webhooks: STRICT_WEBHOOK_NETWORK });
    try {
      const count = receiver.received.length;
      const res = await fetch(`${strict.url}${BASE}/${data.id}/test`, {
        method: "POST",
        headers: { authorization: `Bearer ${suite.creator.token}`, "idempotency-key": crypto.randomUUID() },
      });
      const body = (await res.json()) as { error: { code: string; context: Record<string, string> } };
      assert.equal(res.status, 502);
      assert.equal(body.error.code, "WEBHOOK_ENDPOINT_UNREACHABLE");
      assert.deepEqual(body.error.context, { reason: "refused_address", address: "127.0.0.1" });
      assert.equal(receiver.received.length, count, "nothing was posted");
    } finally {
      await strict.close();
    }
  });
});
