// The official Stripe client, pointed at real Stripe or at the Stripe twin (its host and port),
// with a bounded timeout and few retries so a slow Stripe cannot hold a request or a job for long.
import Stripe from "stripe";

export interface StripeClientOptions {
  secretKey: string;
  /** The twin's (or another Stripe-compatible server's) address; absent = api.stripe.com. */
  host?: string;
  port?: number;
  protocol?: "http" | "https";
  /** Milliseconds per request; Stripe's own default is 80 s, far longer than a member waits. */
  timeoutMs?: number;
}

export function createStripeClient(options: StripeClientOptions): Stripe {
  const target = options.host
    ? { host: options.host, ...(options.port !== undefined ? { port: options.port } : {}), protocol: options.protocol ?? "https" }
    : {};
  return new Stripe(options.secretKey, {
    ...target,
    timeout: options.timeoutMs ?? 20_000,
    // Stripe's client retries only what is safe (idempotency keys on POSTs); two retries bound the wait.
    maxNetworkRetries: 2,
    telemetry: false,
  });
}

/**
 * The origin of the Stripe-compatible server `client` reaches (the twin, STRIPE_API_URL), which
 * also serves its hosted pages; null for real Stripe, whose pages have their own hosts. A browser
 * checks a form's redirect to those pages against the page's CSP form-action, which must name them.
 * stripe-node keeps the host, port and protocol as api fields.
 */
export function compatibleServerOrigin(client: Stripe): string | null {
  const field = (key: string) => (client as unknown as { getApiField(key: string): unknown }).getApiField(key);
  const host = String(field("host"));
  if (host === "api.stripe.com") return null;
  const protocol = field("protocol") === "http" ? "http" : "https";
  const port = Number(field("port"));
  return `${protocol}://${host}${port && port !== (protocol === "http" ? 80 : 443) ? `:${port}` : ""}`;
}
