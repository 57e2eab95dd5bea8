// What the Stripe webhook routes and the provider registry are given of the configured Stripe (src/outside/stripe.ts opens it).
import type Stripe from "stripe";
import type { StripeBilling } from "../../billing/stripe-setup.ts";

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
