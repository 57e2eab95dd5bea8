// SB-Signature is the scheme Stripe's verifiers check (t=<s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">,
// 300 s tolerance), so a receiver that already uses stripe-node can verify SubBridge deliveries with
// it: stripe.webhooks.constructEvent accepts what the server's signer produces, and refuses a
// tampered body, a wrong secret and a stale timestamp, exactly where the SDK's verifyWebhook does.
import assert from "node:assert/strict";
import Stripe from "stripe";
import { deliveryHeaders, signatureHeader } from "../../src/modules/webhooks/signature.ts";
import { verifyWebhook, WebhookVerificationError } from "../../sdk/src/webhooks.ts";
import { openapi } from "../helpers/http.ts";

const SECRET = "whsec_7kQ2mX9pL4vN8rT1wY6zB3cF5hJ0sD2g";
// A client is only a holder for the webhooks helpers here: constructEvent calls no API.
const stripe = new Stripe("sk_test_not_used_for_webhook_verification");

/** A real envelope: the spec's example for subscription.created, serialised as the server sends it. */
const event = openapi.webhooks["subscription.created"].post.requestBody.content["application/json"].example;
const body = JSON.stringify(event);

function signed(at: Date, secret = SECRET): Record<string, string> {
  return deliveryHeaders({ secret, body, event, release: "3.0.0", at });
}

/** The error stripe-node throws, or a failure when it accepted. */
function stripeRefusal(payload: string, header: string, secret: string): Error {
  try {
    stripe.webhooks.constructEvent(payload, header, secret);
  } catch (error) {
    assert.ok(error instanceof Stripe.errors.StripeSignatureVerificationError, String(error));
    return error;
  }
  return assert.fail("stripe-node accepted the delivery");
}

describe("stripe-node verifies SubBridge webhook signatures", () => {
  it("constructEvent accepts the SB-Signature value the server's signer produces, and parses the envelope", () => {
    const headers = signed(new Date());
    const parsed = stripe.webhooks.constructEvent(body, headers["sb-signature"]!, SECRET);
    assert.deepEqual(parsed, event);
    // Raw bytes (what express.raw() hands over) verify as well.
    assert.deepEqual(stripe.webhooks.constructEvent(Buffer.from(body, "utf8"), headers["sb-signature"]!, SECRET), event);
  });

  it("the SDK's verifyWebhook accepts the same delivery, headers and all", async () => {
    const headers = signed(new Date());
    const verified = await verifyWebhook(body, headers, SECRET);
    assert.deepEqual(verified, event);
    assert.equal(verified.type, "subscription.created");
  });

  it("both refuse a tampered body and a wrong secret", async () => {
    const header = signatureHeader(SECRET, body, new Date());
    const tampered = body.replace('"status":"active"', '"status":"expired"');
    assert.notEqual(tampered, body);
    assert.match(stripeRefusal(tampered, header, SECRET).message, /No signatures found matching the expected signature/);
    assert.match(stripeRefusal(body, header, "whsec_someone_elses_secret").message, /No signatures found matching the expected signature/);
    await assert.rejects(
      verifyWebhook(tampered, { "SB-Signature": header }, SECRET),
      (e: unknown) => e instanceof WebhookVerificationError && e.reason === "signature_mismatch",
    );
    await assert.rejects(
      verifyWebhook(body, { "SB-Signature": header }, "whsec_someone_elses_secret"),
      (e: unknown) => e instanceof WebhookVerificationError && e.reason === "signature_mismatch",
    );
  });

  it("both use a 300 s tolerance: 290 s old is accepted, 310 s old refused", async () => {
    const now = Date.now();
    const recent = signatureHeader(SECRET, body, new Date(now - 290_000));
    const stale = signatureHeader(SECRET, body, new Date(now - 310_000));
    assert.deepEqual(stripe.webhooks.constructEvent(body, recent, SECRET), event);
    assert.match(stripeRefusal(body, stale, SECRET).message, /Timestamp outside the tolerance zone/);
    assert.equal((await verifyWebhook(body, { "SB-Signature": recent }, SECRET)).id, event.id);
    await assert.rejects(
      verifyWebhook(body, { "SB-Signature": stale }, SECRET),
      (e: unknown) => e instanceof WebhookVerificationError && e.reason === "timestamp_out_of_tolerance",
    );
  });
});
