// The Stripe twin, driven only through the official stripe client pointed at it ({host, port,
// protocol: "http"}) and, for the hosted pages, plain fetch as a browser's form posts; every
// webhook received is verified with stripe.webhooks.constructEvent.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import Stripe from "stripe";
import { listenOnLoopback } from "../../helpers/open-resources.ts";
import { startStripeTwin, TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";

const DAY = 86400;

interface Receiver {
  url: string;
  secret: string;
  /** Every delivery, verified and parsed by constructEvent. */
  events(): Stripe.Event[];
  types(): string[];
}

let twin: StripeTwin;
let stripe: Stripe;
const closers: (() => Promise<void>)[] = [];

/** A webhook endpoint on loopback registered with the twin; `connect` receives the connected accounts' events. */
async function receiver(connect = false): Promise<Receiver> {
  const raw: { body: string; signature: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      raw.push({ body, signature: String(req.headers["stripe-signature"]) });
      res.writeHead(200).end();
    });
  });
  const listening = await listenOnLoopback(server, "Stripe webhook receiver");
  closers.push(listening.close);
  const url = `http://127.0.0.1:${listening.port}/stripe`;
  const endpoint = await stripe.webhookEndpoints.create({ url, enabled_events: ["*"], ...(connect ? { connect: true } : {}) });
  const events = () => raw.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, endpoint.secret!));
  return { url, secret: endpoint.secret!, events, types: () => events().map((e) => e.type) };
}

async function errorOf(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Stripe.errors.StripeError, String(error));
    return error;
  }
  return assert.fail("the call succeeded");
}

async function monthlyPrice(amount = 500, options?: Stripe.RequestOptions) {
  const product = await stripe.products.create({ name: "Gold membership" }, options);
  return stripe.prices.create({ product: product.id, unit_amount: amount, currency: "usd", recurring: { interval: "month" } }, options);
}

async function oneTimePrice(amount = 1900, options?: Stripe.RequestOptions) {
  const product = await stripe.products.create({ name: "Lifetime pass" }, options);
  return stripe.prices.create({ product: product.id, unit_amount: amount, currency: "usd" }, options);
}

/** Posts the hosted page's form as a browser does (no redirect followed). */
function payForm(url: string, fields: Record<string, string>) {
  return fetch(url, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
}

const goodCard = { cardnumber: "4242 4242 4242 4242", exp: "12 / 34", cvc: "123", name: "Ada Member" };

beforeEach(async () => {
  twin = await startStripeTwin();
  stripe = new Stripe(twin.secretKey, { ...twin.clientOptions, maxNetworkRetries: 0, telemetry: false });
});

afterEach(async () => {
  await twin.settled();
  await twin.close();
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe("Stripe twin: core API", () => {
  it("refuses a wrong or missing secret key with Stripe's 401", async () => {
    const wrong = new Stripe("sk_test_wrongwrongwrongwrong1234", { ...twin.clientOptions, maxNetworkRetries: 0 });
    const error = await errorOf(wrong.products.list());
    assert.ok(error instanceof Stripe.errors.StripeAuthenticationError);
    assert.equal(error.statusCode, 401);
    assert.match(error.message, /^Invalid API Key provided: sk_test_\*+1234$/);
    const none = await fetch(`${twin.url}/v1/products`);
    assert.equal(none.status, 401);
    assert.match(((await none.json()) as { error: { message: string } }).error.message, /You did not provide an API key/);
  });

  it("creates and retrieves Connect accounts, and onboarding through an account link enables charges (account.updated)", async () => {
    const hooks = await receiver(true);
    const account = await stripe.accounts.create({ type: "express", country: "US", email: "creator@example.com" });
    assert.match(account.id, /^acct_[A-Za-z0-9]{16}$/);
    assert.equal(account.charges_enabled, false);
    assert.equal((await stripe.accounts.retrieve(account.id)).email, "creator@example.com");
    const link = await stripe.accountLinks.create({
      account: account.id,
      type: "account_onboarding",
      return_url: "https://app.example/connect/return",
      refresh_url: "https://app.example/connect/refresh",
    });
    assert.ok(link.url.startsWith(`${twin.url}/setup/e/${account.id}/`));
    const page = await fetch(link.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Set up payments/);
    assert.match(page.headers.get("content-security-policy")!, /form-action 'self' https:\/\/app\.example/);
    const submitted = await fetch(link.url, { method: "POST", redirect: "manual" });
    assert.equal(submitted.status, 303);
    assert.equal(submitted.headers.get("location"), "https://app.example/connect/return");
    const done = await stripe.accounts.retrieve(account.id);
    assert.equal(done.charges_enabled, true);
    assert.equal(done.details_submitted, true);
    // A link is single use: a second visit goes to refresh_url for a new one.
    const again = await fetch(link.url, { redirect: "manual" });
    assert.equal(again.headers.get("location"), "https://app.example/connect/refresh");
    await twin.settled();
    const updated = hooks.events().find((e) => e.type === "account.updated")!;
    assert.equal(updated.account, account.id);
    assert.equal((updated.data.object as Stripe.Account).charges_enabled, true);
    assert.deepEqual(updated.data.previous_attributes && "charges_enabled" in updated.data.previous_attributes, true);
  });

  it("keeps products, prices and customers per account (Stripe-Account), with recurring and one-time prices in minor units", async () => {
    const account = await stripe.accounts.create({ type: "standard" });
    const onConnected = { stripeAccount: account.id };
    const price = await monthlyPrice(799, onConnected);
    assert.match(price.id, /^price_/);
    assert.match(price.product as string, /^prod_/);
    assert.deepEqual(
      [price.unit_amount, price.currency, price.type, price.recurring?.interval, price.recurring?.interval_count],
      [799, "usd", "recurring", "month", 1],
    );
    const quarterly = await stripe.prices.create(
      { product: price.product as string, unit_amount: 2000, currency: "eur", recurring: { interval: "month", interval_count: 3 } },
      onConnected,
    );
    assert.equal(quarterly.recurring?.interval_count, 3);
    const once = await oneTimePrice(4900, onConnected);
    assert.equal(once.type, "one_time");
    assert.equal(once.recurring, null);
    // The platform does not see the connected account's objects.
    const missing = await errorOf(stripe.prices.retrieve(price.id));
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.code, "resource_missing");
    assert.equal(missing.message, `No such price: '${price.id}'`);
    const listed = await stripe.prices.list({ product: price.product as string }, onConnected);
    assert.equal(listed.object, "list");
    assert.deepEqual(
      listed.data.map((p) => p.id),
      [quarterly.id, price.id],
    );
    assert.equal(listed.has_more, false);
    const customer = await stripe.customers.create({ email: "m@example.com", metadata: { member: "mem_1" } }, onConnected);
    assert.match(customer.id, /^cus_[A-Za-z0-9]{14}$/);
    assert.deepEqual((await stripe.customers.retrieve(customer.id, {}, onConnected)) as Stripe.Customer, customer);
    const unknownAccount = await errorOf(stripe.products.list({}, { stripeAccount: "acct_doesnotexist0000" }));
    assert.deepEqual([unknownAccount.statusCode, unknownAccount.code], [403, "account_invalid"]);
    // An empty metadata value unsets that key only, as on Stripe.
    const updated = await stripe.customers.update(customer.id, { metadata: { member: "", tier: "gold" } }, onConnected);
    assert.deepEqual(updated.metadata, { tier: "gold" });
  });

  it("answers bad parameters with Stripe's invalid_request_error naming the parameter", async () => {
    const product = await stripe.products.create({ name: "P" });
    const missing = await errorOf(stripe.prices.create({ product: product.id, unit_amount: 100 } as Stripe.PriceCreateParams));
    assert.ok(missing instanceof Stripe.errors.StripeInvalidRequestError);
    assert.deepEqual(
      [missing.statusCode, missing.code, missing.param, missing.message],
      [400, "parameter_missing", "currency", "Missing required param: currency."],
    );
    const badInterval = await errorOf(
      stripe.prices.create({ product: product.id, unit_amount: 100, currency: "usd", recurring: { interval: "fortnight" as "week" } }),
    );
    assert.equal(badInterval.param, "recurring[interval]");
    const badAmount = await errorOf(stripe.prices.create({ product: product.id, unit_amount: "ten" as unknown as number, currency: "usd" }));
    assert.equal(badAmount.code, "parameter_invalid_integer");
    const route = await fetch(`${twin.url}/v1/nothing`, { headers: { authorization: `Bearer ${twin.secretKey}` } });
    assert.equal(route.status, 404);
    assert.match(((await route.json()) as { error: { message: string } }).error.message, /^Unrecognized request URL \(GET: \/v1\/nothing\)/);
    const badId = await fetch(`${twin.url}/v1/customers/%E0%A4%A`, { headers: { authorization: `Bearer ${twin.secretKey}` } });
    assert.equal(badId.status, 400);
  });

  it("replays an Idempotency-Key's answer and refuses the key with other parameters", async () => {
    const first = await stripe.customers.create({ email: "a@example.com" }, { idempotencyKey: "key-1" });
    const replay = await stripe.customers.create({ email: "a@example.com" }, { idempotencyKey: "key-1" });
    assert.equal(replay.id, first.id);
    assert.equal((await stripe.customers.list()).data.length, 1);
    const conflict = await errorOf(stripe.customers.create({ email: "b@example.com" }, { idempotencyKey: "key-1" }));
    assert.ok(conflict instanceof Stripe.errors.StripeIdempotencyError);
    assert.equal(conflict.statusCode, 400);
    // A request refused for its parameters saves nothing: the corrected one may reuse the key.
    const product = await stripe.products.create({ name: "P" });
    await errorOf(stripe.prices.create({ product: product.id, unit_amount: 100 } as Stripe.PriceCreateParams, { idempotencyKey: "key-2" }));
    const price = await stripe.prices.create({ product: product.id, unit_amount: 100, currency: "usd" }, { idempotencyKey: "key-2" });
    assert.equal(price.unit_amount, 100);
  });

  it("decodes stripe-node's bracket notation: nested hashes, arrays and expand", async () => {
    const price = await stripe.prices.create({
      product_data: { name: "Nested" },
      unit_amount: 300,
      currency: "usd",
      metadata: { a: "1", "b c": "2 & 3" },
    });
    assert.deepEqual(price.metadata, { a: "1", "b c": "2 & 3" });
    const expanded = await stripe.prices.retrieve(price.id, { expand: ["product"] });
    assert.equal((expanded.product as Stripe.Product).name, "Nested");
  });

  it("lists prices by lookup_keys[], on the account asked for only", async () => {
    const acct = (await stripe.accounts.create({ type: "express" })).id;
    const kept = await stripe.prices.create(
      { product_data: { name: "A" }, unit_amount: 300, currency: "usd", lookup_key: "gold" },
      { stripeAccount: acct },
    );
    await stripe.prices.create({ product_data: { name: "B" }, unit_amount: 400, currency: "usd", lookup_key: "silver" }, { stripeAccount: acct });
    await stripe.prices.create({ product_data: { name: "C" }, unit_amount: 500, currency: "usd", lookup_key: "gold" });
    const found = await stripe.prices.list({ lookup_keys: ["gold"] }, { stripeAccount: acct });
    assert.deepEqual(
      found.data.map((p) => p.id),
      [kept.id],
    );
    assert.equal((await stripe.prices.list({ lookup_keys: ["bronze"] }, { stripeAccount: acct })).data.length, 0);
    assert.equal((await stripe.prices.list({}, { stripeAccount: acct })).data.length, 2);
  });
});

describe("Stripe twin: Checkout", () => {
  it("sells a one-time price on the hosted page: a declined card keeps the session open, 4242 pays and redirects to success_url", async () => {
    const hooks = await receiver();
    const price = await oneTimePrice(1900);
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: "https://app.example/paid?session={CHECKOUT_SESSION_ID}",
      cancel_url: "https://app.example/cancel",
      client_reference_id: "mem_42",
      metadata: { plan: "plan_1" },
      customer_email: "member@example.com",
    });
    assert.match(session.id, /^cs_test_[A-Za-z0-9]{58}$/);
    assert.deepEqual([session.status, session.payment_status, session.amount_total, session.currency], ["open", "unpaid", 1900, "usd"]);
    assert.equal(session.url, `${twin.url}/c/pay/${session.id}`);
    const page = await fetch(session.url!);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /Lifetime pass/);
    assert.match(html, /\$19\.00/);
    assert.match(html, /<label for="cardnumber">Card number<\/label>/);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!app\.example)[a-z]/);
    assert.match(
      page.headers.get("content-security-policy")!,
      /^default-src 'none'; style-src 'sha256-[^']+'; img-src 'none'; form-action 'self' https:\/\/app\.example;/,
    );

    const badMonth = await payForm(session.url!, { ...goodCard, exp: "13 / 34" });
    assert.match(await badMonth.text(), /aria-invalid="true" aria-describedby="form-error" id="exp"|id="exp"[^>]*aria-invalid="true"/);
    const declined = await payForm(session.url!, { ...goodCard, cardnumber: TEST_CARDS.declined });
    assert.equal(declined.status, 402);
    assert.match(await declined.text(), /role="alert">Your card was declined\.</);
    assert.equal((await stripe.checkout.sessions.retrieve(session.id)).status, "open");

    const paid = await payForm(session.url!, goodCard);
    assert.equal(paid.status, 303);
    assert.equal(paid.headers.get("location"), `https://app.example/paid?session=${session.id}`);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent", "line_items"] });
    assert.deepEqual([done.status, done.payment_status, done.client_reference_id, done.metadata], ["complete", "paid", "mem_42", { plan: "plan_1" }]);
    assert.match(done.customer as string, /^cus_/);
    const intent = done.payment_intent as Stripe.PaymentIntent;
    assert.deepEqual([intent.status, intent.amount], ["succeeded", 1900]);
    assert.equal(done.line_items!.data[0]!.price!.id, price.id);
    const charge = await stripe.charges.retrieve(intent.latest_charge as string);
    assert.equal(charge.paid, true);
    assert.equal((await fetch(session.url!)).status, 410);

    await twin.settled();
    const completed = hooks.events().find((e) => e.type === "checkout.session.completed")!;
    assert.equal((completed.data.object as Stripe.Checkout.Session).id, session.id);
    assert.equal(completed.account, undefined);
    assert.deepEqual((await stripe.events.retrieve(completed.id)).type, "checkout.session.completed");
  });

  it("starts a subscription: the first invoice is paid, the period is a month, subscription_data's metadata is on it", async () => {
    const hooks = await receiver();
    const price = await monthlyPrice(500);
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: "https://app.example/ok",
      subscription_data: { metadata: { member: "mem_7" } },
    });
    assert.equal(await twin.completeCheckout(session.id, { email: "sub@example.com" }), "https://app.example/ok");
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["subscription"] });
    assert.equal(done.payment_status, "paid");
    const subscription = done.subscription as Stripe.Subscription;
    assert.match(subscription.id, /^sub_/);
    assert.deepEqual([subscription.status, subscription.metadata], ["active", { member: "mem_7" }]);
    const item = subscription.items.data[0]!;
    assert.equal(item.price.id, price.id);
    const start = new Date(item.current_period_start * 1000);
    const end = new Date(item.current_period_end * 1000);
    assert.equal((end.getUTCMonth() - start.getUTCMonth() + 12) % 12, 1);
    const invoice = await stripe.invoices.retrieve(subscription.latest_invoice as string);
    assert.deepEqual([invoice.status, invoice.amount_paid, invoice.billing_reason], ["paid", 500, "subscription_create"]);
    assert.equal(invoice.parent?.subscription_details?.subscription, subscription.id);
    await twin.settled();
    assert.deepEqual(
      hooks.types().filter((t) => ["customer.subscription.created", "invoice.paid", "checkout.session.completed"].includes(t)),
      ["customer.subscription.created", "invoice.paid", "checkout.session.completed"],
    );
  });

  it("starts a trial without a charge: trialing, no_payment_required", async () => {
    const price = await monthlyPrice(500);
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: "https://app.example/ok",
      subscription_data: { trial_period_days: 7 },
    });
    const html = await (await fetch(session.url!)).text();
    assert.match(html, /7 days free, then \$5\.00 per month/);
    await twin.completeCheckout(session.id);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    assert.equal(done.payment_status, "no_payment_required");
    const subscription = await stripe.subscriptions.retrieve(done.subscription as string);
    assert.equal(subscription.status, "trialing");
    assert.equal(subscription.trial_end! - subscription.trial_start!, 7 * DAY);
    assert.equal((await stripe.charges.list()).data.length, 0);
  });

  it("expires an open session, and refuses prices that do not fit the mode", async () => {
    const once = await oneTimePrice();
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: once.id, quantity: 2 }],
      success_url: "https://app.example/ok",
    });
    assert.equal(session.amount_total, 3800);
    const expired = await stripe.checkout.sessions.expire(session.id);
    assert.equal(expired.status, "expired");
    assert.equal((await fetch(`${twin.url}/c/pay/${session.id}`)).status, 410);
    assert.equal((await errorOf(stripe.checkout.sessions.expire(session.id))).statusCode, 400);
    const monthly = await monthlyPrice();
    const wrongMode = await errorOf(stripe.checkout.sessions.create({ mode: "payment", line_items: [{ price: monthly.id, quantity: 1 }] }));
    assert.match(wrongMode.message, /recurring price/);
    const noSuchPrice = await errorOf(stripe.checkout.sessions.create({ mode: "subscription", line_items: [{ price: "price_nope", quantity: 1 }] }));
    assert.deepEqual([noSuchPrice.statusCode, noSuchPrice.param], [404, "line_items[0][price]"]);
  });

  it("runs a connected account's checkout with Stripe-Account, and its events carry the account", async () => {
    const hooks = await receiver(true);
    const platformHooks = await receiver(false);
    const account = await stripe.accounts.create({ type: "standard" });
    const price = await monthlyPrice(900, { stripeAccount: account.id });
    const session = await stripe.checkout.sessions.create(
      { mode: "subscription", line_items: [{ price: price.id, quantity: 1 }], success_url: "https://app.example/ok" },
      { stripeAccount: account.id },
    );
    await payForm(session.url!, { ...goodCard, email: "connect@example.com" });
    await twin.settled();
    const events = hooks.events();
    assert.ok(events.length > 0);
    assert.ok(events.every((e) => e.account === account.id));
    assert.ok(events.some((e) => e.type === "checkout.session.completed"));
    assert.deepEqual(platformHooks.types(), []);
    assert.equal((await stripe.checkout.sessions.retrieve(session.id, {}, { stripeAccount: account.id })).status, "complete");
  });
});

describe("Stripe twin: webhooks and events", () => {
  it("signs each delivery as Stripe does (constructEvent accepts it, refuses it under another secret or altered)", async () => {
    const hooks = await receiver();
    const other = await stripe.webhookEndpoints.create({ url: "http://127.0.0.1:9/unused", enabled_events: ["invoice.paid"] });
    assert.match(other.secret!, /^whsec_/);
    assert.equal((await stripe.webhookEndpoints.retrieve(other.id)).secret, undefined);
    await stripe.customers.create({ email: "x@example.com" });
    await twin.settled();
    const delivery = twin.deliveries.find((d) => d.type === "customer.created")!;
    assert.equal(delivery.status, 200);
    assert.equal(twin.deliveries.filter((d) => d.endpoint === other.id).length, 0);
    const [event] = hooks.events();
    assert.equal(event!.type, "customer.created");
    assert.match(event!.id, /^evt_/);
    assert.equal(event!.object, "event");
    const header = `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`;
    assert.throws(() => stripe.webhooks.constructEvent(JSON.stringify(event), header, hooks.secret), Stripe.errors.StripeSignatureVerificationError);
    const listed = await stripe.events.list({ type: "customer.created" });
    assert.deepEqual(
      listed.data.map((e) => e.id),
      [event!.id],
    );
  });
});

describe("Stripe twin: time", () => {
  async function subscribe(options: { card?: string; trialDays?: number; customer?: string } = {}) {
    const price = await monthlyPrice(500);
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: "https://app.example/ok",
      ...(options.customer ? { customer: options.customer } : {}),
      ...(options.trialDays ? { subscription_data: { trial_period_days: options.trialDays } } : {}),
    });
    await twin.completeCheckout(session.id, { card: options.card });
    return (await stripe.checkout.sessions.retrieve(session.id)).subscription as string;
  }

  it("renews at each period end: a new paid invoice and the period moves on (advanceClock)", async () => {
    const hooks = await receiver();
    const id = await subscribe();
    const first = await stripe.subscriptions.retrieve(id);
    await twin.advanceClock(32 * DAY);
    const renewed = await stripe.subscriptions.retrieve(id);
    assert.equal(renewed.status, "active");
    assert.equal(renewed.items.data[0]!.current_period_start, first.items.data[0]!.current_period_end);
    assert.notEqual(renewed.latest_invoice, first.latest_invoice);
    const invoice = await stripe.invoices.retrieve(renewed.latest_invoice as string);
    assert.deepEqual([invoice.status, invoice.billing_reason, invoice.amount_paid], ["paid", "subscription_cycle", 500]);
    assert.equal(hooks.types().filter((t) => t === "invoice.paid").length, 2);
    const update = hooks.events().find((e) => e.type === "customer.subscription.updated")!;
    assert.ok(update.data.previous_attributes && "items" in update.data.previous_attributes);
  });

  it("a failed renewal makes the subscription past_due, a retry 3 days later that pays makes it active again", async () => {
    const hooks = await receiver();
    const id = await subscribe();
    twin.failNextPayment(id);
    await twin.advanceClock(31 * DAY);
    const pastDue = await stripe.subscriptions.retrieve(id);
    assert.equal(pastDue.status, "past_due");
    const invoice = await stripe.invoices.retrieve(pastDue.latest_invoice as string);
    assert.deepEqual([invoice.status, invoice.attempt_count], ["open", 1]);
    assert.equal(invoice.next_payment_attempt, invoice.created + 3 * DAY);
    assert.ok(hooks.types().includes("invoice.payment_failed"));
    await twin.advanceClock(3 * DAY);
    assert.equal((await stripe.subscriptions.retrieve(id)).status, "active");
    assert.equal((await stripe.invoices.retrieve(invoice.id)).status, "paid");
  });

  it("a trial ends into the first charge; on a card that cannot be charged, retries end in cancellation (customer.subscription.deleted)", async () => {
    const hooks = await receiver();
    const paying = await subscribe({ trialDays: 3 });
    const failing = await subscribe({ trialDays: 3, card: TEST_CARDS.chargeFails });
    await twin.advanceClock(3 * DAY + 60);
    const converted = await stripe.subscriptions.retrieve(paying);
    assert.equal(converted.status, "active");
    assert.equal((await stripe.invoices.retrieve(converted.latest_invoice as string)).amount_paid, 500);
    assert.equal((await stripe.subscriptions.retrieve(failing)).status, "past_due");
    await twin.advanceClock(3 * DAY);
    await twin.advanceClock(2 * DAY);
    assert.equal((await stripe.subscriptions.retrieve(failing)).status, "past_due");
    await twin.advanceClock(2 * DAY);
    const canceled = await stripe.subscriptions.retrieve(failing);
    assert.equal(canceled.status, "canceled");
    assert.equal(canceled.cancellation_details?.reason, "payment_failed");
    const deleted = hooks.events().filter((e) => e.type === "customer.subscription.deleted");
    assert.deepEqual(
      deleted.map((e) => (e.data.object as Stripe.Subscription).id),
      [failing],
    );
    assert.equal(hooks.types().filter((t) => t === "invoice.payment_failed").length, 4);
  });

  it("test clocks advance only their customers' subscriptions", async () => {
    const now = Math.floor(Date.now() / 1000);
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: now });
    const customer = await stripe.customers.create({ email: "clock@example.com", test_clock: clock.id });
    const onClock = await subscribe({ customer: customer.id });
    const offClock = await subscribe();
    const advancing = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: now + 40 * DAY });
    assert.equal(advancing.status, "advancing");
    const tooFar = await errorOf(stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: now + 3 * 366 * DAY }));
    assert.equal(tooFar.param, "frozen_time");
    assert.equal((await stripe.testHelpers.testClocks.retrieve(clock.id)).status, "ready");
    const moved = await stripe.subscriptions.retrieve(onClock);
    assert.equal((await stripe.invoices.list({ customer: customer.id })).data.length, 2);
    assert.ok(moved.items.data[0]!.current_period_end > now + 40 * DAY);
    const still = await stripe.subscriptions.retrieve(offClock);
    assert.ok(still.items.data[0]!.current_period_end < now + 32 * DAY);
  });
});

describe("Stripe twin: money movements", () => {
  async function paidCharge(card: string = TEST_CARDS.success) {
    const price = await oneTimePrice(2500);
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: "https://app.example/ok",
    });
    await twin.completeCheckout(session.id, { card });
    const intent = await stripe.paymentIntents.retrieve((await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string);
    return { intent, charge: intent.latest_charge as string };
  }

  it("settles a paid charge in a balance transaction with Stripe's card fee (2.9% + 30), retrievable and expandable", async () => {
    const { charge } = await paidCharge();
    const expanded = await stripe.charges.retrieve(charge, { expand: ["balance_transaction"] });
    const txn = expanded.balance_transaction as Stripe.BalanceTransaction;
    assert.match(txn.id, /^txn_/);
    assert.deepEqual([txn.amount, txn.fee, txn.net, txn.currency, txn.source], [2500, 103, 2397, "usd", charge]);
    assert.deepEqual(await stripe.balanceTransactions.retrieve(txn.id), txn);
  });

  it("refunds part then the rest of a charge (charge.refunded), and refuses more", async () => {
    const hooks = await receiver();
    const { intent, charge } = await paidCharge();
    const partial = await stripe.refunds.create({ charge, amount: 1000 });
    assert.match(partial.id, /^re_/);
    assert.deepEqual([partial.status, partial.amount, partial.payment_intent], ["succeeded", 1000, intent.id]);
    const rest = await stripe.refunds.create({ payment_intent: intent.id });
    assert.equal(rest.amount, 1500);
    const refunded = await stripe.charges.retrieve(charge);
    assert.deepEqual([refunded.refunded, refunded.amount_refunded], [true, 2500]);
    const again = await errorOf(stripe.refunds.create({ charge }));
    assert.equal(again.code, "charge_already_refunded");
    const unknown = await errorOf(stripe.refunds.create({ payment_intent: "pi_missing" }));
    assert.deepEqual([unknown.statusCode, unknown.message, unknown.param], [404, "No such payment_intent: 'pi_missing'", "payment_intent"]);
    await twin.settled();
    const events = hooks.events().filter((e) => e.type === "charge.refunded");
    assert.deepEqual(
      events.map((e) => (e.data.object as Stripe.Charge).amount_refunded),
      [1000, 2500],
    );
  });

  it("opens a dispute by control, and for the 0259 test card (charge.dispute.created)", async () => {
    const hooks = await receiver();
    const { charge } = await paidCharge();
    const dispute = await twin.openDispute(charge);
    assert.match(dispute.id, /^du_/);
    await paidCharge(TEST_CARDS.disputed);
    await twin.settled();
    const disputes = hooks.events().filter((e) => e.type === "charge.dispute.created");
    assert.equal(disputes.length, 2);
    assert.equal((disputes[0]!.data.object as Stripe.Dispute).charge, charge);
    assert.equal((await stripe.charges.retrieve(charge)).disputed, true);
  });

  it("decides disputes: winning or losing evidence (Stripe's test texts), accepting, the control; a closed one stays closed", async () => {
    const hooks = await receiver();
    const opened = async () => twin.openDispute((await paidCharge()).charge);
    const won = await stripe.disputes.update((await opened()).id, { evidence: { uncategorized_text: "winning_evidence" } });
    const lost = await stripe.disputes.update((await opened()).id, { evidence: { uncategorized_text: "losing_evidence" } });
    const accepted = await stripe.disputes.close((await opened()).id);
    const kept = await stripe.disputes.update((await opened()).id, { evidence: { uncategorized_text: "a receipt" } });
    const byControl = await twin.closeDispute((await opened()).id, "won");
    assert.deepEqual([won.status, lost.status, accepted.status, kept.status, byControl.status], ["won", "lost", "lost", "needs_response", "won"]);
    const again = await errorOf(stripe.disputes.close(won.id));
    assert.match(again.message, /already closed/);
    await twin.settled();
    const closed = hooks.events().filter((e) => e.type === "charge.dispute.closed");
    assert.deepEqual(
      closed.map((e) => [(e.data.object as Stripe.Dispute).id, (e.data.object as Stripe.Dispute).status]),
      [
        [won.id, "won"],
        [lost.id, "lost"],
        [accepted.id, "lost"],
        [byControl.id, "won"],
      ],
    );
  });

  it("applies a coupon and a promotion code at checkout (amount_total), and a repeating coupon to later invoices", async () => {
    const price = await monthlyPrice(1000);
    const coupon = await stripe.coupons.create({ percent_off: 25, duration: "repeating", duration_in_months: 2 });
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: price.id, quantity: 1 }],
      discounts: [{ coupon: coupon.id }],
      success_url: "https://app.example/ok",
    });
    assert.deepEqual([session.amount_subtotal, session.amount_total, session.total_details?.amount_discount], [1000, 750, 250]);
    await twin.completeCheckout(session.id);
    const sub = (await stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    const amounts = async () =>
      (await stripe.invoices.list({ customer: (await stripe.subscriptions.retrieve(sub)).customer as string })).data
        .map((i) => i.amount_paid)
        .reverse();
    await twin.advanceClock(32 * DAY);
    await twin.advanceClock(31 * DAY);
    assert.deepEqual(await amounts(), [750, 750, 1000]);

    const fixed = await stripe.coupons.create({ amount_off: 300, currency: "usd", duration: "once" });
    const code = await stripe.promotionCodes.create({ promotion: { type: "coupon", coupon: fixed.id }, code: "WELCOME" });
    const once = await oneTimePrice(1900);
    const withCodes = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: once.id, quantity: 1 }],
      allow_promotion_codes: true,
      success_url: "https://app.example/ok",
    });
    const wrong = await payForm(withCodes.url!, { ...goodCard, email: "p@example.com", promotion_code: "NOPE" });
    assert.match(await wrong.text(), /This code is invalid\./);
    const paid = await payForm(withCodes.url!, { ...goodCard, email: "p@example.com", promotion_code: "WELCOME" });
    assert.equal(paid.status, 303);
    const done = await stripe.checkout.sessions.retrieve(withCodes.id);
    assert.equal(done.amount_total, 1600);
    assert.equal((await stripe.paymentIntents.retrieve(done.payment_intent as string)).amount, 1600);
    assert.equal((await stripe.promotionCodes.retrieve(code.id)).times_redeemed, 1);
  });

  it("cancels at period end (customer.subscription.updated, then deleted at the end) or at once with DELETE", async () => {
    const hooks = await receiver();
    const price = await monthlyPrice(500);
    const start = async () => {
      const s = await stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: price.id, quantity: 1 }],
        success_url: "https://app.example/ok",
      });
      await twin.completeCheckout(s.id);
      return (await stripe.checkout.sessions.retrieve(s.id)).subscription as string;
    };
    const later = await start();
    const now = await start();
    const scheduled = await stripe.subscriptions.update(later, { cancel_at_period_end: true });
    assert.equal(scheduled.cancel_at_period_end, true);
    assert.equal(scheduled.cancel_at, scheduled.items.data[0]!.current_period_end);
    assert.equal(scheduled.status, "active");
    const canceled = await stripe.subscriptions.cancel(now);
    assert.equal(canceled.status, "canceled");
    await twin.advanceClock(32 * DAY);
    const ended = await stripe.subscriptions.retrieve(later);
    assert.equal(ended.status, "canceled");
    assert.equal((await stripe.invoices.list({ customer: ended.customer as string })).data.length, 1);
    const deleted = hooks
      .events()
      .filter((e) => e.type === "customer.subscription.deleted")
      .map((e) => (e.data.object as Stripe.Subscription).id);
    assert.deepEqual(deleted, [now, later]);
    assert.ok(hooks.types().includes("customer.subscription.updated"));
  });
});
