// Webhook delivery as Stripe does it: the event's JSON POSTed to each endpoint that wants it, with
// `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">` under the endpoint's whsec_ secret,
// which the official client's `stripe.webhooks.constructEvent` verifies. Deliveries run one at a
// time in event order and are recorded; the twin does not retry a failed one.
import { SECRET_PREFIX, signatureHeader } from "../../modules/webhooks/signature.ts";

export { SECRET_PREFIX };

export interface Delivery {
  endpoint: string;
  event: string;
  type: string;
  url: string;
  /** The endpoint's HTTP status, or null when it could not be reached. */
  status: number | null;
  error: string | null;
}

export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private queue: Promise<void> = Promise.resolve();

  send(endpoint: { id: string; url: string; secret: string }, event: { id: string; [key: string]: unknown }) {
    const payload = JSON.stringify(event, null, 2);
    this.queue = this.queue.then(async () => {
      const delivery: Delivery = { endpoint: endpoint.id, event: event.id, type: String(event.type), url: endpoint.url, status: null, error: null };
      try {
        // The signature's time is the wall clock even when the twin's clock was advanced, since receivers check it against theirs.
        const response = await fetch(endpoint.url, {
          method: "POST",
          headers: {
            "content-type": "application/json; charset=utf-8",
            "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
            // SubBridge's own signer produces exactly Stripe's scheme, so the twin reuses it.
            "stripe-signature": signatureHeader(endpoint.secret, payload, new Date()),
          },
          body: payload,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        delivery.status = response.status;
      } catch (error) {
        delivery.error = error instanceof Error ? error.message : String(error);
      }
      this.deliveries.push(delivery);
    });
  }

  /**
   * Resolves once every delivery queued so far has been attempted, and those queued meanwhile by
   * work the twin deferred to after the operation that caused it (a 0259 card's dispute).
   */
  async settled(): Promise<void> {
    for (;;) {
      const queued = this.queue;
      await queued;
      await new Promise((resolve) => setImmediate(resolve));
      if (queued === this.queue) return;
    }
  }
}
