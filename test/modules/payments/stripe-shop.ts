// A creator's Stripe shop on the twin for payment tests: a plan, a connected account that finished
// onboarding, a Stripe payment method sealing it, the registry serving it, and a member's checkout
// started on the twin through the registry's provider (a Checkout Session with the checkout as its
// reference). Counts of what a purchase leaves behind tell "once" from "twice".
import assert from "node:assert/strict";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { noteProviderCheckout, openCheckout } from "../../../src/modules/payments/checkouts.ts";
import { providerRegistry, type ProviderRegistry } from "../../../src/modules/payments/providers.ts";
import type { StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { StripePayments } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import type { TestCreator } from "../../helpers/fixtures.ts";
import { testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { connectStripeMethod } from "./methods.ts";
import { asDomain, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";

export interface StripeShop {
  plan: SeededPlan;
  methodRow: PaymentMethodRow;
  registry: ProviderRegistry;
  /** The creator's connected account (acct_…). */
  account: string;
  checkoutFor(name: string, externalUserId?: string): Promise<{ checkout: { id: string }; sessionId: string }>;
  counts(subscriptionId: string): Promise<{ subscriptions: number; payments: number; grants: number; inbox: number }>;
}

export async function openStripeShop(creator: TestCreator, twin: StripeTwin, stripe: StripePayments): Promise<StripeShop> {
  const { db } = await testDatabase();
  const plan = await seedPlan(creator, { resources: [{ mode: "creator_task", title: "Signed print" }] });
  const { row: methodRow, account } = await connectStripeMethod(creator, plan.projectId, { twin, client: stripe.client });
  const registry = providerRegistry({ db, stripe: stripe.client, connectors: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY } });

  async function checkoutFor(name: string, externalUserId = `${Date.now()}${Math.random()}`) {
    const target = await registry.providerFor(methodRow);
    assert.ok(target, "the Stripe method is served");
    assert.equal(target.method.account.startsWith("acct_"), true);
    const { checkout, planRow } = await asDomain(
      creator,
      async (ctx) => {
        const member = { connectorKey: "telegram", externalUserId, displayName: name };
        const { member: row } = await findOrCreateMember(ctx, plan.projectId, member);
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const opened = await openCheckout(ctx, {
          member: row,
          plan: planRow,
          provider: "stripe",
          paymentMethodId: methodRow.id,
          providerAccount: target.method.account,
        });
        return { checkout: opened.checkout, planRow };
      },
      { system: true },
    );
    const price = { amountMinor: 500, currency: "USD", cycle: planRow.billing_cycle, cycleCount: 1, trialDays: 0 };
    const start = await target.provider.startCheckout(target.method, {
      reference: checkout.id,
      planName: planRow.name,
      price,
      successUrl: "https://portal.example/paid",
      cancelUrl: "https://portal.example/plans",
    });
    // As the portal does once Stripe has answered: the session is how reconciliation reads the checkout back.
    await asDomain(creator, (ctx) => noteProviderCheckout(ctx, checkout.id, start.providerCheckoutId!), { system: true });
    return { checkout, sessionId: start.providerCheckoutId! };
  }

  async function counts(subscriptionId: string) {
    const n = async (table: string, where: Record<string, unknown>) => Number((await db(table).where(where).count({ n: "*" }))[0]!.n);
    return {
      subscriptions: await n("subscriptions", { id: subscriptionId }),
      payments: await n("transactions", { subscription_id: subscriptionId, kind: "payment" }),
      grants: await n("access_grants", { subscription_id: subscriptionId }),
      inbox: await n("payment_provider_events", { provider: "stripe" }),
    };
  }

  return { plan, methodRow, registry, account, checkoutFor, counts };
}
