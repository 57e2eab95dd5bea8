// A Telegram Stars purchase end to end through the bot's webhook (issue 33): the member's checkout
// becomes an invoice link (the Stars provider), the simulated Telegram user pays it, the API answers
// the pre_checkout_query from the checkout's state and applies the successful_payment once: the
// subscription, its transaction in XTR and the plan's grants exist; the access sync ran. A renewal
// moves the period on; a second payment while the subscription is live is declined before any
// charge; an invoice made for another member is declined.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { installationSession } from "../../../src/modules/connectors/bot/session.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { openCheckout } from "../../../src/modules/payments/checkouts.ts";
import { starsProvider } from "../../../src/modules/payments/stars/provider.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, installationRow } from "../connectors/support.ts";
import { asDomain, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";

describe("payments: a Telegram Stars purchase through the bot", function () {
  this.timeout(60_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let plan: SeededPlan;

  before(async () => {
    const project = suite.creator.projectIds[0]!;
    await installTelegram(suite.client, project);
    plan = await seedPlan(suite.creator, { resources: [{ mode: "creator_task", title: "Signed print" }] });
    const { db } = await testDatabase();
    await db("plans").where({ id: plan.planId }).update({ currency: "XTR", amount_minor: 250 });
  });

  /** An invoice link for a member's checkout of the plan, as the bot's plan link will make it. */
  async function invoiceFor(userId: number) {
    const installation = await installationRow(plan.projectId);
    const env = { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY };
    const provider = starsProvider(async () => installationSession(env, installation));
    const { checkout, planRow } = await asDomain(
      suite.creator,
      async (ctx) => {
        const account = { connectorKey: "telegram", externalUserId: String(userId), displayName: "Stella" };
        const { member } = await findOrCreateMember(ctx, plan.projectId, account);
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const opened = await openCheckout(ctx, {
          member,
          plan: planRow,
          provider: "telegram_stars",
          paymentMethodId: null,
          providerAccount: installation.id,
        });
        return { checkout: opened.checkout, planRow };
      },
      { system: true },
    );
    const method = { paymentMethodId: "none", account: installation.id, mode: "live" as const };
    const price = { amountMinor: 250, currency: "XTR", cycle: planRow.billing_cycle, cycleCount: 1, trialDays: 0 };
    const start = await provider.startCheckout(method, { reference: checkout.id, planName: planRow.name, price });
    return { checkout, link: start.url! };
  }

  it("charges only after the API said yes, then starts the subscription once, with its transaction and grants", async () => {
    const { db } = await testDatabase();
    const userId = randomInt(10_000_000, 99_999_999);
    const { checkout, link } = await invoiceFor(userId);
    const paid = await (await testPlatform()).payInvoice({ invoice: link, user: { id: userId, first_name: "Stella" } });
    assert.equal(paid.status, "paid", JSON.stringify(paid));

    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    const subscription = await db("subscriptions").where({ id: done.subscription_id }).first();
    assert.equal(subscription.status, "active");
    assert.equal(subscription.provider, "telegram_stars");
    assert.equal(subscription.provider_subscription_id, `${userId}:${checkout.id}`);
    const transactions = await db("transactions").where({ subscription_id: subscription.id });
    assert.deepEqual(
      transactions.map((t: Record<string, unknown>) => [t.kind, Number(t.amount_minor), t.currency, t.provider]),
      [["payment", 250, "XTR", "telegram_stars"]],
    );
    assert.equal((await db("access_grants").where({ subscription_id: subscription.id })).length, 1);

    // Telegram renews the subscription: one more payment, the period moves on.
    const before = new Date(subscription.ends_at).getTime();
    const renewed = await (
      await testPlatform()
    ).renewSubscription({ telegram_payment_charge_id: (paid as { telegram_payment_charge_id: string }).telegram_payment_charge_id });
    assert.equal(renewed.status, "paid", JSON.stringify(renewed));
    const after = await db("subscriptions").where({ id: subscription.id }).first();
    assert.ok(new Date(after.ends_at).getTime() > before, "the period moved on");
    assert.equal((await db("transactions").where({ subscription_id: subscription.id, kind: "payment" })).length, 2);

    // A second invoice while the subscription is live is declined before Telegram charges anything.
    const again = await invoiceFor(userId).catch((err: Error) => err);
    assert.match(String(again), /SUBSCRIPTION_ALREADY_ACTIVE|already has a live subscription/);
  });

  it("declines an invoice paid by someone other than the member it was made for", async () => {
    const { db } = await testDatabase();
    const { checkout, link } = await invoiceFor(randomInt(10_000_000, 99_999_999));
    const outcome = await (
      await testPlatform()
    ).payInvoice({ invoice: link, user: { id: randomInt(10_000_000, 99_999_999), first_name: "Mallory" } });
    assert.equal(outcome.status, "declined");
    assert.match((outcome as { error_message: string }).error_message, /another member/);
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "open");
  });
});
