// The Stripe provider (issue 33): the client, Connect onboarding, the PaymentProvider and the webhook parser.
export { compatibleServerOrigin, createStripeClient, type StripeClientOptions } from "./client.ts";
export { accountReady, createConnectedAccount, onboardingLink } from "./connect.ts";
export { lookupKey, MAX_INTERVAL_COUNT, stripeRefusal } from "./prices.ts";
export { checkoutOrigin, stripeCouponId, stripeProvider } from "./provider.ts";
export { parseStripeWebhook, StripeWebhookSignatureError } from "./webhook.ts";
