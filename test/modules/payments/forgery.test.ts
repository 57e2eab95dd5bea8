// A payment completes only the checkout it was made for (issue 43, section 1), tried as an attacker
// would, through the providers' real wire formats. Stripe: a creator of team A, on A's own connected
// account, pays a cheap one-off Checkout Session whose client_reference_id is team B's open 5.00 USD
// monthly checkout; the twin posts the signed Connect event to {base_url}/payments/stripe/events.
// Stars: team A's bot issues a 1-star invoice whose payload is team B's 250-star checkout, and a
// Telegram user pays it; the pre-checkout query is declined, and the successful_payment that someone
// holding A's bot token could still bring about is refused when it reaches the service. Either way
// team B's checkout stays open with nothing granted, the report is kept in the inbox as mismatched
// with its reason, what it took goes back through A's account, and B's creators get one security
// alert; B's member then pays honestly and gets in.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomInt } from "node:crypto";
import { TEST_CARDS } from "../../../src/simulators/stripe/index.ts";
import { priceFor } from "../../../src/modules/payments/stripe/prices.ts";
import { stripeEventsUrl } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { ApiClient } from "../../helpers/http.ts";
import pino from "pino";
import { reconcilePayments } from "../../../src/modules/payments/reconcile.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { useApiWithStripeTwin } from "../../helpers/suite.ts";
import { installTelegram } from "../connectors/support.ts";
import { botStart } from "../../portal/support.ts";
import { addStarsMethod, connectStripeMethod } from "./methods.ts";
import { openStripeShop } from "./stripe-shop.ts";
import { seedPlan } from "../subscriptions/commerce.ts";

describe("payments: a report pays only the checkout it was made for", function () {
  this.timeout(90_000);
  const suite = useApiWithStripeTwin({ creator: { tier: "growth" } });
  let attacker: TestCreator;
  before(async () => {
    attacker = await createTestCreator({ tier: "growth", label: "attacker" });
  });

  /** What the inbox, the refunds owed and team B's alerts say of the report `eventId`. */
  async function aftermath(provider: string, eventId: string) {
    const { db } = await testDatabase();
    const inbox = await db("payment_provider_events").where({ provider, event_id: eventId }).first();
    const owed = await db("payment_refunds_owed").where({ provider, event_id: eventId });
    const alerts = await db("creator_alerts")
      .where({ about_team_id: suite.creator.teamId, class: "security" })
      .whereLike("dedupe_key", `%${eventId}`);
    return { inbox, owed, alerts };
  }

  it("Stripe: A's 0.50 EUR one-off session naming B's checkout completes nothing; it is refunded on A's account and B is alerted", async () => {
    const { db } = await testDatabase();
    const { twin, stripe } = suite;
    const shop = await openStripeShop(suite.creator, twin, stripe);
    const victim = await shop.checkoutFor("Vera");
    const { account: attackerAccount } = await connectStripeMethod(attacker, attacker.projectIds[0]!, { twin, client: stripe.client });

    // On A's own account: a cheap one-off price and a session that names B's checkout.
    const cheap = await priceFor(stripe.client, attackerAccount, "Cheap", {
      amountMinor: 50,
      currency: "EUR",
      cycle: "lifetime",
      cycleCount: 1,
      trialDays: 0,
    });
    const session = await stripe.client.checkout.sessions.create(
      {
        mode: "payment",
        line_items: [{ price: cheap.id, quantity: 1 }],
        client_reference_id: victim.checkout.id,
        success_url: "https://attacker.example/done",
      },
      { stripeAccount: attackerAccount },
    );
    await twin.completeCheckout(session.id, { card: TEST_CARDS.success });
    await twin.settled();
    const event = twin.events.find(
      (e) => e.type === "checkout.session.completed" && (e.data as { object: { id: string } }).object.id === session.id,
    )!;
    const delivery = twin.deliveries.find((d) => d.event === event.id && d.url === stripeEventsUrl(suite.api.url));
    assert.equal(delivery?.status, 200, "Stripe hears 200: the report was read and kept");

    const checkout = await db("payment_checkouts").where({ id: victim.checkout.id }).first();
    assert.deepEqual([checkout.status, checkout.subscription_id], ["open", null], "B's checkout is not completed");
    assert.equal((await db("subscriptions").where({ member_id: checkout.member_id })).length, 0, "no subscription, no access");
    assert.equal((await db("transactions").where({ member_id: checkout.member_id })).length, 0, "no sale recorded against B");

    const { inbox, owed, alerts } = await aftermath("stripe", event.id);
    assert.deepEqual([inbox.outcome, inbox.team_id], ["mismatched", suite.creator.teamId]);
    assert.match(inbox.reason, new RegExp(`Stripe account ${attackerAccount}`));
    assert.equal(owed.length, 1);
    assert.deepEqual(
      [owed[0].team_id, owed[0].reason, Number(owed[0].amount_minor), owed[0].currency, owed[0].status],
      [attacker.teamId, "mismatched", 50, "EUR", "refunded"],
    );
    const refunds = await stripe.client.refunds.list({ payment_intent: owed[0].provider_payment_id }, { stripeAccount: attackerAccount });
    assert.deepEqual(
      refunds.data.map((r) => [r.amount, r.currency]),
      [[50, "eur"]],
      "given back on the account that took it",
    );
    assert.equal(alerts.length, 1, "one security alert to B's creators");
    assert.match(alerts[0].title, /did not match/);
    const activity = await db("activity_log").where({ subject_type: "member", subject_id: checkout.member_id, event: "payment_report_mismatched" });
    assert.equal(activity.length, 1);

    // Stripe delivers the same event again: still nothing, and no second refund or alert.
    const payload = JSON.stringify(event);
    const resent = await fetch(stripeEventsUrl(suite.api.url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "stripe-signature": stripe.client.webhooks.generateTestHeaderString({ payload, secret: stripe.webhookSecret }),
      },
      body: payload,
    });
    assert.equal(resent.status, 200);
    const again = await aftermath("stripe", event.id);
    assert.deepEqual([again.owed.length, again.alerts.length], [1, 1]);

    // The member then pays B's own session: the subscription starts as it always did.
    await twin.completeCheckout(victim.sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const paid = await db("payment_checkouts").where({ id: victim.checkout.id }).first();
    assert.equal(paid.status, "completed");
    const [payment] = await db("transactions").where({ subscription_id: paid.subscription_id, kind: "payment" });
    assert.deepEqual([Number(payment.amount_minor), payment.currency], [500, "USD"]);
  });

  /** A Telegram webhook on loopback standing in for whoever holds a bot's token: it says yes to every pre-checkout query and passes every other update on to `forward`. */
  async function tokenHolder(token: string, platformUrl: string, forward: { url: string; secret: string | null } | null): Promise<Server> {
    const server = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks).toString("utf8");
        const update = JSON.parse(body) as { pre_checkout_query?: { id: string } };
        if (update.pre_checkout_query)
          await fetch(`${platformUrl}/bot${token}/answerPreCheckoutQuery`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ pre_checkout_query_id: update.pre_checkout_query.id, ok: true }),
          });
        else if (forward)
          await fetch(forward.url, {
            method: "POST",
            headers: { "content-type": "application/json", ...(forward.secret ? { "x-telegram-bot-api-secret-token": forward.secret } : {}) },
            body,
          });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return server;
  }

  it("Stars: a 1-star invoice of A's bot naming B's 250-star checkout is declined, and its payment, if made, completes nothing and is refunded", async () => {
    const { db } = await testDatabase();
    const platform = await testPlatform();
    // Team B sells a 250-star monthly plan through its bot; a member opens its checkout with the plan link.
    const plan = await seedPlan(suite.creator, { resources: [{ mode: "creator_task", title: "Signed print" }], projectIndex: 0 });
    await db("plans").where({ id: plan.planId }).update({ currency: "XTR", amount_minor: 250 });
    await db("connector_installations").where({ project_id: plan.projectId, connector_key: "telegram" }).delete();
    const b = await installTelegram(suite.client, plan.projectId);
    await addStarsMethod(suite.creator, plan.projectId);
    const member = randomInt(10_000_000, 99_999_999);
    await botStart(suite.api.url, b.installation.id, b.bot.id, member, plan.planId);
    const victim = await db("payment_checkouts").where({ plan_id: plan.planId, status: "open" }).first();
    assert.ok(victim, "the plan link opened a checkout");

    // Team A's bot, on A's project, sells in Stars too.
    const attackerClient = new ApiClient(suite.api.url, attacker.token);
    const a = await installTelegram(attackerClient, attacker.projectIds[0]!);
    await addStarsMethod(attacker, attacker.projectIds[0]!);
    const invoice = await fetch(`${platform.url}/bot${a.bot.token}/createInvoiceLink`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        title: "Cheap",
        description: "Cheap",
        payload: victim.id,
        currency: "XTR",
        prices: [{ label: "Cheap", amount: 1 }],
        subscription_period: 2_592_000,
      }),
    });
    const link = ((await invoice.json()) as { result: string }).result;
    const payer = { id: randomInt(10_000_000, 99_999_999), first_name: "Mallory" };

    // Through the service, the pre-checkout query is declined before Telegram charges anything.
    const declined = await platform.payInvoice({ invoice: link, user: payer });
    assert.equal(declined.status, "declined", JSON.stringify(declined));

    // Someone holding A's bot token answers the query instead; the payment update still reaches the service.
    const hook = platform.telegramWebhook(a.bot.id)!;
    const setWebhook = (url: string, secret: string | null) =>
      fetch(`${platform.url}/bot${a.bot.token}/setWebhook`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url, ...(secret ? { secret_token: secret } : {}) }),
      });
    const payThroughHolder = async (forward: boolean) => {
      const holder = await tokenHolder(a.bot.token, platform.url, forward ? { url: hook.url, secret: hook.secret_token } : null);
      try {
        await setWebhook(`http://127.0.0.1:${(holder.address() as AddressInfo).port}/`, null);
        return await platform.payInvoice({ invoice: link, user: payer });
      } finally {
        await setWebhook(hook.url, hook.secret_token);
        await new Promise((resolve) => holder.close(resolve));
      }
    };
    const paid = await payThroughHolder(true);
    assert.equal(paid.status, "paid", JSON.stringify(paid));
    await platform.settled();
    const chargeId = (paid as { telegram_payment_charge_id: string }).telegram_payment_charge_id;

    const checkout = await db("payment_checkouts").where({ id: victim.id }).first();
    assert.deepEqual([checkout.status, checkout.subscription_id], ["open", null], "B's checkout is not completed");
    assert.equal((await db("subscriptions").where({ project_id: plan.projectId, member_id: victim.member_id })).length, 0);
    const { inbox, owed, alerts } = await aftermath("telegram_stars", `telegram:${chargeId}`);
    assert.deepEqual([inbox.outcome, inbox.team_id], ["mismatched", suite.creator.teamId]);
    assert.match(inbox.reason, /bot of another project/);
    assert.equal(owed.length, 1);
    assert.deepEqual(
      [owed[0].team_id, owed[0].reason, owed[0].provider_payment_id, owed[0].status],
      [attacker.teamId, "mismatched", `${payer.id}:${chargeId}`, "refunded"],
    );
    const refunded = platform.calls.filter((c) => c.bot === String(a.bot.id) && c.name === "refundStarPayment");
    assert.deepEqual(
      refunded.map((c) => [Number(c.params.user_id), c.params.telegram_payment_charge_id]),
      [[payer.id, chargeId]],
      "given back by A's bot",
    );
    assert.equal(alerts.length, 1, "one security alert to B's creators");

    // Paid again with the update lost: reconciliation finds it in A's bot's ledger and holds it to the same rules.
    const lost = await payThroughHolder(false);
    assert.equal(lost.status, "paid", JSON.stringify(lost));
    const lostCharge = (lost as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
    await reconcilePayments({
      db,
      now: new Date(),
      logger: pino({ level: "silent" }),
      platformAccess: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY },
      stripe: null,
    });
    const found = await aftermath("telegram_stars", `telegram:${lostCharge}`);
    assert.deepEqual([found.inbox.outcome, found.owed[0]?.status, found.alerts.length], ["mismatched", "refunded", 1]);
    assert.equal((await db("payment_checkouts").where({ id: victim.id }).first()).status, "open");
  });
});
