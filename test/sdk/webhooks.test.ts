// verifyWebhook accepts exactly what the API signs: SB-Signature t=<s>,v1=<hex HMAC-SHA256 of
// "<t>.<raw body>" keyed with the whole whsec_ secret>, within 300 s, with matching event headers.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { signWebhookPayload, verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from "../../sdk/src/webhooks.ts";

const SECRET = "whsec_3q2+7w8x9y0zAbCdEfGhIjKlMnOpQrSt";
const NOW = 1_790_000_000;
const event = {
  id: "evt_01JD6YV4J8Q7Z3K2M9N5P0R1ST",
  type: "team.member.joined",
  created_at: "2026-09-21T10:00:00.000Z",
  api_version: "2026-07-28",
  project_id: null,
  data: { member: { name: "Zoë ✓" } },
};
const body = JSON.stringify(event);

/** An independent signer (node:crypto) that the server's must match byte for byte. */
function referenceSignature(rawBody: string | Uint8Array, secret: string, t: number): string {
  const hmac = createHmac("sha256", Buffer.from(secret, "utf8"));
  hmac.update(`${t}.`);
  hmac.update(rawBody);
  return `t=${t},v1=${hmac.digest("hex")}`;
}

function deliveryHeaders(signature: string): Record<string, string> {
  return { "SB-Signature": signature, "SB-Event-Id": event.id.slice(4), "SB-Event-Name": event.type, "Content-Type": "application/json" };
}

async function failure(promise: Promise<unknown>): Promise<WebhookVerificationFailure> {
  const error = await promise.then(
    () => assert.fail("verification passed"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WebhookVerificationError, String(error));
  return error.reason;
}

describe("sdk webhooks", () => {
  it("signs exactly as the reference HMAC does, and verifies what it signs", async () => {
    const signature = await signWebhookPayload(body, SECRET, { timestamp: NOW });
    assert.equal(signature, referenceSignature(body, SECRET, NOW));
    assert.deepEqual(await verifyWebhook(body, deliveryHeaders(signature), SECRET, { now: NOW }), event);
  });

  it("accepts the raw body as bytes (a Node Buffer) and Fetch Headers as well as plain header objects", async () => {
    const bytes = Buffer.from(body, "utf8");
    const signature = referenceSignature(bytes, SECRET, NOW);
    assert.deepEqual(await verifyWebhook(bytes, new Headers(deliveryHeaders(signature)), SECRET, { now: NOW }), event);
    const nodeStyle = { "sb-signature": signature, "sb-event-id": [event.id.slice(4)], "sb-event-name": event.type, host: undefined };
    assert.deepEqual(await verifyWebhook(new Uint8Array(bytes), nodeStyle, SECRET, { now: new Date(NOW * 1000) }), event);
  });

  it("refuses a tampered body, a wrong secret and a missing or malformed signature", async () => {
    const signature = referenceSignature(body, SECRET, NOW);
    assert.equal(
      await failure(verifyWebhook(body.replace("joined", "removed"), deliveryHeaders(signature), SECRET, { now: NOW })),
      "signature_mismatch",
    );
    assert.equal(await failure(verifyWebhook(`${body} `, deliveryHeaders(signature), SECRET, { now: NOW })), "signature_mismatch");
    assert.equal(await failure(verifyWebhook(body, deliveryHeaders(signature), "whsec_other", { now: NOW })), "signature_mismatch");
    assert.equal(
      await failure(verifyWebhook(body, deliveryHeaders(signature), SECRET.slice("whsec_".length), { now: NOW })),
      "signature_mismatch",
      "the whsec_ prefix is part of the key",
    );
    assert.equal(await failure(verifyWebhook(body, { "Content-Type": "application/json" }, SECRET, { now: NOW })), "missing_signature");
    assert.equal(await failure(verifyWebhook(body, deliveryHeaders(signature.replace(/^t=\d+,/, "")), SECRET, { now: NOW })), "malformed_signature");
    assert.equal(await failure(verifyWebhook(body, deliveryHeaders(`t=${NOW}`), SECRET, { now: NOW })), "malformed_signature");
  });

  it("refuses a timestamp more than 300 s old or ahead, and honours toleranceSeconds", async () => {
    const old = referenceSignature(body, SECRET, NOW - 301);
    assert.equal(await failure(verifyWebhook(body, deliveryHeaders(old), SECRET, { now: NOW })), "timestamp_out_of_tolerance");
    const ahead = referenceSignature(body, SECRET, NOW + 301);
    assert.equal(await failure(verifyWebhook(body, deliveryHeaders(ahead), SECRET, { now: NOW })), "timestamp_out_of_tolerance");
    const edge = referenceSignature(body, SECRET, NOW - 300);
    assert.deepEqual(await verifyWebhook(body, deliveryHeaders(edge), SECRET, { now: NOW }), event);
    assert.deepEqual(await verifyWebhook(body, deliveryHeaders(old), SECRET, { now: NOW, toleranceSeconds: 400 }), event);
    assert.equal(await failure(verifyWebhook(body, deliveryHeaders(edge), SECRET, { now: NOW, toleranceSeconds: 60 })), "timestamp_out_of_tolerance");
  });

  it("accepts a header with several v1 entries when any one matches", async () => {
    const good = referenceSignature(body, SECRET, NOW).split(",v1=")[1];
    const other = referenceSignature(body, "whsec_previous", NOW).split(",v1=")[1];
    const header = `t=${NOW},v1=${other},v1=${good}`;
    assert.deepEqual(await verifyWebhook(body, deliveryHeaders(header), SECRET, { now: NOW }), event);
    assert.equal(
      await failure(verifyWebhook(body, deliveryHeaders(`t=${NOW},v1=${other},v1=${"0".repeat(64)}`), SECRET, { now: NOW })),
      "signature_mismatch",
    );
  });

  it("checks SB-Event-Id and SB-Event-Name against the envelope when they are present", async () => {
    const signature = referenceSignature(body, SECRET, NOW);
    assert.equal(
      await failure(verifyWebhook(body, { ...deliveryHeaders(signature), "SB-Event-Id": "01JD6YV4J8Q7Z3K2M9N5P0R1SX" }, SECRET, { now: NOW })),
      "event_id_mismatch",
    );
    assert.equal(
      await failure(verifyWebhook(body, { ...deliveryHeaders(signature), "SB-Event-Id": event.id }, SECRET, { now: NOW })),
      "event_id_mismatch",
      "the header carries the bare ULID",
    );
    assert.equal(
      await failure(verifyWebhook(body, { ...deliveryHeaders(signature), "SB-Event-Name": "team.member.removed" }, SECRET, { now: NOW })),
      "event_name_mismatch",
    );
    assert.deepEqual(await verifyWebhook(body, { "SB-Signature": signature }, SECRET, { now: NOW }), event);
  });

  it("refuses a correctly signed body that is not an event envelope", async () => {
    for (const payload of ["not json", JSON.stringify({ type: "x" }), JSON.stringify({ id: "01JD", type: "x" })]) {
      const signature = referenceSignature(payload, SECRET, NOW);
      assert.equal(await failure(verifyWebhook(payload, { "SB-Signature": signature }, SECRET, { now: NOW })), "invalid_payload", payload);
    }
  });

  it("uses the clock by default", async () => {
    const signature = await signWebhookPayload(body, SECRET);
    assert.deepEqual(await verifyWebhook(body, deliveryHeaders(signature), SECRET), event);
  });
});
