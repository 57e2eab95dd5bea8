// How every request to an endpoint is signed and labelled (Events, "Request headers"): SB-Signature
// is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's whole
// whsec_ secret> (the scheme Stripe's verifiers accept); SB-Event-Id is the envelope id without evt_.
// The test call uses it now; the delivery workers reuse it.
import { createHmac } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest("hex");
  return `t=${t},v1=${v1}`;
}

export interface SignedRequest {
  secret: string;
  /** The raw JSON body, exactly as sent. */
  body: string;
  event: { id: string; type: string };
  /** The service's release (User-Agent: SubBridge-Webhooks/<release>). */
  release: string;
  at: Date;
}

export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": `SubBridge-Webhooks/${request.release}`,
    "sb-signature": signatureHeader(request.secret, request.body, request.at),
    "sb-event-id": request.event.id.replace(/^evt_/, ""),
    "sb-event-name": request.event.type,
  };
}
