// The Telegram Stars payment provider against the fake Telegram: refusals, checkouts (a link, an
// invoice in the chat), a purchase through a stand-in bot webhook that answers pre-checkout queries
// with decidePreCheckout and reads payments with parseStarsUpdate, renewals, cancellation, refunds,
// reading a subscription back from the star ledger, and the driver's getStarTransactions.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { Logger } from "pino";
import type { AddressInfo } from "node:net";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { telegramDriver } from "../../../src/modules/connectors/drivers/telegram.ts";
import type { PlatformPayments } from "../../../src/modules/connectors/drivers/driver.ts";
import type { CheckoutRequest, ConnectedMethod, PlanPrice, ProviderEvent } from "../../../src/modules/payments/provider.ts";
import { starsProvider, starsRefusal } from "../../../src/modules/payments/stars/provider.ts";
import { parseStarsUpdate } from "../../../src/modules/payments/stars/updates.ts";
import { answerPreCheckout, decidePreCheckout, type PreCheckoutCheck } from "../../../src/modules/payments/stars/pre-checkout.ts";
import { parseStarsPaymentId, parseStarsSubscriptionId, starsPaymentId, starsSubscriptionId } from "../../../src/modules/payments/stars/ids.ts";

const TOKEN = `123456789:${"x".repeat(35)}`;
const BOT_ID = 123456789;
const monthly: PlanPrice = { amountMinor: 250, currency: "XTR", cycle: "month", cycleCount: 1, trialDays: 0 };
const lifetime: PlanPrice = { amountMinor: 900, currency: "XTR", cycle: "lifetime", cycleCount: 1, trialDays: 0 };
const method: ConnectedMethod = { paymentMethodId: "pm-1", account: "installation-1", mode: "test" };
const user = { id: 5550001, first_name: "Ada", username: "ada" };

describe("Telegram Stars provider: what Stars can sell", () => {
  it("sells XTR prices monthly (30 days) up to 10000 stars and lifetime; refuses the rest with the description's codes", () => {
    assert.equal(starsRefusal(monthly), null);
    assert.equal(starsRefusal({ ...monthly, amountMinor: 10000 }), null);
    assert.equal(starsRefusal({ ...monthly, amountMinor: 1 }), null);
    assert.equal(starsRefusal(lifetime), null);
    assert.equal(starsRefusal({ ...lifetime, amountMinor: 25000 }), null);
    const code = (price: Partial<PlanPrice>) => starsRefusal({ ...monthly, ...price })?.code;
    assert.equal(code({ currency: "USD" }), "PLAN_CURRENCY_MISMATCH");
    assert.equal(code({ currency: "USD", cycle: "lifetime" }), "PLAN_CURRENCY_MISMATCH");
    for (const price of [
      { cycle: "year" },
      { cycle: "week" },
      { cycle: "day" },
      { cycleCount: 3 },
      { trialDays: 7 },
      { cycle: "lifetime", trialDays: 1 },
      { amountMinor: 10001 },
      { amountMinor: 0 },
      { amountMinor: 2.5 },
      { cycle: "lifetime", amountMinor: 0 },
    ] as Partial<PlanPrice>[])
      assert.equal(code(price), "PLAN_PROVIDER_UNSUPPORTED", JSON.stringify(price));
    assert.match(starsRefusal({ ...monthly, cycleCount: 3 })!.message, /only every 30 days.*every 3 month/);
    assert.match(starsRefusal({ ...monthly, amountMinor: 10001 })!.message, /at most 10000 stars.*costs 10001/);
    assert.match(starsRefusal({ ...monthly, trialDays: 7 })!.message, /no free trials/);
    assert.match(starsRefusal({ ...monthly, currency: "EUR" })!.message, /priced in EUR/);
  });
});

describe("Telegram Stars ids", () => {
  it("carry the member's user id before the first colon; the rest may hold colons", () => {
    assert.equal(starsPaymentId(5550001, "stxABC"), "5550001:stxABC");
    assert.deepEqual(parseStarsPaymentId("5550001:stxABC"), { userId: "5550001", chargeId: "stxABC" });
    assert.equal(starsSubscriptionId("42", "co:1:x"), "42:co:1:x");
    assert.deepEqual(parseStarsSubscriptionId("42:co:1:x"), { userId: "42", payload: "co:1:x" });
    for (const bad of ["", "stxABC", ":stx", "42:", "-4:stx", "04:stx", "abc:stx", "12345678901234567:stx"]) {
      assert.throws(() => parseStarsPaymentId(bad), /is not a Telegram Stars payment id/, bad);
      assert.throws(() => parseStarsSubscriptionId(bad), /is not a Telegram Stars subscription id/, bad);
    }
  });
});

describe("parseStarsUpdate", () => {
  const message = (extra: Record<string, unknown>) => ({
    update_id: 1,
    message: { message_id: 7, date: 1_800_000_000, from: { id: 42, is_bot: false, first_name: "A" }, chat: { id: 42, type: "private" }, ...extra },
  });
  const paid = {
    currency: "XTR",
    total_amount: 300,
    invoice_payload: "co-1",
    telegram_payment_charge_id: "stx1",
    provider_payment_charge_id: "42_1",
  };

  it("a one-off payment completes the checkout (no subscription, no period)", () => {
    assert.deepEqual(parseStarsUpdate(message({ successful_payment: paid }), "inst-1"), [
      {
        kind: "checkout.completed",
        eventId: "telegram:stx1",
        occurredAt: new Date(1_800_000_000_000),
        source: "inst-1",
        reference: "co-1",
        providerCheckoutId: null,
        providerSubscriptionId: null,
        providerCustomerId: "42",
        payment: { providerPaymentId: "42:stx1", amountMinor: 300, currency: "XTR", feeMinor: null, paidAt: new Date(1_800_000_000_000) },
        trialEndsAt: null,
        periodEndsAt: null,
      },
    ]);
  });

  it("a refunded_payment is payment.refunded, named by the charge", () => {
    assert.deepEqual(
      parseStarsUpdate(
        message({ refunded_payment: { currency: "XTR", total_amount: 300, invoice_payload: "co-1", telegram_payment_charge_id: "stx1" } }),
        "inst-1",
      ),
      [
        {
          kind: "payment.refunded",
          eventId: "telegram-refund:stx1",
          occurredAt: new Date(1_800_000_000_000),
          source: "inst-1",
          providerPaymentId: "42:stx1",
          refundId: "42:stx1",
          amountMinor: 300,
          currency: "XTR",
        },
      ],
    );
  });

  it("anything else, or a payment missing its fields, is no event", () => {
    assert.deepEqual(parseStarsUpdate(message({ text: "hello" }), "inst-1"), []);
    assert.deepEqual(parseStarsUpdate({ update_id: 2, pre_checkout_query: { id: "1" } }, "inst-1"), []);
    assert.deepEqual(parseStarsUpdate({ update_id: 3, edited_message: message({ successful_payment: paid }).message }, "inst-1"), []);
    assert.deepEqual(parseStarsUpdate(null, "inst-1"), []);
    assert.deepEqual(parseStarsUpdate("x", "inst-1"), []);
    assert.deepEqual(parseStarsUpdate(message({ successful_payment: { ...paid, telegram_payment_charge_id: undefined } }), "inst-1"), []);
    assert.deepEqual(parseStarsUpdate(message({ successful_payment: { ...paid, total_amount: "300" } }), "inst-1"), []);
    // A renewal without its new expiration date cannot say how far it extends the subscription.
    assert.deepEqual(parseStarsUpdate(message({ successful_payment: { ...paid, is_recurring: true } }), "inst-1"), []);
  });
});

describe("decidePreCheckout", () => {
  const query = { id: "q1", from: { id: 42 }, currency: "XTR", total_amount: 250, invoice_payload: "co-1" };
  it("answers ok when the check accepts, and the check's reason when it refuses; the check sees the payload and the member", async () => {
    const seen: string[][] = [];
    assert.deepEqual(await decidePreCheckout(query, async (q) => (seen.push([q.invoice_payload, String(q.from.id)]), { ok: true as const })), {
      ok: true,
    });
    assert.deepEqual(await decidePreCheckout(query, async () => ({ ok: false, reason: "You already have this plan." })), {
      ok: false,
      errorMessage: "You already have this plan.",
    });
    assert.deepEqual(seen, [["co-1", "42"]]);
    // Telegram refuses an empty error_message.
    assert.equal(
      ((await decidePreCheckout(query, async () => ({ ok: false, reason: " " }))) as { errorMessage: string }).errorMessage.length > 0,
      true,
    );
    assert.deepEqual(await decidePreCheckout({ ...query, currency: "USD" }, async () => ({ ok: true })), {
      ok: false,
      errorMessage: "This bot takes payments in Telegram Stars only.",
    });
  });

  it("answerPreCheckout declines when the check throws or does not finish in time, and always answers", async () => {
    const sent: unknown[] = [];
    const payments = { answerPreCheckoutQuery: async (id: string, answer: unknown) => void sent.push([id, answer]) };
    const warned: unknown[] = [];
    const logger = { warn: (fields: unknown, message: string) => void warned.push([fields, message]) } as unknown as Logger;
    const failing = await answerPreCheckout(
      payments,
      query,
      async () => {
        throw new Error("database down");
      },
      { logger },
    );
    const stuck = await answerPreCheckout(payments, query, () => new Promise(() => undefined), { decideWithinMs: 5 });
    assert.deepEqual(warned, [[{ pre_checkout_query_id: "q1", err: "database down" }, "pre-checkout check failed; the payment was declined"]]);
    for (const answer of [failing, stuck]) assert.match((answer as { ok: false; errorMessage: string }).errorMessage, /Nothing was charged/);
    assert.deepEqual(sent, [
      ["q1", failing],
      ["q1", stuck],
    ]);
  });
});

describe("Telegram Stars provider against the fake Telegram", () => {
  let fake: FakePlatform;
  beforeEach(async () => {
    fake = await startFakePlatform();
    fake.addTelegramBot(TOKEN, { id: BOT_ID, username: "owls_bot" });
  });
  afterEach(() => fake.close());
  const session = () => telegramDriver({ apiUrl: fake.url, timeoutMs: 2_000 }).session({ fields: { bot_token: TOKEN }, accountId: String(BOT_ID) });
  const payments = () => session().payments as PlatformPayments;
  const sessionsAsked: ConnectedMethod[] = [];
  const provider = starsProvider(async (m) => (sessionsAsked.push(m), session()));
  const request = (over: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
    reference: "co-0001",
    planName: "Night Owls",
    price: monthly,
    ...over,
  });
  let receiver: Awaited<ReturnType<typeof bot>> | null = null;
  afterEach(async () => {
    await receiver?.close();
    receiver = null;
  });

  /** The bot's webhook on loopback: answers pre-checkout queries with `check` and turns every other update into provider events. */
  async function bot(check: PreCheckoutCheck = async () => ({ ok: true })) {
    const events: ProviderEvent[] = [];
    const server = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const update = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        if (update.pre_checkout_query) await answerPreCheckout(payments(), update.pre_checkout_query, check);
        else events.push(...parseStarsUpdate(update, "inst-1"));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    await session().deliverUpdates!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/updates`, secret: "hook-secret" });
    return { events, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  }

  const ledger = async () => payments().transactions({ offset: 0, limit: 100 });

  /** A member subscribes monthly through a link; answers the checkout.completed event. */
  async function subscribe(reference = "co-0001") {
    receiver ??= await bot();
    const { url } = await provider.startCheckout(method, request({ reference }));
    const outcome = await fake.payInvoice({ invoice: url!, user });
    assert.equal(outcome.status, "paid");
    const completed = receiver.events.at(-1)!;
    assert.equal(completed.kind, "checkout.completed");
    return completed as Extract<ProviderEvent, { kind: "checkout.completed" }>;
  }

  it("a recurring plan's checkout is a 30-day subscription link; a lifetime plan is an invoice in the chat, or a link without a period", async () => {
    const recurring = await provider.startCheckout(method, request());
    assert.match(recurring.url!, /^https:\/\/t\.me\/\$/);
    assert.equal(recurring.providerCheckoutId, null);
    assert.equal(recurring.expiresAt, null);
    assert.deepEqual(await provider.startCheckout(method, request({ reference: "co-2", price: lifetime, chatId: "5550001" })), {
      url: null,
      providerCheckoutId: null,
      expiresAt: null,
    });
    assert.match(
      (await provider.startCheckout(method, request({ reference: "co-3", price: lifetime, planName: "A".repeat(40) }))).url!,
      /^https:\/\/t\.me\/\$/,
    );
    const invoice = { provider_token: "", currency: "XTR" };
    assert.deepEqual(
      fake.calls.map((c) => [c.name, c.params]),
      [
        [
          "createInvoiceLink",
          {
            title: "Night Owls",
            description: "Night Owls: renews every 30 days until cancelled",
            payload: "co-0001",
            ...invoice,
            prices: [{ label: "Night Owls", amount: 250 }],
            subscription_period: 2592000,
          },
        ],
        [
          "sendInvoice",
          {
            chat_id: "5550001",
            title: "Night Owls",
            description: "Night Owls: one payment, access for life",
            payload: "co-2",
            ...invoice,
            prices: [{ label: "Night Owls", amount: 900 }],
          },
        ],
        [
          "createInvoiceLink",
          {
            // Telegram's title is at most 32 characters.
            title: "A".repeat(32),
            description: `${"A".repeat(40)}: one payment, access for life`,
            payload: "co-3",
            ...invoice,
            prices: [{ label: "A".repeat(32), amount: 900 }],
          },
        ],
      ],
    );
    assert.deepEqual(sessionsAsked.at(-1), method);
  });

  it("refuses a reference that does not fit Telegram's 128-byte payload, and a price Stars cannot sell, before calling Telegram", async () => {
    await assert.rejects(provider.startCheckout(method, request({ reference: "é".repeat(65) })), /1-128 bytes; this one has 130/);
    await assert.rejects(provider.startCheckout(method, request({ reference: "" })), /1-128 bytes; this one has 0/);
    await assert.rejects(provider.startCheckout(method, request({ price: { ...monthly, currency: "USD" } })), /^Error: PLAN_CURRENCY_MISMATCH/);
    assert.deepEqual(fake.calls, []);
    // 128 bytes fit.
    assert.match((await provider.startCheckout(method, request({ reference: "é".repeat(64) }))).url!, /^https:\/\/t\.me\/\$/);
  });

  it("a member buys a monthly plan: the pre-checkout check passes, Telegram charges, and the payment is a normalized checkout.completed", async () => {
    const checked: string[][] = [];
    receiver = await bot(async (q) => (checked.push([q.invoice_payload, String(q.from.id)]), { ok: true as const }));
    const before = Math.floor(Date.now() / 1000);
    const completed = await subscribe();
    const after = Math.floor(Date.now() / 1000);
    assert.deepEqual(checked, [["co-0001", String(user.id)]]);
    const [tx] = await ledger();
    const paidAt = completed.occurredAt;
    assert.ok(paidAt.getTime() >= before * 1000 && paidAt.getTime() <= after * 1000);
    assert.deepEqual(completed, {
      kind: "checkout.completed",
      eventId: `telegram:${tx!.id}`,
      occurredAt: paidAt,
      source: "inst-1",
      reference: "co-0001",
      providerCheckoutId: null,
      providerSubscriptionId: `${user.id}:co-0001`,
      providerCustomerId: String(user.id),
      payment: { providerPaymentId: `${user.id}:${tx!.id}`, amountMinor: 250, currency: "XTR", feeMinor: null, paidAt },
      trialEndsAt: null,
      periodEndsAt: completed.periodEndsAt,
    });
    const periodEnd = completed.periodEndsAt!.getTime() / 1000;
    assert.ok(periodEnd >= before + 2592000 && periodEnd <= after + 2592000);
    assert.deepEqual(await provider.readSubscription(method, completed.providerSubscriptionId!), {
      providerSubscriptionId: completed.providerSubscriptionId,
      status: "active",
      cancelAtPeriodEnd: false,
      periodEndsAt: new Date((tx!.date + 2592000) * 1000),
    });
  });

  it("a lifetime plan bought from an invoice in the chat completes with no subscription and no period", async () => {
    receiver = await bot();
    await provider.startCheckout(method, request({ reference: "co-life", price: lifetime, chatId: String(user.id) }));
    const outcome = await fake.payInvoice({ invoice: { chat_id: String(user.id), message_id: 1 }, user });
    assert.equal(outcome.status, "paid");
    const [completed] = receiver.events as Extract<ProviderEvent, { kind: "checkout.completed" }>[];
    assert.equal(completed!.reference, "co-life");
    assert.equal(completed!.providerSubscriptionId, null);
    assert.equal(completed!.periodEndsAt, null);
    assert.equal(completed!.payment!.amountMinor, 900);
  });

  it("a pre-checkout the check refuses charges nothing and tells the member why", async () => {
    receiver = await bot(async () => ({ ok: false, reason: "You already have an active subscription here." }));
    const { url } = await provider.startCheckout(method, request());
    assert.deepEqual(await fake.payInvoice({ invoice: url!, user }), {
      status: "declined",
      error_message: "You already have an active subscription here.",
    });
    assert.deepEqual(await ledger(), []);
    assert.deepEqual(receiver.events, []);
  });

  it("a renewal is subscription.renewed on the same subscription id, with the new period end", async () => {
    const completed = await subscribe();
    const first = parseStarsPaymentId(completed.payment!.providerPaymentId).chargeId;
    assert.equal((await fake.renewSubscription({ telegram_payment_charge_id: first })).status, "paid");
    const renewed = receiver!.events.at(-1)!;
    assert.equal(renewed.kind, "subscription.renewed");
    const r = renewed as Extract<ProviderEvent, { kind: "subscription.renewed" }>;
    const renewalCharge = (await ledger())[1]!.id;
    assert.deepEqual(r, {
      kind: "subscription.renewed",
      eventId: `telegram:${renewalCharge}`,
      occurredAt: r.occurredAt,
      source: "inst-1",
      providerSubscriptionId: completed.providerSubscriptionId,
      payment: { providerPaymentId: `${user.id}:${renewalCharge}`, amountMinor: 250, currency: "XTR", feeMinor: null, paidAt: r.occurredAt },
      periodEndsAt: new Date(completed.periodEndsAt!.getTime() + 2592000 * 1000),
    });
    // The ledger read back agrees with Telegram's expiration date: one period per payment from the first.
    assert.deepEqual((await provider.readSubscription(method, completed.providerSubscriptionId!)).periodEndsAt, r.periodEndsAt);
  });

  it("cancelAtPeriodEnd stops the next renewal: Telegram charges nothing more", async () => {
    const completed = await subscribe();
    await provider.cancelAtPeriodEnd(method, completed.providerSubscriptionId!);
    const chargeId = parseStarsPaymentId(completed.payment!.providerPaymentId).chargeId;
    assert.deepEqual(fake.calls.find((c) => c.name === "editUserStarSubscription")!.params, {
      user_id: user.id,
      telegram_payment_charge_id: chargeId,
      is_canceled: true,
    });
    await assert.rejects(fake.renewSubscription({ telegram_payment_charge_id: chargeId }), /canceled/);
    assert.equal((await ledger()).length, 1);
    assert.equal(receiver!.events.length, 1);
    await assert.rejects(provider.cancelAtPeriodEnd(method, `${user.id}:co-unknown`), /has no payment of the Stars subscription/);
    await assert.rejects(provider.cancelAtPeriodEnd(method, "not-an-id"), /is not a Telegram Stars subscription id/);
  });

  it("refunds a payment, and a repeated refund succeeds without a second refund; the refunded subscription reads as ended", async () => {
    const completed = await subscribe();
    await provider.refund(method, completed.payment!.providerPaymentId);
    await provider.refund(method, completed.payment!.providerPaymentId);
    const refunds = fake.calls.filter((c) => c.name === "refundStarPayment");
    assert.equal(refunds.length, 2);
    assert.deepEqual(
      (await ledger()).map((tx) => tx.direction),
      ["in", "out"],
    );
    assert.equal((await provider.readSubscription(method, completed.providerSubscriptionId!)).status, "ended");
    // Another refusal is not swallowed; Telegram has no partial refund.
    await assert.rejects(provider.refund(method, `${user.id}:stxnosuchcharge`), /CHARGE_NOT_FOUND/);
    await assert.rejects(provider.refund(method, completed.payment!.providerPaymentId, 100), /wholly/);
  });

  it("the driver reads the bot's star transactions: payments in, refunds out, with the member, payload and period", async () => {
    const completed = await subscribe();
    const chargeId = parseStarsPaymentId(completed.payment!.providerPaymentId).chargeId;
    await payments().refund(String(user.id), chargeId);
    const [payment, refund] = await ledger();
    assert.deepEqual(payment, {
      id: chargeId,
      direction: "in",
      amount: 250,
      date: payment!.date,
      userId: String(user.id),
      payload: "co-0001",
      subscriptionPeriod: 2592000,
    });
    assert.deepEqual(refund, { ...payment, direction: "out", date: refund!.date, subscriptionPeriod: null });
    assert.deepEqual(await payments().transactions({ offset: 1, limit: 1 }), [refund]);
    assert.deepEqual(fake.calls.filter((c) => c.name === "getStarTransactions").at(-1)!.params, { offset: 1, limit: 1 });
  });
});
