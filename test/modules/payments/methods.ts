// A project's payment methods for payment tests, made through the domain function the connection
// flow uses: Stripe (a connected account on the twin that finished onboarding, sealed in the method)
// and Telegram Stars (XTR, monthly).
import type Stripe from "stripe";
import { createPaymentMethod } from "../../../src/modules/payment-methods/payment-methods.ts";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { sealStripeCredentials } from "../../../src/modules/payments/providers.ts";
import type { StripeTwin } from "../../../src/modules/payments/stripe-twin/index.ts";
import { createConnectedAccount } from "../../../src/modules/payments/stripe/index.ts";
import { testDatabase } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { asDomain } from "../subscriptions/commerce.ts";

const methodRow = async (id: string) => (await (await testDatabase()).db("payment_methods").where({ id }).first()) as PaymentMethodRow;

/** The project's enabled Stripe method (USD, monthly unless told) on a connected account of `twin`. */
export async function connectStripeMethod(
  creator: TestCreator,
  projectId: string,
  stripe: { twin: StripeTwin; client: Stripe },
  input: { currencies?: string[]; billingCycles?: string[] } = {},
): Promise<{ row: PaymentMethodRow; account: string }> {
  const account = await createConnectedAccount(stripe.client, { email: "creator@example.com", country: "US" });
  await stripe.twin.completeOnboarding(account);
  const method = await asDomain(creator, (ctx) =>
    createPaymentMethod(ctx, projectId, {
      provider: "stripe",
      mode: "test",
      currencies: input.currencies ?? ["USD"],
      billing_cycles: input.billingCycles ?? ["month"],
      sealedCredentials: sealStripeCredentials(TEST_APP_KEY, projectId, { account }),
    }),
  );
  return { row: await methodRow(method.id), account };
}

/** The project's enabled Telegram Stars method (XTR, monthly). */
export async function addStarsMethod(creator: TestCreator, projectId: string): Promise<PaymentMethodRow> {
  const method = await asDomain(creator, (ctx) =>
    createPaymentMethod(ctx, projectId, { provider: "telegram_stars", mode: "test", name: "Stars", currencies: ["XTR"], billing_cycles: ["month"] }),
  );
  return methodRow(method.id);
}
