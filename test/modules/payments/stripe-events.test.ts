// A Stripe purchase end to end through the API's webhook route (issue 33): a creator's connected
// account on the Stripe twin, a payment method sealing it, a member's checkout started through the
// provider registry and paid with 4242 on the twin; the twin posts the signed event to
// {base_url}/payments/stripe/events and the subscription, its payment (with Stripe's fee) and the
// plan's grants exist, once however often the event arrives. A forged signature is refused (400)
// and changes nothing; a renewal on the twin's clock moves the period on.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type Stripe from "stripe";
import { TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { stripeEventsUrl } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf, type OutboxEvent } from "../../helpers/events.ts";
import { startApi } from "../../helpers/server.ts";
import { useApiWithStripeTwin } from "../../helpers/suite.ts";
import { DAY } from "../subscriptions/commerce.ts";
import { openStripeShop, type StripeShop } from "./stripe-shop.ts";

describe("payments: a Stripe purchase through the webhook route", function () {
  this.timeout(60_000);
  const suite = useApiWithStripeTwin({ creator: { tier: "growth" } });
  let twin: StripeTwin;
  before(() => (twin = suite.twin));

  let shop: StripeShop;
  const stripe = () => suite.stripe;
  const checkoutFor = (name: string, externalUserId?: string) => shop.checkoutFor(name, externalUserId);
  const counts = (subscriptionId: string) => shop.counts(subscriptionId);
  before(async () => {
    shop = await openStripeShop(suite.creator, twin, stripe());
  });

  /** Posts `event` to the route as Stripe would, signed with `secret`. */
  function post(event: unknown, secret: string, signature?: string) {
    const payload = JSON.stringify(event);
    const header = signature ?? stripe().client.webhooks.generateTestHeaderString({ payload, secret });
    return fetch(stripeEventsUrl(suite.api.url), {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: payload,
    });
  }

  it("starts the subscription once from the twin's signed event, with its payment, fee and grants", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Stella");
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const delivered = twin.deliveries.find((d) => d.type === "checkout.session.completed" && d.url === stripeEventsUrl(suite.api.url));
    assert.equal(delivered?.status, 200, JSON.stringify(twin.deliveries));

    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    const subscription = await db("subscriptions").where({ id: done.subscription_id }).first();
    assert.equal(subscription.status, "active");
    assert.equal(subscription.provider, "stripe");
    assert.match(subscription.provider_subscription_id, /^sub_/);
    assert.equal(subscription.payment_method_id, shop.methodRow.id);
    const [payment] = await db("transactions").where({ subscription_id: subscription.id, kind: "payment" });
    assert.deepEqual([Number(payment.amount_minor), payment.currency, payment.provider], [500, "USD", "stripe"]);
    // Stripe's card fee on the twin: 2.9% + 30 minor units.
    assert.ok(Number(payment.fee_minor) > 30, `fee ${payment.fee_minor}`);
    assert.match(payment.provider_reference, /^pi_/);
    const once = await counts(subscription.id);
    assert.deepEqual([once.subscriptions, once.payments, once.grants], [1, 1, 1]);

    // Stripe delivers the same event again: answered 200, nothing changes.
    const event = twin.events.find((e) => e.type === "checkout.session.completed" && (e.data as { object: { id: string } }).object.id === sessionId);
    assert.ok(event);
    const again = await post(event, stripe().webhookSecret);
    assert.equal(again.status, 200, await again.text());
    assert.deepEqual(await counts(subscription.id), once);
  });

  it("refuses a forged or missing signature with 400 PROVIDER_SIGNATURE_INVALID and changes nothing", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Mallory");
    const account = shop.account;
    const session = await stripe().client.checkout.sessions.retrieve(sessionId, {}, { stripeAccount: account });
    const forgedEvent = {
      id: "evt_forged0000000000000000",
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      account,
      data: { object: { ...session, status: "complete", payment_status: "paid" } as Stripe.Checkout.Session },
    };
    const inboxBefore = Number((await db("payment_provider_events").count({ n: "*" }))[0]!.n);
    // Headers the library cannot compare (an empty or non-ASCII v1) are refused alike, never a 500 (issue 43).
    const unreadable = ["t=1,v1=", "t=1,v1", `t=1,v1=${"\u00e9".repeat(64)}`];
    const answers = [await post(forgedEvent, "whsec_not_the_endpoints_secret_000"), await post(forgedEvent, "", "")];
    for (const header of unreadable) answers.push(await post(forgedEvent, "", header));
    for (const res of answers) {
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string } };
      assert.equal(body.error.code, "PROVIDER_SIGNATURE_INVALID");
    }
    assert.equal(Number((await db("payment_provider_events").count({ n: "*" }))[0]!.n), inboxBefore);
    assert.equal((await db("payment_checkouts").where({ id: checkout.id }).first()).status, "open");
  });

  it("answers 200 to a completed session whose client_reference_id is no checkout id (a creator's own session), changing nothing", async () => {
    const { db } = await testDatabase();
    const subscriptions = async () => Number((await db("subscriptions").count({ n: "*" }))[0]!.n);
    const before = await subscriptions();
    for (const reference of ["not-a-checkout", "x".repeat(200), "00000000-0000-4000-8000-00000000000Z", "1' or '1'='1"]) {
      const event = {
        id: `evt_${randomUUID().replace(/-/g, "")}`,
        object: "event",
        type: "checkout.session.completed",
        created: Math.floor(Date.now() / 1000),
        account: shop.account,
        data: { object: { id: `cs_${randomUUID().replace(/-/g, "")}`, object: "checkout.session", client_reference_id: reference, mode: "payment" } },
      };
      const res = await post(event, stripe().webhookSecret);
      assert.equal(res.status, 200, `${reference}: ${await res.text()}`);
    }
    assert.equal(await subscriptions(), before);
  });

  it("moves the period on when the twin renews the subscription", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Rene");
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    const before = await db("subscriptions").where({ id: subscription_id }).first();
    await twin.advanceClock(32 * (DAY / 1000));
    await twin.settled();
    const after = await db("subscriptions").where({ id: subscription_id }).first();
    assert.ok(new Date(after.ends_at).getTime() > new Date(before.ends_at).getTime(), `${before.ends_at} -> ${after.ends_at}`);
    assert.equal((await db("transactions").where({ subscription_id, kind: "payment" })).length, 2);
  });

  it("a creator's cancellation over REST stops the renewals at Stripe first, then cancels at period end", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Cancel");
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    const res = await suite.client.post(`/v1/subscriptions/${subscription_id}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "canceled");
    const row = await db("subscriptions").where({ id: subscription_id }).first();
    const account = shop.account;
    const atStripe = await stripe().client.subscriptions.retrieve(row.provider_subscription_id, {}, { stripeAccount: account });
    assert.equal(atStripe.cancel_at_period_end, true, "Stripe will not renew it");
    await twin.settled();
    // Stripe's own report of the scheduled cancellation changes nothing more; the period still ends as paid.
    const after = await db("subscriptions").where({ id: subscription_id }).first();
    assert.equal(after.status, "canceled");
    assert.equal(new Date(after.ends_at).getTime(), new Date(row.ends_at).getTime());
  });

  it("refunds, through the registry's provider, a second checkout paid while the first's subscription is live", async () => {
    const { db } = await testDatabase();
    const userId = `${Date.now()}`;
    // Two checkouts opened before either is paid: both pass the live-subscription refusal.
    const first = await checkoutFor("Twice", userId);
    const second = await checkoutFor("Twice", userId);
    await twin.completeCheckout(first.sessionId, { card: TEST_CARDS.success });
    await twin.completeCheckout(second.sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    assert.equal((await db("payment_checkouts").where({ id: first.checkout.id }).first()).status, "completed");
    assert.equal((await db("payment_checkouts").where({ id: second.checkout.id }).first()).status, "superseded");
    const account = shop.account;
    const kept = await db("transactions").where({
      subscription_id: (await db("payment_checkouts").where({ id: first.checkout.id }).first()).subscription_id,
    });
    const refunds = twin.calls.filter((c) => c.method === "POST" && c.path === "/v1/refunds" && c.status === 200);
    assert.equal(refunds.length, 1, JSON.stringify(refunds));
    assert.equal(refunds[0]!.account, account);
    const refunded = String(refunds[0]!.params.payment_intent ?? refunds[0]!.params.charge);
    assert.match(refunded, /^(pi|ch)_/);
    assert.notEqual(refunded, kept[0].provider_reference, "the kept subscription's payment is not refunded");
    // The refund was owed from the supersession's commit and is settled now.
    const owed = await db("payment_refunds_owed").where({ checkout_id: second.checkout.id });
    assert.deepEqual(
      owed.map((o: Record<string, unknown>) => [o.status, o.provider_payment_id, o.attempts]),
      [["refunded", refunded, 1]],
    );
  });

  it("answers 404 where the deployment has no Stripe", async () => {
    const bare = await startApi();
    try {
      const res = await fetch(stripeEventsUrl(bare.url), { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: "{}" });
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, "RESOURCE_NOT_FOUND");
    } finally {
      await bare.close();
    }
  });

  /** The subscription's events of `types` in the outbox, oldest first, each valid against its webhook schema. */
  async function outboxOf(subscriptionId: string, types: string[]) {
    const about = (e: OutboxEvent) =>
      e.data.subscription?.id === subscriptionId ||
      e.data.failure?.subscription_id === subscriptionId ||
      e.data.payment?.subscription_id === subscriptionId;
    const events = (await eventsOf(suite.creator.teamId)).filter((e) => types.includes(e.type) && about(e));
    for (const event of events) assertValidEvent(event);
    return events;
  }

  /** The twin's events about the Stripe object `id`, oldest first. */
  const twinEvents = (type: string, id: string) =>
    twin.events.filter((e) => e.type === type && (e.data as { object: { id: string } }).object.id === id);

  it("a disputed payment (the 0259 card) ends access at once; the dispute won records its closing and nothing more", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Dora");
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.disputed });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal((await db("subscriptions").where({ id: subscription_id }).first()).status, "expired", "no access without a covering payment");
    const [payment] = await db("transactions").where({ subscription_id, kind: "payment" });
    const disputeRows = () => db("transactions").where({ subscription_id, kind: "dispute" });
    const [opened] = await disputeRows();
    assert.deepEqual([opened.status, Number(opened.amount_minor), opened.refunded_transaction_id], ["pending", 500, payment.id]);
    assert.match(opened.provider_reference, /^du_/);
    // Stripe delivers the dispute again: answered 200, nothing more.
    const [created] = twinEvents("charge.dispute.created", opened.provider_reference);
    assert.equal((await post(created, stripe().webhookSecret)).status, 200);
    await twin.closeDispute(opened.provider_reference, "won");
    assert.deepEqual(
      (await disputeRows()).map((d: Record<string, unknown>) => d.status),
      ["failed"],
    );
    assert.equal((await db("subscriptions").where({ id: subscription_id }).first()).status, "expired", "a win gives no access back");
    const events = await outboxOf(subscription_id, ["payment.succeeded", "payment.disputed", "payment.dispute_closed", "subscription.expired"]);
    assert.deepEqual(
      events.map((e) => e.type),
      ["payment.succeeded", "payment.disputed", "subscription.expired", "payment.dispute_closed"],
    );
    assert.deepEqual(events[3]!.data.dispute, { status: "won", reason: "fraudulent" });
    assert.deepEqual(
      twin.deliveries.filter((d) => d.type.startsWith("charge.dispute.") && d.url === stripeEventsUrl(suite.api.url)).map((d) => d.status),
      [200, 200],
    );
  });

  it("each failed renewal sends payment.failed, the first with subscription.past_due; when Stripe gives up, the subscription expires", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Fay");
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    const providerId = (await db("subscriptions").where({ id: subscription_id }).first()).provider_subscription_id;
    // The renewal, then Stripe's retries 3, 5 and 7 days after the invoice, all fail.
    for (const days of [32, 3, 2, 2]) {
      twin.failNextPayment(providerId);
      await twin.advanceClock(days * (DAY / 1000));
      await twin.settled();
      if (days === 32) assert.equal((await db("subscriptions").where({ id: subscription_id }).first()).status, "past_due");
    }
    assert.equal(twinEvents("customer.subscription.deleted", providerId).length, 1, "Stripe gave up");
    assert.equal((await db("subscriptions").where({ id: subscription_id }).first()).status, "expired");
    const events = await outboxOf(subscription_id, ["subscription.past_due", "payment.failed", "subscription.renewed", "subscription.expired"]);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.past_due", "payment.failed", "payment.failed", "payment.failed", "payment.failed", "subscription.expired"],
    );
    const failures = events.filter((e) => e.type === "payment.failed").map((e) => e.data.failure);
    assert.deepEqual(
      failures.map((f) => [f.attempt_count, f.reason, f.amount.amount, f.next_retry_at === null]),
      [
        [1, "generic_decline", 500, false],
        [2, "generic_decline", 500, false],
        [3, "generic_decline", 500, false],
        [4, "generic_decline", 500, true],
      ],
    );
    assert.equal(new Set(failures.map((f) => f.grace_ends_at)).size, 1, "the retries do not extend the grace");
  });

  it("a cancellation withdrawn at Stripe makes the subscription renew again; the cancellation reported late changes nothing", async () => {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await checkoutFor("Will");
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    const providerId = (await db("subscriptions").where({ id: subscription_id }).first()).provider_subscription_id;
    const stripeAccount = twinEvents("checkout.session.completed", sessionId)[0]!.account as string;
    await stripe().client.subscriptions.update(providerId, { cancel_at_period_end: true }, { stripeAccount });
    await twin.settled();
    assert.equal((await db("subscriptions").where({ id: subscription_id }).first()).status, "canceled");
    await stripe().client.subscriptions.update(providerId, { cancel_at_period_end: false }, { stripeAccount });
    await twin.settled();
    const renewing = await db("subscriptions").where({ id: subscription_id }).first();
    assert.deepEqual([renewing.status, renewing.canceled_at], ["active", null]);
    // The cancellation's report arrives once more, late and under an id not seen yet: it reads Stripe's current state.
    const [cancelled] = twinEvents("customer.subscription.updated", providerId).filter(
      (e) => (e.data as { object: { cancel_at_period_end: boolean } }).object.cancel_at_period_end,
    );
    assert.equal((await post({ ...cancelled, id: `${cancelled!.id}late` }, stripe().webhookSecret)).status, 200);
    assert.equal((await db("subscriptions").where({ id: subscription_id }).first()).status, "active");
    const events = await outboxOf(subscription_id, ["subscription.cancelled", "subscription.reactivated"]);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.cancelled", "subscription.reactivated"],
    );
  });
});
