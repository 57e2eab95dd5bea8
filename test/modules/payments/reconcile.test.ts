// payments.reconcile (issue 33): what the providers know and the service missed is applied once.
// Stripe: with the twin's webhook endpoint disabled (a delivery that never arrived), a purchase is
// found in the account's event history, or by reading back an open checkout's session; a purchase
// and its cancellation both lost are applied in their order; a subscription whose deletion was
// lost ends at the provider's word; replaying everything twice changes nothing. Telegram Stars: a
// payment whose update never reached the bot is found in the bot's ledger. Owed refunds: one that
// failed is retried with backoff until the provider confirms, "already refunded" counting as done.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import pino from "pino";
import { createStripeClient } from "../../../src/modules/payments/stripe/client.ts";
import { installationSession } from "../../../src/modules/connectors/bot/session.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { openCheckout } from "../../../src/modules/payments/checkouts.ts";
import { applyProviderEvents } from "../../../src/modules/payments/outcome.ts";
import { providerRegistry } from "../../../src/modules/payments/providers.ts";
import { reconcilePayments } from "../../../src/modules/payments/reconcile.ts";
import { runOperatorCommand } from "../../../src/operator-commands.ts";
import { starsProvider } from "../../../src/modules/payments/stars/provider.ts";
import { TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { StripePayments } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { normalizeStripeEvent } from "../../../src/modules/payments/stripe/webhook.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import type Stripe from "stripe";
import { testDatabase } from "../../helpers/backends.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { tempDir } from "../../helpers/processes.ts";
import { useApiWithStripeTwin } from "../../helpers/suite.ts";
import { installationRow, installTelegram, removeInstallation } from "../connectors/support.ts";
import { asDomain, DAY, seedPlan } from "../subscriptions/commerce.ts";
import { openStripeShop, type StripeShop } from "./stripe-shop.ts";

const logger = pino({ level: "silent" });

/** What `npm run cli -- payments:refunds-owed` prints, on this run's database. */
async function owedByCli(): Promise<Record<string, unknown>[]> {
  const { db } = await testDatabase();
  const env = { LOG_LEVEL: "silent", APP_KEY: TEST_APP_KEY.toString("base64"), DATA_DIR: tempDir("refunds-owed") };
  return (await runOperatorCommand(["payments:refunds-owed"], {
    env,
    openDatabase: async () => ({ db, description: "the run's database", close: async () => {} }),
  })) as Record<string, unknown>[];
}
const MINUTE = 60_000;

describe("payments.reconcile", function () {
  this.timeout(60_000);
  const suite = useApiWithStripeTwin({ creator: { tier: "growth" } });
  let twin: StripeTwin;
  before(() => (twin = suite.twin));

  let shop: StripeShop;
  const stripe = () => suite.stripe;
  const platformAccess = async () => ({ platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY });
  const reconcile = async (now: Date, stripePayments: StripePayments | null = stripe()) => {
    const { db } = await testDatabase();
    return reconcilePayments({ db, now, logger, platformAccess: await platformAccess(), stripe: stripePayments });
  };
  /** Stripe stops reaching the API (as if the process that should have taken the events was dead), or reaches it again. */
  const deliveries = async (on: boolean) => {
    for (const endpoint of (await stripe().client.webhookEndpoints.list()).data)
      await stripe().client.webhookEndpoints.update(endpoint.id, { disabled: !on });
  };

  before(async () => {
    shop = await openStripeShop(suite.creator, twin, stripe());
  });
  beforeEach(async () => {
    const { db } = await testDatabase();
    await db("payment_reconcile_cursors").del();
  });
  afterEach(() => deliveries(true));

  /** A member's purchase paid on the twin; its subscription id when the service knows it. */
  async function purchase(name: string, userId?: string) {
    const { checkout, sessionId } = await shop.checkoutFor(name, userId);
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { db } = await testDatabase();
    return { checkout, sessionId, row: await db("payment_checkouts").where({ id: checkout.id }).first() };
  }

  async function snapshot() {
    const { db } = await testDatabase();
    const of = (table: string) => db(table).where({ team_id: suite.creator.teamId }).orderBy("id");
    return {
      subscriptions: await of("subscriptions"),
      transactions: await of("transactions"),
      grants: await of("access_grants"),
      checkouts: await of("payment_checkouts"),
      inbox: await db("payment_provider_events").where({ provider: "stripe" }).orderBy("event_id"),
    };
  }

  it("applies a purchase whose webhook never arrived from the account's events, once", async () => {
    const { db } = await testDatabase();
    await deliveries(false);
    const { checkout, row } = await purchase("Lost");
    assert.equal(row.status, "open", "the webhook did not reach the API");

    const { changed } = await reconcile(new Date());
    assert.ok(changed >= 1, `changed ${changed}`);
    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    const subscription = await db("subscriptions").where({ id: done.subscription_id }).first();
    assert.equal(subscription.status, "active");
    assert.deepEqual(await shop.counts(subscription.id).then((c) => [c.subscriptions, c.payments, c.grants]), [1, 1, 1]);
    // Through the event history: the inbox has the real event's id.
    const completed = twin.events.find((e) => e.type === "checkout.session.completed" && (e.data as any).object.client_reference_id === checkout.id)!;
    assert.ok(await db("payment_provider_events").where({ provider: "stripe", event_id: completed.id }).first());
    // The cursor moved to the newest event read.
    const cursor = await db("payment_reconcile_cursors").where({ provider: "stripe", account: shop.account }).first();
    assert.ok(cursor && new Date(cursor.read_from).getTime() >= (completed.created as number) * 1000);
  });

  it("replaying every event twice, from scratch, changes nothing", async () => {
    await purchase("Replay");
    await purchase("Replay 2");
    const before = await snapshot();
    for (let i = 0; i < 2; i++) {
      const { db } = await testDatabase();
      await db("payment_reconcile_cursors").del();
      await reconcile(new Date());
    }
    assert.deepEqual(await snapshot(), before);
  });

  it("applies a lost purchase and its lost cancellation in their order: the subscription exists and has ended", async () => {
    const { db } = await testDatabase();
    await deliveries(false);
    const { checkout } = await purchase("Brief");
    const subscriptionId = (await stripe().client.subscriptions.list({ limit: 1 }, { stripeAccount: shop.account })).data[0]!.id;
    await stripe().client.subscriptions.cancel(subscriptionId, {}, { stripeAccount: shop.account });
    await twin.settled();
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "open");

    await reconcile(new Date());
    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    const subscription = await db("subscriptions").where({ id: done.subscription_id }).first();
    assert.equal(subscription.provider_subscription_id, subscriptionId);
    assert.equal(subscription.status, "expired", "the deletion, newer than the purchase, was applied after it");
  });

  it("reads back an open checkout's session when the event history does not have it", async () => {
    const { db } = await testDatabase();
    await deliveries(false);
    const { checkout, sessionId } = await purchase("Session");
    // The history was read past this purchase already: only the checkout itself can tell.
    const later = new Date(Date.now() + 3600_000);
    await db("payment_reconcile_cursors").insert({
      provider: "stripe",
      account: shop.account,
      read_from: later,
      ledger_offset: 0,
      updated_at: new Date(),
    });

    await reconcile(new Date(Date.now() + MINUTE));
    assert.equal(
      (await db("payment_checkouts").where({ id: checkout.id }).first()).status,
      "open",
      "a checkout younger than 5 minutes is left alone",
    );
    await reconcile(new Date(Date.now() + 10 * MINUTE));
    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    assert.ok(
      await db("payment_provider_events")
        .where({ provider: "stripe", event_id: `reconcile:${sessionId}` })
        .first(),
    );
    assert.deepEqual(await shop.counts(done.subscription_id).then((c) => [c.subscriptions, c.payments, c.grants]), [1, 1, 1]);

    // An abandoned session that Stripe expired expires the checkout.
    const abandoned = await shop.checkoutFor("Abandoned");
    await stripe().client.checkout.sessions.expire(abandoned.sessionId, {}, { stripeAccount: shop.account });
    await reconcile(new Date(Date.now() + 10 * MINUTE));
    assert.equal((await db("payment_checkouts").where({ id: abandoned.checkout.id }).first()).status, "expired");
  });

  it("ends a subscription Stripe ended whose deletion event was lost, once its period is over", async () => {
    const { db } = await testDatabase();
    const { row } = await purchase("Ended");
    const subscription = await db("subscriptions").where({ id: row.subscription_id }).first();
    await deliveries(false);
    await stripe().client.subscriptions.cancel(subscription.provider_subscription_id, {}, { stripeAccount: shop.account });
    await twin.settled();
    const later = new Date(new Date(subscription.ends_at).getTime() + DAY);
    await db("payment_reconcile_cursors").insert({
      provider: "stripe",
      account: shop.account,
      read_from: later,
      ledger_offset: 0,
      updated_at: new Date(),
    });
    assert.equal((await db("subscriptions").where({ id: subscription.id }).first()).status, "active");

    await reconcile(later);
    assert.equal((await db("subscriptions").where({ id: subscription.id }).first()).status, "expired");
    const grants = await db("access_grants").where({ subscription_id: subscription.id });
    assert.ok(grants.length > 0 && grants.every((g: { status: string }) => g.status !== "active"), JSON.stringify(grants));
  });

  it("retries a refund owed for a superseded payment with backoff until Stripe confirms; already refunded counts as done", async () => {
    const { db } = await testDatabase();
    const userId = `${Date.now()}`;
    await deliveries(false);
    const first = await shop.checkoutFor("Twice", userId);
    const second = await shop.checkoutFor("Twice", userId);
    await twin.completeCheckout(first.sessionId, { card: TEST_CARDS.success });
    await twin.completeCheckout(second.sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const events = twin.events.filter(
      (e) => e.type === "checkout.session.completed" && [first.sessionId, second.sessionId].includes((e.data as any).object.id),
    );
    // The refund is asked for with a key Stripe refuses (401): it fails, and is owed.
    const refused = createStripeClient({ secretKey: "sk_test_not_the_platforms_key", ...twin.clientOptions });
    const now = new Date();
    const deps = {
      db,
      logger,
      ...(await platformAccess()),
      registry: providerRegistry({ db, stripe: refused, connectors: await platformAccess() }),
    };
    for (const event of events)
      await applyProviderEvents(deps, await normalizeStripeEvent(stripe().client, event as unknown as Stripe.Event), now, {
        provider: "stripe",
        log: {},
      });
    assert.equal((await db("payment_checkouts").where({ id: second.checkout.id }).first()).status, "superseded");
    const owed = await db("payment_refunds_owed").where({ checkout_id: second.checkout.id }).first();
    assert.equal(owed.status, "owed");
    assert.equal(owed.attempts, 1);
    assert.match(owed.last_error, /key/i);
    assert.equal(new Date(owed.next_attempt_at).getTime(), now.getTime() + MINUTE);
    assert.deepEqual(
      (await owedByCli()).filter((r) => r.checkout_id === second.checkout.id).map((r) => [r.payment_id, r.amount_minor, r.currency]),
      [[owed.provider_payment_id, 500, "USD"]],
    );

    // Not due yet: nothing is asked. Stripe unreachable at the next try: two failures, the delay doubles.
    const refundCalls = () => twin.calls.filter((c) => c.method === "POST" && c.path === "/v1/refunds").length;
    const calls = refundCalls();
    await reconcile(new Date(now.getTime() + 30_000));
    assert.equal(refundCalls(), calls);
    await reconcile(new Date(now.getTime() + 2 * MINUTE), { client: refused, webhookSecret: stripe().webhookSecret });
    const twice = await db("payment_refunds_owed").where({ id: owed.id }).first();
    assert.deepEqual([twice.status, twice.attempts], ["owed", 2]);
    assert.equal(new Date(twice.next_attempt_at).getTime(), now.getTime() + 2 * MINUTE + 2 * MINUTE);

    // Stripe answers again: the refund is made and confirmed.
    await reconcile(new Date(now.getTime() + 5 * MINUTE));
    const done = await db("payment_refunds_owed").where({ id: owed.id }).first();
    assert.deepEqual([done.status, done.attempts, done.last_error], ["refunded", 3, null]);
    const refunds = await stripe().client.refunds.list({ payment_intent: owed.provider_payment_id }, { stripeAccount: shop.account });
    assert.equal(refunds.data.length, 1);
    assert.equal((await owedByCli()).filter((r) => r.checkout_id === second.checkout.id).length, 0);

    // A refund Stripe made already (an earlier answer lost) is done at once.
    await db("payment_refunds_owed").where({ id: owed.id }).update({ status: "owed", next_attempt_at: now });
    await reconcile(new Date(now.getTime() + 6 * MINUTE));
    assert.equal((await db("payment_refunds_owed").where({ id: owed.id }).first()).status, "refunded");
    assert.equal((await stripe().client.refunds.list({ payment_intent: owed.provider_payment_id }, { stripeAccount: shop.account })).data.length, 1);
  });

  describe("Telegram Stars", () => {
    let stars: {
      plan: Awaited<ReturnType<typeof seedPlan>>;
      methodId: string;
      installation: Awaited<ReturnType<typeof installationRow>>;
      bot: { token: string; id: number };
    };
    before(async () => {
      const { db } = await testDatabase();
      const plan = await seedPlan(suite.creator, { resources: [{ mode: "creator_task", title: "Signed print" }] });
      // A bot the fake Telegram knows (the project's seeded installation has none).
      await removeInstallation(plan.projectId);
      const { bot } = await installTelegram(suite.client, plan.projectId);
      await db("plans").where({ id: plan.planId }).update({ currency: "XTR", amount_minor: 250 });
      const methodId = randomUUID();
      const at = new Date();
      await db("payment_methods").insert({
        id: methodId,
        team_id: suite.creator.teamId,
        project_id: plan.projectId,
        provider: "telegram_stars",
        name: "Stars",
        mode: "test",
        enabled: true,
        currencies: '["XTR"]',
        billing_cycles: '["month"]',
        created_at: at,
        updated_at: at,
      });
      stars = { plan, methodId, bot, installation: await installationRow(plan.projectId) };
    });

    /** A member's checkout of the Stars plan and its invoice link, as the bot's plan link makes them. */
    async function invoiceFor(userId: number) {
      const { checkout, planRow } = await asDomain(
        suite.creator,
        async (ctx) => {
          const account = { connectorKey: "telegram", externalUserId: String(userId), displayName: "Star" };
          const { member } = await findOrCreateMember(ctx, stars.plan.projectId, account);
          const planRow = (await plansTable.rows(ctx).where({ id: stars.plan.planId }).first()) as PlanRow;
          return {
            checkout: (
              await openCheckout(ctx, {
                member,
                plan: planRow,
                provider: "telegram_stars",
                paymentMethodId: stars.methodId,
                providerAccount: stars.installation.id,
              })
            ).checkout,
            planRow,
          };
        },
        { system: true },
      );
      const provider = starsProvider(async () => installationSession(await platformAccess(), stars.installation));
      const method = { paymentMethodId: stars.methodId, account: stars.installation.id, mode: "test" as const };
      const price = { amountMinor: 250, currency: "XTR", cycle: planRow.billing_cycle, cycleCount: 1, trialDays: 0 };
      const { url } = await provider.startCheckout(method, { reference: checkout.id, planName: planRow.name, price });
      return { checkout, url: url! };
    }

    /** Runs `pay` while the bot's webhook asks only for pre-checkout queries: Telegram charges, and the payment's message is never sent. */
    async function withoutPaymentMessages<T>(pay: (platform: Awaited<ReturnType<typeof testPlatform>>) => Promise<T>): Promise<T> {
      const platform = await testPlatform();
      const hook = platform.telegramWebhook(stars.bot.id)!;
      const setWebhook = async (allowed: string[]) => {
        const res = await fetch(`${platform.url}/bot${stars.bot.token}/setWebhook`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: hook.url, secret_token: hook.secret_token ?? undefined, allowed_updates: allowed }),
        });
        assert.equal(res.status, 200);
      };
      await setWebhook(["pre_checkout_query"]);
      try {
        return await pay(platform);
      } finally {
        await setWebhook(["message", "pre_checkout_query"]);
      }
    }

    it("applies a payment whose update never reached the bot, found in the bot's ledger, and a lost renewal after it", async () => {
      const { db } = await testDatabase();
      const userId = randomInt(10_000_000, 99_999_999);
      const { checkout, url } = await invoiceFor(userId);
      const paid = await withoutPaymentMessages((platform) => platform.payInvoice({ invoice: url, user: { id: userId, first_name: "Star" } }));
      assert.equal(paid.status, "paid", JSON.stringify(paid));
      assert.equal((paid as { delivered: boolean }).delivered, false);
      assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "open");

      await reconcile(new Date(), null);
      const done = await db("payment_checkouts").where({ id: checkout.id }).first();
      assert.equal(done.status, "completed");
      const subscription = await db("subscriptions").where({ id: done.subscription_id }).first();
      assert.equal(subscription.provider_subscription_id, `${userId}:${checkout.id}`);
      const chargeId = (paid as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
      const transactions = await db("transactions").where({ subscription_id: subscription.id });
      assert.deepEqual(
        transactions.map((t: Record<string, unknown>) => [t.kind, Number(t.amount_minor), t.currency, t.provider_reference]),
        [["payment", 250, "XTR", `${userId}:${chargeId}`]],
      );
      assert.ok(
        await db("payment_provider_events")
          .where({ provider: "telegram_stars", event_id: `telegram:${chargeId}` })
          .first(),
      );
      const cursor = await db("payment_reconcile_cursors").where({ provider: "telegram_stars", account: stars.installation.id }).first();
      assert.ok(cursor.ledger_offset >= 1);

      // A renewal whose update was lost too is found from the cursor on; a second run changes nothing.
      const renewed = await withoutPaymentMessages((platform) => platform.renewSubscription({ telegram_payment_charge_id: chargeId }));
      assert.equal(renewed.status, "paid", JSON.stringify(renewed));
      await reconcile(new Date(), null);
      await reconcile(new Date(), null);
      const after = await db("subscriptions").where({ id: subscription.id }).first();
      assert.ok(new Date(after.ends_at).getTime() > new Date(subscription.ends_at).getTime(), "the period moved on");
      assert.equal((await db("transactions").where({ subscription_id: subscription.id, kind: "payment" })).length, 2);
    });

    it("a second payment made while the first's update was lost too is superseded and refunded through the bot; the member is told", async () => {
      const { db } = await testDatabase();
      const userId = randomInt(10_000_000, 99_999_999);
      // The first payment is not known when the member asks for a second invoice (which closes the first checkout),
      // nor when the second is paid: both pass the pre-checkout query.
      const { first, second, a, b } = await withoutPaymentMessages(async (platform) => {
        const first = await invoiceFor(userId);
        const a = await platform.payInvoice({ invoice: first.url, user: { id: userId, first_name: "Star" } });
        const second = await invoiceFor(userId);
        const b = await platform.payInvoice({ invoice: second.url, user: { id: userId, first_name: "Star" } });
        return { first, second, a, b };
      });
      assert.deepEqual([a.status, b.status], ["paid", "paid"]);
      const platform = await testPlatform();
      const sent = platform.calls.length;

      await reconcile(new Date(), null);
      assert.equal((await db("payment_checkouts").where({ id: first.checkout.id }).first()).status, "completed");
      assert.equal((await db("payment_checkouts").where({ id: second.checkout.id }).first()).status, "superseded");
      const chargeId = (b as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
      const owed = await db("payment_refunds_owed").where({ checkout_id: second.checkout.id }).first();
      assert.deepEqual([owed.status, owed.provider_payment_id], ["refunded", `${userId}:${chargeId}`]);
      const later = platform.calls
        .slice(sent)
        .filter((c) => c.bot === String(stars.bot.id) && (c.name === "refundStarPayment" || c.name === "sendMessage"))
        .map((c) => [c.name, Number(c.params.user_id ?? c.params.chat_id)]);
      assert.deepEqual(later, [
        ["refundStarPayment", userId],
        ["sendMessage", userId],
      ]);
    });
  });
});
