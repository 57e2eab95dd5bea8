// The synchronous test call: one signed sample event posted to the endpoint now, through the same
// address rules (public addresses, the endpoint's allowed_ips) and pinned connection as a delivery,
// reported whatever the receiver answers. Nothing is recorded; no answer at all, or an address the
// rules refuse, is 502 WEBHOOK_ENDPOINT_UNREACHABLE with the reason.
import { monotonicFactory } from "ulid";
import { ApiError } from "../../errors.ts";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { checkEndpointAddress } from "./address-guard.ts";
import { changeableEndpoint, endpointSecret, type WebhookEnvironment } from "./endpoints.ts";
import { eventSamples, filterCovers } from "./samples.ts";
import { EndpointUnreachable, postToAddress } from "./send.ts";
import { messageSignatureHeaders } from "./message-signature.ts";
import { deliveryHeaders } from "./signature.ts";
import { activeSigningKey } from "./signing-keys.ts";

const ulid = monotonicFactory();

function unreachable(message: string, context: Record<string, unknown>): ApiError {
  return new ApiError("WEBHOOK_ENDPOINT_UNREACHABLE", message, {
    context,
    remediation: "Check that the receiver is up and reachable from the internet on a public address, then test again.",
  });
}

export async function testEndpoint(ctx: DomainContext, env: WebhookEnvironment & { release: string }, id: string) {
  const row = await changeableEndpoint(ctx, id);
  const samples = eventSamples();
  const sample = row.events.map((f) => samples.find((s) => filterCovers(f, s.type))).find(Boolean) ?? samples[0]!;
  const event = {
    ...sample,
    id: `evt_${ulid(ctx.now.getTime())}`,
    created_at: ctx.now.toISOString(),
    project_id: row.project_id ?? sample.project_id,
  };
  const url = new URL(row.url);
  const checked = await checkEndpointAddress(url, env.network, row.allowed_ips);
  if (!checked.ok) {
    const outside = checked.reason === "outside_allowed_ips";
    throw unreachable(`The endpoint was not called: ${checked.message}${outside ? ` (${row.allowed_ips!.join(", ")})` : ""}.`, {
      reason: checked.reason,
      ...(checked.address ? { address: checked.address } : {}),
      ...(outside ? { allowed_ips: row.allowed_ips } : {}),
    });
  }
  const body = JSON.stringify(event);
  const at = new Date();
  const headers = deliveryHeaders({ secret: endpointSecret(env.appKey, row), body, event, release: env.release, at });
  const key = await activeSigningKey(unscoped(ctx, "the service's signing key belongs to no team"), env.appKey, ctx.now);
  Object.assign(headers, messageSignatureHeaders(key, { method: "POST", url, body, headers, at }));
  try {
    const answer = await postToAddress(url, checked.addresses[0]!, body, headers, env.network.timeoutMs);
    return {
      event_id: event.id,
      event_type: event.type,
      delivered: answer.status >= 200 && answer.status < 300,
      response_status: answer.status,
      response_excerpt: answer.excerpt,
      duration_ms: answer.durationMs,
    };
  } catch (err) {
    if (err instanceof EndpointUnreachable) throw unreachable(err.message, { reason: err.reason });
    throw err;
  }
}
