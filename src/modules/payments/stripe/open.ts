// Stripe for the running service, as configured: real Stripe (or STRIPE_API_URL's Stripe-compatible
// server) with the platform's key and the Connect endpoint's secret; on a simulated start the Stripe
// twin on loopback, with a Connect webhook endpoint registered on it pointing at the API's route, so
// a person trying `npm start` can pay (and a platform endpoint and the tiers' prices for the
// creators' own billing); none at all on PostgreSQL without a key.
import { createHmac } from "node:crypto";
import type Stripe from "stripe";
import type { StripeConfig } from "../../../config.ts";
import { setUpSimulatedBilling, type StripeBilling } from "../../billing/stripe-setup.ts";
import { startStripeTwin } from "../stripe-twin/index.ts";
import { createStripeClient } from "./client.ts";

/** Where Stripe posts the connected accounts' events, under {base_url}. */
export const STRIPE_EVENTS_PATH = "/payments/stripe/events";

export const stripeEventsUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, "")}${STRIPE_EVENTS_PATH}`;

/** What the webhook route and the provider registry need. */
export interface StripePayments {
  client: Stripe;
  /** The Connect webhook endpoint's signing secret (whsec_). */
  webhookSecret: string;
  /** The creators' own tier billing on the platform account; absent or null = not configured. */
  billing?: StripeBilling | null;
}

export interface OpenedStripe {
  /** Null when this deployment has no Stripe. */
  payments: StripePayments | null;
  /** For the start banner. */
  description: string;
  close(): Promise<void>;
}

/** The client options that reach `apiUrl` (host, port, protocol) instead of api.stripe.com. */
function target(apiUrl: string): { host: string; port?: number; protocol: "http" | "https" } {
  const url = new URL(apiUrl);
  return { host: url.hostname, ...(url.port ? { port: Number(url.port) } : {}), protocol: url.protocol === "http:" ? "http" : "https" };
}

/** The simulated twin's key, derived from APP_KEY so it stays the same across restarts and an operator's tools can reach the twin. */
export const simulatedStripeKey = (appKey: Buffer) => `sk_test_${createHmac("sha256", appKey).update("stripe-twin").digest("hex")}`;

export async function openStripe(config: StripeConfig, baseUrl: string, appKey: Buffer): Promise<OpenedStripe> {
  if (config.secretKey && config.webhookSecret) {
    const client = createStripeClient({ secretKey: config.secretKey, ...(config.apiUrl ? target(config.apiUrl) : {}) });
    return {
      payments: { client, webhookSecret: config.webhookSecret, billing: config.billing },
      description: config.apiUrl ? `Stripe-compatible server at ${config.apiUrl}` : "Stripe (api.stripe.com)",
      close: async () => {},
    };
  }
  if (!config.simulated) {
    return {
      payments: null,
      description: "none: payments by Stripe are unavailable (set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET)",
      close: async () => {},
    };
  }
  const twin = await startStripeTwin({ secretKey: simulatedStripeKey(appKey) });
  const client = createStripeClient({ secretKey: twin.secretKey, ...twin.clientOptions });
  try {
    const endpoint = await client.webhookEndpoints.create({ url: stripeEventsUrl(baseUrl), enabled_events: ["*"], connect: true });
    // The creators' tiers are billed on the platform account: its prices and its own endpoint.
    const billing = await setUpSimulatedBilling(client, baseUrl);
    return {
      payments: { client, webhookSecret: endpoint.secret!, billing },
      description: `Stripe simulated on ${twin.url}; set STRIPE_SECRET_KEY for real Stripe`,
      close: () => twin.close(),
    };
  } catch (err) {
    await twin.close();
    throw err;
  }
}
