// Every rule a provider's report is held to before it grants anything (issue 43; binding.ts), one
// forgery at a time against an honest checkout of 5.00 USD a month: another connected account,
// another Checkout Session, another amount or currency, a one-off payment for a recurring plan, a
// trial not offered or longer than offered, another Telegram user or another project's bot, and
// renewals from another account or for another amount. Each grants nothing and is kept as
// mismatched with its reason; the honest report after it still completes the checkout. The Stars
// pre-checkout query is declined for the same reasons before Telegram charges.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { applyProviderEvent } from "../../../src/modules/payments/apply.ts";
import { noteProviderCheckout, openCheckout, payableCheckout } from "../../../src/modules/payments/checkouts.ts";
import type { ProviderEvent } from "../../../src/modules/payments/provider.ts";
import { normalizeStripeEvent } from "../../../src/modules/payments/stripe/webhook.ts";
import type Stripe from "stripe";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { account, asDomain, DAY, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { completionReport, type Completion } from "./reports.ts";

describe("payments: a report is held to what was bought", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator({ projects: 2 });
  });
  const ACCOUNT = "acct_binding_honest";

  async function checkoutOf(
    plan: SeededPlan,
    options: { provider?: "stripe" | "telegram_stars"; providerAccount?: string; externalUserId?: string } = {},
  ) {
    return asDomain(
      creator,
      async (ctx) => {
        const person = options.externalUserId ? { ...account(), externalUserId: options.externalUserId } : account();
        const { member } = await findOrCreateMember(ctx, plan.projectId, person);
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const provider = options.provider ?? "stripe";
        const { checkout } = await openCheckout(ctx, {
          member,
          plan: planRow,
          provider,
          paymentMethodId: null,
          providerAccount: options.providerAccount ?? ACCOUNT,
        });
        if (provider === "telegram_stars") return { member, checkout };
        const session = `cs_${randomUUID()}`;
        await noteProviderCheckout(ctx, checkout.id, session);
        return { member, checkout: { ...checkout, provider_checkout_id: session } };
      },
      { system: true },
    );
  }

  const honest = (checkout: { id: string; provider_checkout_id: string | null }, change: Partial<Completion> = {}) =>
    completionReport(checkout, ACCOUNT, change);

  /** Applies `forged` (refused, kept with a reason matching `why`, nothing granted), then the honest report (applied). */
  async function refusedThenHonest(
    plan: SeededPlan,
    forge: (checkout: { id: string; provider_checkout_id: string | null }) => Completion,
    why: RegExp,
    honestChange: Partial<Completion> = {},
  ) {
    const { db } = await testDatabase();
    const { member, checkout } = await checkoutOf(plan);
    const forged = forge(checkout);
    const outcome = await applyProviderEvent(db, "stripe", forged, new Date());
    assert.equal(outcome.outcome, "mismatched", JSON.stringify(outcome));
    const inbox = await db("payment_provider_events").where({ provider: "stripe", event_id: forged.eventId }).first();
    assert.equal(inbox.outcome, "mismatched");
    assert.match(inbox.reason, why);
    assert.equal((await db("subscriptions").where({ member_id: member.id })).length, 0, "nothing granted");
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "open");
    assert.equal((await applyProviderEvent(db, "stripe", forged, new Date())).outcome, "duplicate");
    const paid = await applyProviderEvent(db, "stripe", honest(checkout, honestChange), new Date());
    assert.equal(paid.outcome, "applied", "the honest report still completes it");
    return { member, checkout };
  }

  it("refuses another connected account, another Checkout Session, and a platform event", async () => {
    const plan = await seedPlan(creator);
    await refusedThenHonest(plan, (c) => honest(c, { source: "acct_someone_else" }), /Stripe account acct_someone_else/);
    await refusedThenHonest(plan, (c) => honest(c, { providerCheckoutId: `cs_${randomUUID()}` }), /not the one opened for this checkout/);
    await refusedThenHonest(plan, (c) => honest(c, { source: null }), /of the platform itself/);
  });

  it("refuses a lower amount, another currency, nothing paid, and a one-off payment for a recurring plan", async () => {
    const plan = await seedPlan(creator);
    const pay = (amountMinor: number, currency = "USD") => ({
      providerPaymentId: `pi_${randomUUID()}`,
      amountMinor,
      currency,
      feeMinor: null,
      paidAt: new Date(),
    });
    await refusedThenHonest(plan, (c) => honest(c, { payment: pay(50) }), /paid 0\.50 USD where 5\.00 USD was due/);
    await refusedThenHonest(plan, (c) => honest(c, { payment: pay(500, "EUR") }), /paid in EUR, and the checkout is in USD/);
    await refusedThenHonest(plan, (c) => honest(c, { payment: null }), /paid 0\.00 USD where 5\.00 USD was due/);
    await refusedThenHonest(plan, (c) => honest(c, { providerSubscriptionId: null }), /recurring plan was paid once/);
    await refusedThenHonest(plan, (c) => honest(c, { payment: pay(501) }), /paid 5\.01 USD/);
  });

  it("refuses a trial the checkout did not offer, and one longer than it offered", async () => {
    const noTrial = await seedPlan(creator);
    const trialEnds = (days: number) => new Date(Date.now() + days * DAY);
    await refusedThenHonest(noTrial, (c) => honest(c, { payment: null, trialEndsAt: trialEnds(7) }), /free trial the checkout did not offer/);
    const week = await seedPlan(creator, { trialDays: 7 });
    await refusedThenHonest(week, (c) => honest(c, { payment: null, trialEndsAt: trialEnds(30) }), /longer than the 7 days offered/, {
      payment: null,
      trialEndsAt: trialEnds(7),
    });
  });

  it("Stars: refuses another Telegram user and another project's bot; the pre-checkout query declines them and a wrong amount", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    await db("plans").where({ id: plan.planId }).update({ currency: "XTR", amount_minor: 250 });
    const own = await db("connector_installations").where({ project_id: plan.projectId, connector_key: "telegram" }).first("id");
    await seedPlan(creator, { projectIndex: 1 });
    const other = await db("connector_installations").where({ project_id: creator.projectIds[1], connector_key: "telegram" }).first("id");
    const { checkout } = await checkoutOf(plan, { provider: "telegram_stars", providerAccount: own.id, externalUserId: "4242" });
    const stars = (change: Partial<Completion>): Completion => ({
      ...honest(checkout, {
        source: own.id,
        providerCheckoutId: null,
        providerSubscriptionId: `4242:${checkout.id}`,
        providerCustomerId: "4242",
        payment: { providerPaymentId: `4242:stx${randomUUID()}`, amountMinor: 250, currency: "XTR", feeMinor: null, paidAt: new Date() },
      }),
      ...change,
    });
    const byOther = await applyProviderEvent(db, "telegram_stars", stars({ providerCustomerId: "666" }), new Date());
    assert.equal(byOther.outcome, "mismatched");
    assert.match((byOther as { reason: string }).reason, /Telegram user 666, not the member/);
    const elsewhere = await applyProviderEvent(db, "telegram_stars", stars({ source: other.id }), new Date());
    assert.match((elsewhere as { reason: string }).reason, /bot of another project/);

    const query = { reference: checkout.id, teamId: creator.teamId, projectId: plan.projectId, connectorKey: "telegram", externalUserId: "4242" };
    const ok = await payableCheckout(db, { ...query, amountMinor: 250, currency: "XTR" }, new Date());
    assert.deepEqual(ok, { ok: true });
    const cheap = await payableCheckout(db, { ...query, amountMinor: 1, currency: "XTR" }, new Date());
    assert.equal(cheap.ok, false);
    const otherProject = await payableCheckout(db, { ...query, projectId: creator.projectIds[1]!, amountMinor: 250, currency: "XTR" }, new Date());
    assert.equal(otherProject.ok, false, "a bot of another project of the same team");
    const otherUser = await payableCheckout(db, { ...query, externalUserId: "666", amountMinor: 250, currency: "XTR" }, new Date());
    assert.equal(otherUser.ok, false);

    assert.equal((await applyProviderEvent(db, "telegram_stars", stars({}), new Date())).outcome, "applied");
  });

  it("a Stripe session completed unpaid (a delayed payment method) completes nothing until its async_payment_succeeded", async () => {
    const session = {
      id: "cs_delayed",
      object: "checkout.session",
      client_reference_id: randomUUID(),
      metadata: {},
      mode: "payment",
      payment_status: "unpaid",
      payment_intent: null,
      subscription: null,
      customer: "cus_1",
      invoice: null,
    };
    const event = (type: string, object: object) =>
      ({ id: `evt_${randomUUID()}`, type, created: 1_800_000_000, account: ACCOUNT, data: { object } }) as unknown as Stripe.Event;
    const noClient = {} as Stripe;
    assert.deepEqual(await normalizeStripeEvent(noClient, event("checkout.session.completed", session)), []);
    const [paid] = await normalizeStripeEvent(noClient, event("checkout.session.async_payment_succeeded", { ...session, payment_status: "paid" }));
    assert.equal(paid?.kind, "checkout.completed");
    assert.deepEqual([(paid as Completion).providerCheckoutId, paid!.source], ["cs_delayed", ACCOUNT]);
  });

  it("refuses a renewal from another account or for another amount; the quoted price renews", async () => {
    const { db } = await testDatabase();
    const plan = await seedPlan(creator);
    const { checkout } = await checkoutOf(plan);
    const first = honest(checkout);
    await applyProviderEvent(db, "stripe", first, new Date());
    // The creator raises the plan's price afterwards: the subscription renews at the price it was sold at.
    await db("plans").where({ id: plan.planId }).update({ amount_minor: 900 });
    const renewal = (change: Partial<Extract<ProviderEvent, { kind: "subscription.renewed" }>> = {}): ProviderEvent => ({
      kind: "subscription.renewed",
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(),
      source: ACCOUNT,
      providerSubscriptionId: first.providerSubscriptionId!,
      payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 500, currency: "USD", feeMinor: null, paidAt: new Date() },
      periodEndsAt: new Date(Date.now() + 60 * DAY),
      ...change,
    });
    const row = await db("subscriptions").where({ provider_subscription_id: first.providerSubscriptionId }).first();
    const elsewhere = await applyProviderEvent(db, "stripe", renewal({ source: "acct_someone_else" }), new Date());
    assert.equal(elsewhere.outcome, "mismatched");
    const cheap = await applyProviderEvent(
      db,
      "stripe",
      renewal({ payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 100, currency: "USD", feeMinor: null, paidAt: new Date() } }),
      new Date(),
    );
    assert.equal(cheap.outcome, "mismatched");
    const unchanged = await db("subscriptions").where({ id: row.id }).first();
    assert.equal(new Date(unchanged.ends_at).getTime(), new Date(row.ends_at).getTime(), "the period did not move");
    assert.equal((await db("transactions").where({ subscription_id: row.id, kind: "payment" })).length, 1);
    assert.equal((await applyProviderEvent(db, "stripe", renewal(), new Date())).outcome, "applied");
    assert.equal((await db("transactions").where({ subscription_id: row.id, kind: "payment" })).length, 2);
  });
});
