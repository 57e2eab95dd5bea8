// Stripe's events for the creators' own tier billing: POST {base_url}/billing/stripe/events, the
// PLATFORM account's webhook endpoint (its own secret, STRIPE_BILLING_WEBHOOK_SECRET; the Connect
// endpoint's events go to /payments/stripe/events). The signature is checked over the exact bytes
// first (400 PROVIDER_SIGNATURE_INVALID, nothing stored otherwise); each event is stored once in the
// inbox (payment_provider_events, provider "stripe_billing") in the transaction that applies it, and
// applied by re-reading its subscription from Stripe, so a repeat or a late event changes nothing
// the current state does not say. Every event that was read answers 200 (Stripe retries others).
import type Koa from "koa";
import type Stripe from "stripe";
import type { Logger } from "pino";
import { unscoped } from "../../db/tenant.ts";
import { ApiError } from "../../errors.ts";
import { readBodyText } from "../../http/body.ts";
import { BILLING_EVENTS_PATH } from "../../modules/billing/stripe-setup.ts";
import { syncTierSubscription, type SyncOutcome } from "../../modules/billing/tier-subscription.ts";
import type { StripePayments } from "../../modules/payments/stripe/stripe-payments.ts";
import { constructStripeEvent, StripeWebhookSignatureError } from "../../modules/payments/stripe/webhook.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";

export { BILLING_EVENTS_PATH };

/** The inbox's provider name for the platform account's tier billing events. */
export const BILLING_PROVIDER = "stripe_billing";

export interface BillingEventsDeps extends PipelineDeps {
  logger: Logger;
  /** Read at each request; no `billing` = this deployment bills no tiers. */
  stripe?: StripePayments | null;
}

const invalidSignature = (why: string) => new ApiError("PROVIDER_SIGNATURE_INVALID", `${why} Nothing was read from this request or changed.`);

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));

/** The customer and subscription an event is about, or null for an event tier billing does not act on. */
function subjectOf(event: Stripe.Event): { customer: string; subscription: string } | null {
  const object = event.data.object as unknown as Record<string, any>;
  let subscription: string | null = null;
  if (event.type === "checkout.session.completed") subscription = object.mode === "subscription" ? idOf(object.subscription) : null;
  else if (event.type === "invoice.paid" || event.type === "invoice.payment_failed")
    subscription = idOf(object.parent?.subscription_details?.subscription);
  else if (event.type === "customer.subscription.updated" || event.type === "customer.subscription.deleted") subscription = object.id;
  const customer = idOf(object.customer);
  return subscription && customer ? { customer, subscription } : null;
}

export function billingEvents(deps: BillingEventsDeps): Koa.Middleware {
  return async (ctx) => {
    const stripe = deps.stripe;
    const billing = stripe?.billing;
    if (!stripe || !billing) throw new ApiError("RESOURCE_NOT_FOUND", "This deployment bills no tiers through Stripe.");
    const signature = ctx.get("stripe-signature");
    if (!signature) throw invalidSignature("The request carries no Stripe-Signature header.");
    const { bytes } = await readBodyText(ctx);
    let event: Stripe.Event;
    try {
      event = constructStripeEvent(stripe.client, bytes, signature, billing.webhookSecret);
    } catch (err) {
      if (err instanceof StripeWebhookSignatureError) throw invalidSignature("The Stripe-Signature does not verify under this endpoint's secret.");
      throw err;
    }
    const now = deps.now();
    const outcome = await deps.db.transaction(async (trx): Promise<SyncOutcome | { outcome: "duplicate" }> => {
      const stored = await unscoped(
        trx,
        "a provider event names no team until it is matched",
      )("payment_provider_events")
        .insert({ provider: BILLING_PROVIDER, event_id: event.id, kind: event.type, received_at: now })
        .onConflict(["provider", "event_id"])
        .ignore()
        .returning("event_id");
      if ((stored as unknown[]).length === 0) return { outcome: "duplicate" };
      const subject = subjectOf(event);
      if (!subject) return { outcome: "ignored", reason: "an event tier billing does not act on" };
      return syncTierSubscription(trx, { client: stripe.client, billing }, subject.customer, subject.subscription, now);
    });
    deps.logger.info({ event_id: event.id, type: event.type, ...outcome }, "stripe billing event applied");
    ctx.status = 200;
    ctx.body = {};
  };
}
