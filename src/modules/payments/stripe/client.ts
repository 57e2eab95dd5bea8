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
