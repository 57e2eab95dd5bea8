// Stripe's events for the creators' connected accounts: POST {base_url}/payments/stripe/events,
// the Connect webhook endpoint's address. The signature is over the exact bytes, so the raw body is
// verified (bounded by MAX_BODY_BYTES) before anything is read from it; one that does not verify
// answers 400 PROVIDER_SIGNATURE_INVALID and changes nothing. Each normalized event is applied
// once (applyProviderEvent) and acted on like a Stars payment (payment-outcome.ts). Stripe retries
// any non-2xx, so every event that was read answers 200, also one that changes nothing.
import type Koa from "koa";
import type { Logger } from "pino";
import { unscoped } from "../../db/tenant.ts";
import { ApiError } from "../../errors.ts";
import { readBodyText } from "../../http/body.ts";
import type { PaymentMethodRow } from "../../modules/payment-methods/tables.ts";
import { applyProviderEvent } from "../../modules/payments/apply.ts";
import type { ProviderEvent, ProviderPayment } from "../../modules/payments/provider.ts";
import { providerRegistry, type ProviderRegistry } from "../../modules/payments/providers.ts";
import type { StripePayments } from "../../modules/payments/stripe/open.ts";
import { parseStripeWebhook, StripeWebhookSignatureError } from "../../modules/payments/stripe/webhook.ts";
import type { CheckoutRow } from "../../modules/payments/tables.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";
import { actOnPaymentOutcome } from "./payment-outcome.ts";

export { STRIPE_EVENTS_PATH } from "../../modules/payments/stripe/open.ts";

export interface StripeEventsDeps extends PipelineDeps {
  logger: Logger;
  /** Read at each request; absent or null = this deployment has no Stripe. */
  stripe?: StripePayments | null;
}

const invalidSignature = (why: string) => new ApiError("PROVIDER_SIGNATURE_INVALID", `${why} Nothing was read from this request or changed.`);

/** Refunds a superseded checkout's payment through the provider of the method it was opened with. */
async function refundSuperseded(deps: StripeEventsDeps, registry: ProviderRegistry, event: ProviderEvent, payment: ProviderPayment) {
  if (event.kind !== "checkout.completed") throw new Error(`a ${event.kind} event supersedes no checkout`);
  const db = unscoped(deps.db, "a superseded Stripe checkout is found by its reference to refund its payment");
  const checkout = (await db("payment_checkouts").where({ id: event.reference, provider: "stripe" }).first()) as CheckoutRow | undefined;
  const row = checkout?.payment_method_id
    ? ((await db("payment_methods").where({ id: checkout.payment_method_id }).first()) as PaymentMethodRow | undefined)
    : undefined;
  const target = row ? await registry.providerFor(row) : null;
  if (!target) throw new Error(`the checkout ${event.reference} has no reachable Stripe payment method to refund through`);
  await target.provider.refund(target.method, payment.providerPaymentId);
}

export function stripeEvents(deps: StripeEventsDeps): Koa.Middleware {
  return async (ctx) => {
    const stripe = deps.stripe;
    if (!stripe) throw new ApiError("RESOURCE_NOT_FOUND", "This deployment takes no payments by Stripe.");
    const signature = ctx.get("stripe-signature");
    if (!signature) throw invalidSignature("The request carries no Stripe-Signature header.");
    const { bytes } = await readBodyText(ctx);
    let events: ProviderEvent[];
    try {
      events = await parseStripeWebhook(bytes, signature, stripe.webhookSecret, stripe.client);
    } catch (err) {
      if (err instanceof StripeWebhookSignatureError) throw invalidSignature("The Stripe-Signature does not verify under this endpoint's secret.");
      throw err;
    }
    const registry = providerRegistry({ db: deps.db, stripe: stripe.client, connectors: deps });
    const now = deps.now();
    for (const event of events) {
      const result = await applyProviderEvent(deps.db, "stripe", event, now);
      deps.logger.info({ event_id: event.eventId, kind: event.kind, outcome: result.outcome }, "stripe event applied");
      await actOnPaymentOutcome(deps, result, now, {
        log: { event_id: event.eventId },
        refund: (payment) => refundSuperseded(deps, registry, event, payment),
      });
    }
    ctx.status = 200;
    ctx.body = {};
  };
}
