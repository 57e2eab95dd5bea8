// Stripe Connect for a creator's own Stripe account: create the connected account, send the creator
// through Stripe's hosted onboarding (an account link), and tell when it can take payments.
import type Stripe from "stripe";
import { compatibleServerOrigin } from "./client.ts";

/**
 * An Express account for the creator. With `idempotencyKey` (the connection's id) a retried or
 * concurrent start answers the same account instead of making a second one.
 */
export async function createConnectedAccount(client: Stripe, input: { email: string; country?: string; idempotencyKey?: string }): Promise<string> {
  const account = await client.accounts.create(
    {
      type: "express",
      email: input.email,
      ...(input.country ? { country: input.country } : {}),
      capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
    },
    input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {},
  );
  return account.id;
}

/** A single-use onboarding URL; Stripe sends an expired or used one to refreshUrl, where a new one is made. */
export async function onboardingLink(client: Stripe, account: string, urls: { refreshUrl: string; returnUrl: string }): Promise<string> {
  const link = await client.accountLinks.create({
    account,
    type: "account_onboarding",
    refresh_url: urls.refreshUrl,
    return_url: urls.returnUrl,
  });
  return link.url;
}

/** Whether the connected account can be charged (onboarding done and approved). */
export async function accountReady(client: Stripe, account: string): Promise<boolean> {
  return (await client.accounts.retrieve(account)).charges_enabled === true;
}

/**
 * Where the onboarding pages are served: the connect form's answer redirects there, and a browser
 * checks that redirect against the page's CSP form-action, which must name it. Real Stripe serves
 * them on connect.stripe.com; a Stripe-compatible server (the twin, STRIPE_API_URL) on its own address.
 */
export const onboardingOrigin = (client: Stripe): string => compatibleServerOrigin(client) ?? "https://connect.stripe.com";
