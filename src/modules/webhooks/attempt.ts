// One attempt of one delivery, without the database: resolve the endpoint's host now, check every
// address it resolves to (public, or exempt by the operator; and inside the endpoint's allowed_ips
// when it has them), then post the signed envelope to the address that was checked. A refused
// address dead-letters the delivery unposted with the address in the excerpt; a name that does not
// resolve, a non-2xx answer, a time-out or a connection failure follow the retry ladder.
import { checkEndpointAddress, type WebhookNetwork } from "./address-guard.ts";
import { endpointSecret } from "./endpoints.ts";
import { nextAttemptAt } from "./ladder.ts";
import { deliverableData } from "./payload-policy.ts";
import { EndpointUnreachable, postToAddress, type AgentPool } from "./send.ts";
import { messageSignatureHeaders } from "./message-signature.ts";
import { deliveryHeaders } from "./signature.ts";
import type { WebhookSigningKey } from "./signing-keys.ts";
import type { ClaimedDelivery, DeliveryOutcome } from "./delivery-queue.ts";

export interface AttemptEnvironment {
  appKey: Buffer;
  network: WebhookNetwork;
  release: string;
  agents: AgentPool;
}

export async function attemptDelivery(
  delivery: ClaimedDelivery,
  env: AttemptEnvironment,
  options: { now: Date; subscriberContacts: boolean; signingKey: WebhookSigningKey },
): Promise<DeliveryOutcome> {
  const { now } = options;
  const attempts = delivery.attempts + 1;
  const base = { delivery, attemptedAt: now, responseStatus: null, durationMs: null, refused: false };
  const failure = (excerpt: string, extra: Partial<DeliveryOutcome> = {}): DeliveryOutcome => {
    const next = nextAttemptAt(attempts, now);
    return { ...base, status: next ? "queued" : "dead", failed: true, nextAttemptAt: next, excerpt, ...extra };
  };
  const deadUnposted = (reason: string): DeliveryOutcome => ({
    ...base,
    status: "dead",
    failed: true,
    nextAttemptAt: null,
    refused: true,
    excerpt: `refused, not posted: ${reason}`,
  });

  const url = new URL(delivery.endpoint.url);
  const checked = await checkEndpointAddress(url, env.network, delivery.endpoint.allowed_ips);
  if (!checked.ok) return checked.reason === "unresolvable" ? failure(`not posted: ${checked.message}`) : deadUnposted(checked.message);

  const event = {
    ...delivery.event,
    data: deliverableData(delivery.event.type, delivery.event.data, { subscriberContacts: options.subscriberContacts }),
  };
  const body = JSON.stringify(event);
  const at = new Date();
  const headers = deliveryHeaders({
    secret: endpointSecret(env.appKey, { id: delivery.endpoint_id, ...delivery.endpoint }),
    body,
    event,
    release: env.release,
    at,
  });
  // Both signatures are made now, at send time: SB-Signature with the endpoint's secret, and the
  // service's RFC 9421 signature (Content-Digest, Signature-Input, Signature) with its Ed25519 key.
  Object.assign(headers, messageSignatureHeaders(options.signingKey, { method: "POST", url, body, headers, at }));
  try {
    const answer = await postToAddress(url, checked.addresses[0]!, body, headers, env.network.timeoutMs, {
      pool: env.agents,
      teamId: delivery.team_id,
    });
    const extra = { responseStatus: answer.status, excerpt: answer.excerpt, durationMs: answer.durationMs };
    if (answer.status >= 200 && answer.status < 300) return { ...base, ...extra, status: "delivered", failed: false, nextAttemptAt: null };
    return failure(answer.excerpt, extra);
  } catch (err) {
    if (err instanceof EndpointUnreachable) return failure(err.message);
    throw err;
  }
}
