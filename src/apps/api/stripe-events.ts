// Stripe's events for the creators' connected accounts: POST {base_url}/payments/stripe/events,
// the Connect webhook endpoint's address. The signature is over the exact bytes, so the raw body is
// verified (bounded by MAX_BODY_BYTES) before anything is read from it; one that does not verify
// answers 400 PROVIDER_SIGNATURE_INVALID and changes nothing. Each normalized event is applied
// once and acted on like a Stars payment or a reconciled one (modules/payments/outcome.ts). Stripe retries
// any non-2xx, so every event that was read answers 200, also one that changes nothing.
import type Koa from "koa";
import type { Logger } from "pino";
import { ApiError } from "../../errors.ts";
import { readBodyText } from "../../http/body.ts";
import { applyProviderEvents } from "../../modules/payments/outcome.ts";
import type { ProviderEvent } from "../../modules/payments/provider.ts";
import { providerRegistry } from "../../modules/payments/providers.ts";
import { completeConnectionsOfAccount, connectedAccountEvent, disconnectStripeAccount } from "../../modules/payments/connections.ts";
import type { StripePayments } from "../../modules/payments/stripe/stripe-payments.ts";
import { parseStripeWebhook, StripeWebhookSignatureError } from "../../modules/payments/stripe/webhook.ts";
import type { PipelineDeps } from "../../pipeline/run.ts";

export interface StripeEventsDeps extends PipelineDeps {
  logger: Logger;
  /** Read at each request; absent or null = this deployment has no Stripe. */
  stripe?: StripePayments | null;
}

const invalidSignature = (why: string) => new ApiError("PROVIDER_SIGNATURE_INVALID", `${why} Nothing was read from this request or changed.`);

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
    // account.updated is no payment event: it completes a project's pending Stripe connection (connections.ts).
    const updatedAccount = connectedAccountEvent(bytes, "account.updated");
    if (updatedAccount)
      await completeConnectionsOfAccount(deps.db, stripe.client, deps.appKey, updatedAccount, deps.now(), deps.environment ?? "live");
    // Nor is the creator disconnecting SubBridge in Stripe: it ends the connection and turns its method off.
    const deauthorized = connectedAccountEvent(bytes, "account.application.deauthorized");
    if (deauthorized) await disconnectStripeAccount(deps.db, deauthorized, deps.now());
    const registry = providerRegistry({ db: deps.db, stripe: stripe.client, connectors: deps });
    await applyProviderEvents({ ...deps, registry }, events, deps.now(), { provider: "stripe", log: {} });
    ctx.status = 200;
    ctx.body = {};
  };
}
