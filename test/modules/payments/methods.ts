// A project's payment methods for payment tests, made through the domain function the connection
// flow uses: Stripe (a connected account on the twin that finished onboarding, sealed in the method,
// and the completed connection that names it) and Telegram Stars (XTR, monthly).
import type Stripe from "stripe";
import { createPaymentMethod } from "../../../src/modules/payment-methods/payment-methods.ts";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { sealStripeCredentials } from "../../../src/modules/payments/providers.ts";
import type { StripeTwin } from "../../../src/simulators/stripe/index.ts";
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
  // The completed connection the connect flow leaves: what names the method by its account (a Connect event's `account`).
  const row = await methodRow(method.id);
  await (
    await testDatabase()
  )
    .db("payment_connections")
    .insert({
      id: crypto.randomUUID(),
      team_id: row.team_id,
      project_id: projectId,
      provider: "stripe",
      account,
      currencies: JSON.stringify(input.currencies ?? ["USD"]),
      status: "completed",
      payment_method_id: method.id,
      created_at: new Date(),
      completed_at: new Date(),
    })
    .onConflict(["project_id", "provider"])
    .merge(["account", "payment_method_id", "status"]);
  return { row, account };
}

/** The project's enabled Telegram Stars method (XTR, monthly). */
export async function addStarsMethod(creator: TestCreator, projectId: string): Promise<PaymentMethodRow> {
  const method = await asDomain(creator, (ctx) =>
    createPaymentMethod(ctx, projectId, { provider: "telegram_stars", mode: "test", name: "Stars", currencies: ["XTR"], billing_cycles: ["month"] }),
  );
  return methodRow(method.id);
}
