// The Stripe provider against the Stripe twin only: a creator's connected account is onboarded, a
// member checks out, renews, fails, cancels, is refunded and disputes, and every signed webhook the
// twin delivers to a local receiver is parsed by parseStripeWebhook into the ProviderEvent the
// domain will apply.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import Stripe from "stripe";
import { listenOnLoopback } from "../../helpers/open-resources.ts";
import { startStripeTwin, TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import {
  accountReady,
  createConnectedAccount,
  createStripeClient,
  onboardingLink,
  parseStripeWebhook,
  stripeProvider,
  stripeCouponId,
  StripeWebhookSignatureError,
} from "../../../src/modules/payments/stripe/index.ts";
import type { CheckoutRequest, ConnectedMethod, PaymentProvider, PlanPrice, ProviderEvent } from "../../../src/modules/payments/provider.ts";

const DAY = 86400;
const monthly: PlanPrice = { amountMinor: 500, currency: "USD", cycle: "month", cycleCount: 1, trialDays: 0 };
const lifetime: PlanPrice = { amountMinor: 1900, currency: "EUR", cycle: "lifetime", cycleCount: 1, trialDays: 0 };

let twin: StripeTwin;
let client: Stripe;
let provider: PaymentProvider;
let method: ConnectedMethod;
let received: { body: string; signature: string }[];
let secret: string;
const closers: (() => Promise<void>)[] = [];

/** Every webhook delivered after the first `since`, verified and normalized, in delivery order. */
async function normalized(since = 0): Promise<ProviderEvent[]> {
  await twin.settled();
  const all: ProviderEvent[] = [];
  for (const r of received.slice(since)) all.push(...(await parseStripeWebhook(r.body, r.signature, secret, client)));
  return all;
}

/** The normalized events of one kind received after `since` deliveries. */
async function eventsOf<K extends ProviderEvent["kind"]>(kind: K, since = 0): Promise<Extract<ProviderEvent, { kind: K }>[]> {
  return (await normalized(since)).filter((e): e is Extract<ProviderEvent, { kind: K }> => e.kind === kind);
}

const request = (reference: string, price: PlanPrice = monthly, extra: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  reference,
  planName: "Gold membership",
  price,
  successUrl: "https://portal.example/paid?session={CHECKOUT_SESSION_ID}",
  cancelUrl: "https://portal.example/plans",
  ...extra,
});

const onAccount = () => ({ stripeAccount: method.account });

/** A member checks out with `card` and the checkout.completed event it produced. */
async function buy(reference: string, price: PlanPrice = monthly, card: string = TEST_CARDS.success) {
  const start = await provider.startCheckout(method, request(reference, price));
  await twin.completeCheckout(start.providerCheckoutId!, { card });
  const [completed] = (await eventsOf("checkout.completed")).filter((e) => e.reference === reference);
  assert.ok(completed, `no checkout.completed for ${reference}`);
  return { start, completed };
}

beforeEach(async () => {
  twin = await startStripeTwin();
  client = createStripeClient({ secretKey: twin.secretKey, ...twin.clientOptions });
  provider = stripeProvider(client);
  received = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ body, signature: String(req.headers["stripe-signature"]) });
      res.writeHead(200).end();
    });
  });
  const listening = await listenOnLoopback(server, "Stripe provider webhook receiver");
  closers.push(listening.close);
  const endpoint = await client.webhookEndpoints.create({
    url: `http://127.0.0.1:${listening.port}/stripe`,
    enabled_events: ["*"],
    connect: true,
  });
  secret = endpoint.secret!;
  const account = await createConnectedAccount(client, { email: "creator@example.com", country: "US" });
  await twin.completeOnboarding(account);
  method = { paymentMethodId: "pm-1", account, mode: "test" };
});

afterEach(async () => {
  await twin.settled();
  await twin.close();
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe("Stripe provider: client and Connect", () => {
  it("onboards a connected account through an account link; it is ready only once onboarding is done", async () => {
    const account = await createConnectedAccount(client, { email: "other@example.com" });
    assert.match(account, /^acct_/);
    assert.equal(await accountReady(client, account), false);
    const url = await onboardingLink(client, account, { refreshUrl: "https://app.example/refresh", returnUrl: "https://app.example/return" });
    const submitted = await fetch(url, { method: "POST", redirect: "manual" });
    assert.equal(submitted.headers.get("location"), "https://app.example/return");
    assert.equal(await accountReady(client, account), true);
  });

  it("bounds a call to a Stripe that does not answer by its timeout (a connection error, not a hang)", async () => {
    const silent = createServer(() => {});
    const listening = await listenOnLoopback(silent, "silent Stripe");
    closers.push(listening.close);
    const slow = createStripeClient({ secretKey: twin.secretKey, host: "127.0.0.1", port: listening.port, protocol: "http", timeoutMs: 100 });
    await assert.rejects(
      slow.accounts.retrieve(method.account),
      (error: Error) => error instanceof Stripe.errors.StripeConnectionError && /timeout/.test(error.message),
    );
  });
});

describe("Stripe provider: what it sells", () => {
  it("refuses Telegram Stars (XTR) as PLAN_CURRENCY_MISMATCH and cycles beyond Stripe's three years as PLAN_PROVIDER_UNSUPPORTED", () => {
    assert.equal(provider.refusal({ ...monthly, currency: "XTR" })?.code, "PLAN_CURRENCY_MISMATCH");
    assert.equal(provider.refusal({ ...monthly, currency: "usd" })?.code, "PLAN_CURRENCY_MISMATCH");
    for (const [cycle, count] of [
      ["month", 37],
      ["week", 157],
      ["day", 1096],
      ["year", 4],
      ["month", 0],
    ] as const)
      assert.equal(provider.refusal({ ...monthly, cycle, cycleCount: count })?.code, "PLAN_PROVIDER_UNSUPPORTED", `${count} ${cycle}`);
    for (const [cycle, count] of [
      ["month", 36],
      ["week", 156],
      ["day", 1095],
      ["year", 3],
      ["day", 1],
    ] as const)
      assert.equal(provider.refusal({ ...monthly, cycle, cycleCount: count }), null, `${count} ${cycle}`);
    assert.equal(provider.refusal(lifetime), null);
  });
});

describe("Stripe provider: checkout", () => {
  it("starts a subscription checkout on the connected account, reusing the plan's price, one session per reference", async () => {
    const first = await provider.startCheckout(method, request("chk-1"));
    assert.match(first.providerCheckoutId!, /^cs_test_/);
    assert.ok(first.url!.startsWith(`${twin.url}/c/pay/`));
    assert.ok(first.expiresAt!.getTime() > Date.now());
    const again = await provider.startCheckout(method, request("chk-1"));
    assert.equal(again.providerCheckoutId, first.providerCheckoutId);
    const second = await provider.startCheckout(method, request("chk-2"));
    assert.notEqual(second.providerCheckoutId, first.providerCheckoutId);
    const priceCreates = twin.calls.filter((c) => c.method === "POST" && c.path === "/v1/prices" && c.status === 200);
    assert.equal(priceCreates.length, 1, "the plan's price is created once and found by its lookup key after");
    assert.equal(priceCreates[0]!.account, method.account);
    const sessionCall = twin.calls.find((c) => c.path === "/v1/checkout/sessions" && c.method === "POST")!;
    assert.equal(sessionCall.account, method.account);
    assert.equal(sessionCall.idempotencyKey, "checkout_chk-1");
    const session = await client.checkout.sessions.retrieve(first.providerCheckoutId!, {}, onAccount());
    assert.equal(session.mode, "subscription");
    assert.equal(session.client_reference_id, "chk-1");
    assert.deepEqual(session.metadata, { reference: "chk-1" });
    assert.equal(session.allow_promotion_codes, false, "only our coupons discount");
    assert.equal(session.amount_total, 500);
    assert.equal(session.currency, "usd");
  });

  it("reports a paid subscription checkout as checkout.completed: reference, subscription, customer, payment and period end", async () => {
    const { completed } = await buy("chk-paid");
    const subscription = await client.subscriptions.retrieve(completed.providerSubscriptionId!, {}, onAccount());
    assert.equal(completed.reference, "chk-paid");
    assert.match(completed.eventId, /^evt_/);
    assert.equal(completed.providerCustomerId, subscription.customer);
    assert.equal(completed.trialEndsAt, null);
    assert.equal(completed.periodEndsAt!.getTime(), subscription.items.data[0]!.current_period_end * 1000);
    assert.match(completed.payment!.providerPaymentId, /^pi_/);
    assert.deepEqual(
      { ...completed.payment!, providerPaymentId: "", paidAt: null },
      {
        providerPaymentId: "",
        amountMinor: 500,
        currency: "USD",
        feeMinor: 45, // the twin's card fee on 500 (2.9% + 30), from the charge's balance transaction
        paidAt: null,
      },
    );
    const event = twin.events.find((e) => e.id === completed.eventId)!;
    assert.equal(event.type, "checkout.session.completed");
    assert.equal(completed.occurredAt.getTime(), (event.created as number) * 1000);
  });

  it("sells a lifetime plan as a one-off payment (payment mode): no subscription, no period end", async () => {
    const { start, completed } = await buy("chk-life", lifetime);
    const session = await client.checkout.sessions.retrieve(start.providerCheckoutId!, {}, onAccount());
    assert.equal(session.mode, "payment");
    assert.equal(completed.providerSubscriptionId, null);
    assert.equal(completed.periodEndsAt, null);
    assert.equal(completed.payment!.amountMinor, 1900);
    assert.equal(completed.payment!.currency, "EUR");
    assert.equal(completed.payment!.feeMinor, 85);
    assert.equal(completed.payment!.providerPaymentId, session.payment_intent);
  });

  it("starts a trial without a charge, and its end is the first renewal", async () => {
    const { start, completed } = await buy("chk-trial", { ...monthly, trialDays: 7 });
    const session = await client.checkout.sessions.retrieve(start.providerCheckoutId!, {}, onAccount());
    assert.equal(session.payment_status, "no_payment_required");
    const subscription = await client.subscriptions.retrieve(completed.providerSubscriptionId!, {}, onAccount());
    assert.equal(completed.payment, null);
    assert.equal(completed.trialEndsAt!.getTime(), subscription.trial_end! * 1000);
    assert.equal((await provider.readSubscription(method, subscription.id)).status, "trialing");
    const before = received.length;
    await twin.advanceClock(8 * DAY);
    const [renewed] = await eventsOf("subscription.renewed", before);
    assert.equal(renewed!.providerSubscriptionId, subscription.id);
    assert.equal(renewed!.payment.amountMinor, 500);
    assert.equal((await provider.readSubscription(method, subscription.id)).status, "active");
  });

  it("applies our coupon's discount as one Stripe coupon on the account, named after ours; no code field on Stripe's page", async () => {
    const percent = { couponId: "11111111-1111-4111-8111-111111111111", percentOff: 20, amountOffMinor: null, currency: null };
    const first = await provider.startCheckout(method, request("chk-percent", monthly, { discount: percent }));
    const session = await client.checkout.sessions.retrieve(first.providerCheckoutId!, {}, onAccount());
    assert.equal(session.amount_total, 400);
    assert.equal(session.allow_promotion_codes, false);
    const coupon = await client.coupons.retrieve(stripeCouponId(percent.couponId), {}, onAccount());
    assert.deepEqual([coupon.percent_off, coupon.duration], [20, "once"]);
    // A second checkout with the same coupon reuses the Stripe coupon (one create in all).
    const second = await provider.startCheckout(method, request("chk-percent-2", monthly, { discount: percent }));
    assert.equal((await client.checkout.sessions.retrieve(second.providerCheckoutId!, {}, onAccount())).amount_total, 400);
    const creates = twin.calls.filter((c) => c.method === "POST" && c.path === "/v1/coupons");
    assert.equal(creates.length, 1);
    const fixed = { couponId: "22222222-2222-4222-8222-222222222222", percentOff: null, amountOffMinor: 150, currency: "USD" };
    const third = await provider.startCheckout(method, request("chk-fixed", monthly, { discount: fixed }));
    assert.equal((await client.checkout.sessions.retrieve(third.providerCheckoutId!, {}, onAccount())).amount_total, 350);
    const amount = await client.coupons.retrieve(stripeCouponId(fixed.couponId), {}, onAccount());
    assert.deepEqual([amount.amount_off, amount.currency], [150, "usd"]);
    // Without a discount, no promotion codes either: only our coupons discount.
    const plain = await provider.startCheckout(method, request("chk-plain"));
    const none = await client.checkout.sessions.retrieve(plain.providerCheckoutId!, {}, onAccount());
    assert.deepEqual([none.amount_total, none.allow_promotion_codes], [500, false]);
  });

  it("charges a discounted first payment once: the renewal is at the plan's price", async () => {
    const discount = { couponId: "33333333-3333-4333-8333-333333333333", percentOff: 50, amountOffMinor: null, currency: null };
    const start = await provider.startCheckout(method, request("chk-once", monthly, { discount }));
    await twin.completeCheckout(start.providerCheckoutId!, { card: TEST_CARDS.success });
    const [completed] = (await eventsOf("checkout.completed")).filter((e) => e.reference === "chk-once");
    assert.equal(completed!.payment!.amountMinor, 250);
    const before = received.length;
    await twin.advanceClock(32 * DAY);
    const [renewed] = await eventsOf("subscription.renewed", before);
    assert.equal(renewed!.payment.amountMinor, 500);
  });
});

describe("Stripe provider: the subscription's life", () => {
  it("renews at the period end (subscription.renewed with the invoice's payment and the new period end)", async () => {
    const { completed } = await buy("chk-renew");
    const before = received.length;
    await twin.advanceClock(32 * DAY);
    const [renewed] = await eventsOf("subscription.renewed", before);
    const subscription = await client.subscriptions.retrieve(completed.providerSubscriptionId!, {}, onAccount());
    assert.equal(renewed!.providerSubscriptionId, subscription.id);
    assert.equal(renewed!.periodEndsAt.getTime(), subscription.items.data[0]!.current_period_end * 1000);
    assert.ok(renewed!.periodEndsAt > completed.periodEndsAt!);
    assert.equal(renewed!.payment.amountMinor, 500);
    assert.equal(renewed!.payment.currency, "USD");
    assert.equal(renewed!.payment.feeMinor, 45);
    assert.notEqual(renewed!.payment.providerPaymentId, completed.payment!.providerPaymentId);
  });

  it("reports a failed renewal (payment.failed with the next retry), and the subscription reads past_due", async () => {
    const { completed } = await buy("chk-fail");
    const subscriptionId = completed.providerSubscriptionId!;
    twin.failNextPayment(subscriptionId);
    const before = received.length;
    await twin.advanceClock(32 * DAY);
    const [failed] = await eventsOf("payment.failed", before);
    assert.equal(failed!.providerSubscriptionId, subscriptionId);
    assert.equal(failed!.reason, "generic_decline");
    assert.deepEqual([failed!.amountDueMinor, failed!.currency, failed!.attemptCount], [500, "USD", 1]);
    assert.equal(failed!.nextRetryAt!.getTime(), completed.periodEndsAt!.getTime() + 3 * DAY * 1000);
    assert.deepEqual(await eventsOf("subscription.renewed", before), []);
    assert.equal((await provider.readSubscription(method, subscriptionId)).status, "past_due");
  });

  it("cancels at period end (cancel_scheduled, access kept), then ends at the period end (subscription.ended)", async () => {
    const { completed } = await buy("chk-cancel");
    const subscriptionId = completed.providerSubscriptionId!;
    await provider.cancelAtPeriodEnd(method, subscriptionId);
    const [scheduled] = await eventsOf("subscription.cancel_scheduled");
    assert.equal(scheduled!.providerSubscriptionId, subscriptionId);
    assert.equal(scheduled!.cancelAtPeriodEnd, true);
    assert.equal(scheduled!.periodEndsAt!.getTime(), completed.periodEndsAt!.getTime());
    assert.deepEqual(await provider.readSubscription(method, subscriptionId), {
      providerSubscriptionId: subscriptionId,
      status: "active",
      cancelAtPeriodEnd: true,
      periodEndsAt: completed.periodEndsAt,
    });
    await twin.advanceClock(32 * DAY);
    const [ended] = await eventsOf("subscription.ended");
    assert.equal(ended!.providerSubscriptionId, subscriptionId);
    assert.equal(ended!.endedAt.getTime(), completed.periodEndsAt!.getTime());
    assert.deepEqual(await eventsOf("subscription.renewed"), []);
    assert.equal((await provider.readSubscription(method, subscriptionId)).status, "ended");
  });
});

describe("Stripe provider: a withdrawn cancellation", () => {
  it("reports it as cancel_scheduled false, and a late delivery of the cancellation reports Stripe's current state", async () => {
    const { completed } = await buy("chk-withdraw");
    const subscriptionId = completed.providerSubscriptionId!;
    const before = received.length;
    await provider.cancelAtPeriodEnd(method, subscriptionId);
    await client.subscriptions.update(subscriptionId, { cancel_at_period_end: false }, onAccount());
    await twin.settled();
    const deliveries = received.slice(before).filter((r) => JSON.parse(r.body).type === "customer.subscription.updated");
    assert.equal(deliveries.length, 2);
    const withdrawn = await parseStripeWebhook(deliveries[1]!.body, deliveries[1]!.signature, secret, client);
    assert.deepEqual(
      withdrawn.map((e) => e.kind === "subscription.cancel_scheduled" && e.cancelAtPeriodEnd),
      [false],
    );
    // The cancellation's own event, parsed after its withdrawal (delivered late), reads the subscription as it is now.
    const late = await parseStripeWebhook(deliveries[0]!.body, deliveries[0]!.signature, secret, client);
    assert.deepEqual(
      late.map((e) => e.kind === "subscription.cancel_scheduled" && e.cancelAtPeriodEnd),
      [false],
    );
  });
});

describe("Stripe provider: money back", () => {
  it("refunds part of a payment by its PaymentIntent, then the rest by its charge (payment.refunded each time)", async () => {
    const { completed } = await buy("chk-refund");
    const paymentId = completed.payment!.providerPaymentId;
    await provider.refund(method, paymentId, 200);
    const [partial] = await eventsOf("payment.refunded");
    assert.equal(partial!.providerPaymentId, paymentId);
    assert.match(partial!.refundId, /^re_/);
    assert.equal(partial!.amountMinor, 200);
    assert.equal(partial!.currency, "USD");
    const intent = await client.paymentIntents.retrieve(paymentId, {}, onAccount());
    const before = received.length;
    await provider.refund(method, intent.latest_charge as string);
    const [rest] = await eventsOf("payment.refunded", before);
    assert.equal(rest!.providerPaymentId, paymentId);
    assert.equal(rest!.amountMinor, 300);
    assert.notEqual(rest!.refundId, partial!.refundId);
  });

  it("reports a dispute on the payment (payment.disputed)", async () => {
    const { completed } = await buy("chk-dispute");
    const paymentId = completed.payment!.providerPaymentId;
    const intent = await client.paymentIntents.retrieve(paymentId, {}, onAccount());
    const dispute = await twin.openDispute(intent.latest_charge as string);
    const [disputed] = await eventsOf("payment.disputed");
    assert.deepEqual(
      { ...disputed!, eventId: "", occurredAt: null },
      {
        kind: "payment.disputed",
        eventId: "",
        occurredAt: null,
        source: method.account,
        providerPaymentId: paymentId,
        disputeId: dispute.id,
        amountMinor: 500,
        currency: "USD",
        reason: "fraudulent",
      },
    );
    // Decided: charge.dispute.closed is the closing, won or lost.
    const before = received.length;
    await client.disputes.update(dispute.id, { evidence: { uncategorized_text: "winning_evidence" } }, onAccount());
    const [closed] = await eventsOf("payment.dispute_closed", before);
    assert.deepEqual(
      [closed!.providerPaymentId, closed!.disputeId, closed!.outcome, closed!.amountMinor, closed!.currency],
      [paymentId, dispute.id, "won", 500, "USD"],
    );
    const other = await twin.openDispute(intent.latest_charge as string);
    const since = received.length;
    await client.disputes.close(other.id, {}, onAccount());
    assert.deepEqual(
      (await eventsOf("payment.dispute_closed", since)).map((e) => [e.disputeId, e.outcome]),
      [[other.id, "lost"]],
    );
  });
});

describe("Stripe provider: webhooks", () => {
  it("refuses a forged or altered webhook with StripeWebhookSignatureError, and maps other event types to nothing", async () => {
    await buy("chk-hooks");
    const delivery = received.find((r) => JSON.parse(r.body).type === "checkout.session.completed")!;
    const forged = `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`;
    await assert.rejects(parseStripeWebhook(delivery.body, forged, secret, client), StripeWebhookSignatureError);
    const altered = delivery.body.replace("chk-hooks", "chk-other");
    await assert.rejects(parseStripeWebhook(altered, delivery.signature, secret, client), StripeWebhookSignatureError);
    await assert.rejects(parseStripeWebhook(Buffer.from(delivery.body), delivery.signature, "whsec_other", client), StripeWebhookSignatureError);
    const customerCreated = received.find((r) => JSON.parse(r.body).type === "customer.created")!;
    assert.deepEqual(await parseStripeWebhook(Buffer.from(customerCreated.body), customerCreated.signature, secret, client), []);
    const kinds = (await normalized()).map((e) => e.kind);
    assert.deepEqual(kinds, ["checkout.completed"], "the first invoice is reported by the checkout, not as a renewal");
  });
});
