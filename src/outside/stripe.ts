// Stripe for the running service, as configured: real Stripe (or STRIPE_API_URL's Stripe-compatible
// server) with the platform's key and the Connect endpoint's secret; on a simulated start the Stripe
// twin on loopback, with a Connect webhook endpoint registered on it pointing at the API's route, so
// a person trying `npm start` can pay (and a platform endpoint and the tiers' prices for the
// creators' own billing), remembering its state across restarts as Stripe does; none at all on
// PostgreSQL without a key.
import { createHmac } from "node:crypto";
import { join } from "node:path";
import type Stripe from "stripe";
import type { StripeConfig } from "../config.ts";
import type { SimulatorListener } from "./simulator-listeners.ts";
import { BILLING_EVENTS_PATH, setUpSimulatedBilling } from "../modules/billing/stripe-setup.ts";
import { startStripeTwin } from "../simulators/stripe/index.ts";
import { createStripeClient } from "../modules/payments/stripe/client.ts";
import { STRIPE_EVENTS_PATH, stripeEventsUrl, type StripePayments } from "../modules/payments/stripe/stripe-payments.ts";

export interface OpenedStripe {
  /** Null when this deployment has no Stripe. */
  payments: StripePayments | null;
  /** For the start banner. */
  description: string;
  /** The simulator's listeners, for the banner's Simulators line. */
  listeners?: SimulatorListener[];
  close(): Promise<void>;
}

/** The client options that reach `apiUrl` (host, port, protocol) instead of api.stripe.com. */
function target(apiUrl: string): { host: string; port?: number; protocol: "http" | "https" } {
  const url = new URL(apiUrl);
  return { host: url.hostname, ...(url.port ? { port: Number(url.port) } : {}), protocol: url.protocol === "http:" ? "http" : "https" };
}

/** The simulated twin's key, derived from APP_KEY so it stays the same across restarts and an operator's tools can reach the twin. */
export const simulatedStripeKey = (appKey: Buffer) => `sk_test_${createHmac("sha256", appKey).update("stripe-twin").digest("hex")}`;

/** Where a simulated start's twin keeps what it knows (accounts, products, customers, subscriptions...) under DATA_DIR. */
export const STRIPE_TWIN_FILE = "simulated-stripe.json";

/**
 * The endpoints an earlier start registered on the twin, which remembers them: each start makes its
 * own (Stripe shows an endpoint's secret only when it is made), so the old ones, wherever their
 * base URL was, are deleted first rather than left to double every event.
 */
async function deleteEarlierEndpoints(client: Stripe): Promise<void> {
  const earlier = [];
  for await (const endpoint of client.webhookEndpoints.list({ limit: 100 }))
    if ([STRIPE_EVENTS_PATH, BILLING_EVENTS_PATH].some((path) => endpoint.url.endsWith(path))) earlier.push(endpoint.id);
  for (const id of earlier) await client.webhookEndpoints.del(id);
}

/**
 * Opens Stripe as configured; a simulated start's twin keeps its state in `dataDir` when given (npm
 * start), in memory otherwise, and listens on `twinPort` when given (STRIPE_TWIN_PORT).
 */
export async function openStripe(
  config: StripeConfig,
  baseUrl: string,
  appKey: Buffer,
  dataDir?: string,
  twinPort?: number | null,
): Promise<OpenedStripe> {
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
  const twin = await startStripeTwin({
    secretKey: simulatedStripeKey(appKey),
    port: twinPort ?? null,
    ...(dataDir ? { stateFile: join(dataDir, STRIPE_TWIN_FILE) } : {}),
  });
  const client = createStripeClient({ secretKey: twin.secretKey, ...twin.clientOptions });
  try {
    await deleteEarlierEndpoints(client);
    const endpoint = await client.webhookEndpoints.create({ url: stripeEventsUrl(baseUrl), enabled_events: ["*"], connect: true });
    // The creators' tiers are billed on the platform account: its prices and its own endpoint.
    const billing = await setUpSimulatedBilling(client, baseUrl);
    return {
      payments: { client, webhookSecret: endpoint.secret!, billing },
      description: `Stripe simulated on ${twin.url}; set STRIPE_SECRET_KEY for real Stripe`,
      listeners: [{ name: "Stripe twin", url: twin.url, variable: "STRIPE_TWIN_PORT" }],
      close: () => twin.close(),
    };
  } catch (err) {
    await twin.close();
    throw err;
  }
}
