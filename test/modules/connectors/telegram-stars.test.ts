// Telegram Stars end to end on loopback: the Telegram driver's payment calls (invoices, pre-checkout
// answers, refunds, subscription edits) against the fake platform, which validates them as Telegram
// does and, acting as a member, posts pre-checkout queries and payments to a stand-in bot webhook.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakePlatform, type FakePlatform } from "../../../src/simulators/platforms/fake-platform.ts";
import { telegramDriver } from "../../../src/modules/connectors/drivers/telegram.ts";
import { PlatformError, type PlatformPayments } from "../../../src/modules/connectors/drivers/driver.ts";

const TOKEN = `123456789:${"x".repeat(35)}`;

/** Rejects with a refusal carrying Telegram's own description. */
async function refusedWith(promise: Promise<unknown>, description: string) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof PlatformError && err.kind === "refused", String(err));
    assert.equal(err.description, description);
    return true;
  });
}

describe("Telegram Stars: the driver's payment calls against the fake Telegram, which acts as the paying member", () => {
  let fake: FakePlatform;
  beforeEach(async () => {
    fake = await startFakePlatform();
    fake.addTelegramBot(TOKEN, { id: 123456789, username: "owls_bot" });
  });
  afterEach(() => fake.close());
  const telegram = () => telegramDriver({ apiUrl: fake.url, timeoutMs: 2_000 });
  const user = { id: 5550001, first_name: "Ada", username: "ada" };
  const monthly = { title: "Night Owls", description: "Monthly access", payload: "plan:abc", amount: 250, subscriptionPeriod: 2592000 };
  const session = () => telegram().session({ fields: { bot_token: TOKEN }, accountId: "123456789" });
  const payments = () => session().payments as PlatformPayments;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>> | null = null;
  afterEach(() => receiver?.close());

  /** A bot's webhook on loopback: records each update with its secret header and answers pre-checkout queries through the driver. */
  async function webhookReceiver(answer: { ok: true } | { ok: false; errorMessage: string } | "never" = { ok: true }) {
    const updates: { secret: string | undefined; update: any }[] = [];
    const server = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const update = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        updates.push({ secret: req.headers["x-telegram-bot-api-secret-token"] as string | undefined, update });
        if (update.pre_checkout_query && answer !== "never") await payments().answerPreCheckoutQuery(update.pre_checkout_query.id, answer);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/updates`;
    await session().deliverUpdates!({ url, secret: "hook-secret_1" });
    return {
      updates,
      close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    };
  }

  async function rawCall(method: string, params: Record<string, unknown>) {
    const res = await fetch(`${fake.url}/bot${TOKEN}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const transactions = async () => (await rawCall("getStarTransactions", {})).body.result.transactions as any[];

  it("sends a Stars invoice link (XTR, no provider token, one price, 30-day period) and an invoice message", async () => {
    const link = await payments().createInvoiceLink(monthly);
    assert.match(link, /^https:\/\/t\.me\/\$[A-Za-z0-9_-]+$/);
    await payments().sendInvoice("5550001", {
      title: "Lifetime",
      description: "Once",
      payload: "plan:life",
      amount: 900,
      label: "Lifetime access",
    });
    assert.deepEqual(
      fake.calls.map((c) => [c.name, c.params]),
      [
        [
          "createInvoiceLink",
          {
            title: "Night Owls",
            description: "Monthly access",
            payload: "plan:abc",
            provider_token: "",
            currency: "XTR",
            prices: [{ label: "Night Owls", amount: 250 }],
            subscription_period: 2592000,
          },
        ],
        [
          "sendInvoice",
          {
            chat_id: "5550001",
            title: "Lifetime",
            description: "Once",
            payload: "plan:life",
            provider_token: "",
            currency: "XTR",
            prices: [{ label: "Lifetime access", amount: 900 }],
          },
        ],
      ],
    );
  });

  it("refuses what Telegram refuses in a Stars invoice, with Telegram's description", async () => {
    const refused = (invoice: Partial<typeof monthly>, description: string) =>
      refusedWith(payments().createInvoiceLink({ ...monthly, ...invoice }), description);
    await refused({ subscriptionPeriod: 86400 }, "Bad Request: SUBSCRIPTION_PERIOD_INVALID");
    await refused({ amount: 0 }, "Bad Request: CURRENCY_TOTAL_AMOUNT_INVALID");
    await refused({ amount: 2.5 }, "Bad Request: CURRENCY_TOTAL_AMOUNT_INVALID");
    await refused({ amount: 10001 }, "Bad Request: STARS_INVOICE_INVALID");
    await refused({ payload: "" }, "Bad Request: INVOICE_PAYLOAD_INVALID");
    await refused({ payload: "é".repeat(65) }, "Bad Request: INVOICE_PAYLOAD_INVALID");
    await refused({ title: "x".repeat(33) }, "Bad Request: INVOICE_TITLE_INVALID");
    // 128 bytes is the most a payload may have; more than 10000 stars is fine without a period.
    assert.match(await payments().createInvoiceLink({ ...monthly, payload: "é".repeat(64) }), /^https:\/\/t\.me\/\$/);
    await payments().sendInvoice("5550001", { ...monthly, amount: 10001 });
    const base = { title: "t", description: "d", payload: "p", provider_token: "", currency: "XTR", prices: [{ label: "x", amount: 5 }] };
    for (const [params, description] of [
      [{ ...base, currency: "USD" }, "Bad Request: PAYMENT_PROVIDER_INVALID"],
      [{ ...base, provider_token: "284685063:TEST:abc" }, "Bad Request: STARS_INVOICE_INVALID"],
      [{ ...base, prices: [base.prices[0], { label: "tax", amount: 1 }] }, "Bad Request: STARS_INVOICE_INVALID"],
      [{ ...base, prices: [] }, "Bad Request: STARS_INVOICE_INVALID"],
    ] as const)
      assert.deepEqual(await rawCall("createInvoiceLink", params), { status: 400, body: { ok: false, error_code: 400, description } });
  });

  it("a member pays a subscription link: pre-checkout answered ok, then the first recurring successful_payment reaches the webhook [claim telegram.capabilities.native_payments telegram.overview.members-pay-in-the-bot-or]", async () => {
    receiver = await webhookReceiver({ ok: true });
    assert.deepEqual(fake.telegramWebhook(123456789), {
      url: fake.telegramWebhook(123456789)!.url,
      secret_token: "hook-secret_1",
      allowed_updates: ["message", "pre_checkout_query", "chat_member", "my_chat_member", "chat_join_request"],
    });
    const link = await payments().createInvoiceLink(monthly);
    const before = Math.floor(Date.now() / 1000);
    const outcome = await fake.payInvoice({ invoice: link, user });
    assert.equal(outcome.status, "paid");
    const chargeId = (outcome as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
    assert.deepEqual(
      receiver.updates.map((u) => u.secret),
      ["hook-secret_1", "hook-secret_1"],
    );
    const [query, message] = receiver.updates.map((u) => u.update);
    assert.deepEqual(query.pre_checkout_query, {
      id: query.pre_checkout_query.id,
      from: { is_bot: false, ...user },
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "plan:abc",
    });
    assert.ok(message.update_id > query.update_id);
    assert.deepEqual(message.message.chat, { id: user.id, type: "private", first_name: "Ada", username: "ada" });
    const paid = message.message.successful_payment;
    assert.deepEqual(paid, {
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "plan:abc",
      telegram_payment_charge_id: chargeId,
      provider_payment_charge_id: paid.provider_payment_charge_id,
      subscription_expiration_date: paid.subscription_expiration_date,
      is_recurring: true,
      is_first_recurring: true,
    });
    assert.ok(paid.subscription_expiration_date >= before + 2592000 && paid.subscription_expiration_date <= Math.floor(Date.now() / 1000) + 2592000);
    const answered = fake.calls.find((c) => c.name === "answerPreCheckoutQuery")!;
    assert.deepEqual(answered.params, { pre_checkout_query_id: query.pre_checkout_query.id, ok: true });
    const [tx] = await transactions();
    assert.equal(tx.id, chargeId);
    assert.equal(tx.amount, 250);
    assert.deepEqual(tx.source, {
      type: "user",
      transaction_type: "invoice_payment",
      user: { is_bot: false, ...user },
      invoice_payload: "plan:abc",
      subscription_period: 2592000,
    });
  });

  it("a declined pre-checkout query (ok: false) charges nothing and sends no payment", async () => {
    receiver = await webhookReceiver({ ok: false, errorMessage: "This plan is sold out." });
    const outcome = await fake.payInvoice({ invoice: await payments().createInvoiceLink(monthly), user });
    assert.deepEqual(outcome, { status: "declined", error_message: "This plan is sold out." });
    assert.deepEqual(
      receiver.updates.map((u) => Object.keys(u.update).sort()),
      [["pre_checkout_query", "update_id"]],
    );
    assert.deepEqual(await transactions(), []);
    assert.deepEqual(fake.calls.find((c) => c.name === "answerPreCheckoutQuery")!.params.error_message, "This plan is sold out.");
  });

  it("a query not answered in time charges nothing, and the late answer is refused as Telegram does", async () => {
    receiver = await webhookReceiver("never");
    const outcome = await fake.payInvoice({ invoice: await payments().createInvoiceLink(monthly), user, answerWithinMs: 20 });
    assert.deepEqual(outcome, { status: "unanswered" });
    const queryId = receiver.updates[0]!.update.pre_checkout_query.id;
    await refusedWith(
      payments().answerPreCheckoutQuery(queryId, { ok: true }),
      "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
    assert.deepEqual(await transactions(), []);
  });

  it("sends no pre-checkout query to a webhook that did not ask for them (allowed_updates)", async () => {
    receiver = await webhookReceiver({ ok: true });
    await rawCall("setWebhook", { url: fake.telegramWebhook(123456789)!.url, allowed_updates: ["message"] });
    const outcome = await fake.payInvoice({ invoice: await payments().createInvoiceLink(monthly), user, answerWithinMs: 20 });
    assert.deepEqual(outcome, { status: "unanswered" });
    assert.deepEqual(receiver.updates, []);
  });

  it("renews a subscription with a later recurring payment; a cancellation by the member or the bot stops renewal", async () => {
    receiver = await webhookReceiver({ ok: true });
    const first = (await fake.payInvoice({ invoice: await payments().createInvoiceLink(monthly), user })) as { telegram_payment_charge_id: string };
    const firstPaid = receiver.updates[1]!.update.message.successful_payment;
    const renewal = await fake.renewSubscription({ telegram_payment_charge_id: first.telegram_payment_charge_id });
    assert.equal(renewal.status, "paid");
    const renewed = receiver.updates[2]!.update.message.successful_payment;
    assert.notEqual(renewed.telegram_payment_charge_id, first.telegram_payment_charge_id);
    assert.equal(renewed.is_recurring, true);
    assert.equal(renewed.is_first_recurring, undefined);
    assert.equal(renewed.subscription_expiration_date, firstPaid.subscription_expiration_date + 2592000);
    assert.equal((await transactions()).length, 2);

    // The bot stops the renewal, then allows it again.
    await payments().setSubscriptionCanceled(String(user.id), renewed.telegram_payment_charge_id, true);
    await assert.rejects(fake.renewSubscription({ telegram_payment_charge_id: first.telegram_payment_charge_id }), /canceled/);
    await payments().setSubscriptionCanceled(String(user.id), first.telegram_payment_charge_id, false);
    assert.equal((await fake.renewSubscription({ telegram_payment_charge_id: first.telegram_payment_charge_id })).status, "paid");
    // The member cancels in Telegram: the bot cannot renew for them.
    fake.cancelSubscription({ telegram_payment_charge_id: first.telegram_payment_charge_id });
    await payments().setSubscriptionCanceled(String(user.id), first.telegram_payment_charge_id, false);
    await assert.rejects(fake.renewSubscription({ telegram_payment_charge_id: first.telegram_payment_charge_id }), /canceled/);
    await refusedWith(payments().setSubscriptionCanceled("999", first.telegram_payment_charge_id, true), "Bad Request: CHARGE_NOT_FOUND");
  });

  it("refunds a payment once: a second refund, an unknown charge and another member's charge are refused", async () => {
    receiver = await webhookReceiver({ ok: true });
    // A one-off invoice message, paid by the member who got it.
    const sent = await rawCall("sendInvoice", {
      chat_id: user.id,
      title: "Lifetime",
      description: "Once",
      payload: "plan:life",
      provider_token: "",
      currency: "XTR",
      prices: [{ label: "Lifetime", amount: 900 }],
    });
    assert.deepEqual(sent.body.result.invoice, { title: "Lifetime", description: "Once", start_parameter: "", currency: "XTR", total_amount: 900 });
    const paid = await fake.payInvoice({ invoice: { chat_id: user.id, message_id: sent.body.result.message_id }, user });
    assert.equal(paid.status, "paid");
    const chargeId = (paid as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
    const payment = receiver.updates[1]!.update.message.successful_payment;
    assert.equal(payment.is_recurring, undefined);
    assert.equal(payment.subscription_expiration_date, undefined);

    await refusedWith(payments().refund("5550002", chargeId), "Bad Request: CHARGE_NOT_FOUND");
    await payments().refund(String(user.id), chargeId);
    await refusedWith(payments().refund(String(user.id), chargeId), "Bad Request: CHARGE_ALREADY_REFUNDED");
    await refusedWith(payments().refund(String(user.id), "stxnosuchcharge"), "Bad Request: CHARGE_NOT_FOUND");
    await refusedWith(payments().setSubscriptionCanceled(String(user.id), chargeId, true), "Bad Request: SUBSCRIPTION_NOT_FOUND");
    const [payment1, refund] = await transactions();
    assert.deepEqual(payment1.source.invoice_payload, "plan:life");
    assert.deepEqual(refund, {
      id: chargeId,
      amount: 900,
      date: refund.date,
      receiver: { type: "user", transaction_type: "invoice_payment", user: { is_bot: false, ...user }, invoice_payload: "plan:life" },
    });
  });

  it("acts as a member over HTTP too (POST /_sim/telegram/payInvoice), for a person trying an embedded start", async () => {
    receiver = await webhookReceiver({ ok: true });
    const link = await payments().createInvoiceLink(monthly);
    const res = await fetch(`${fake.url}/_sim/telegram/payInvoice`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ invoice: link, user }),
    });
    const outcome = (await res.json()) as { status: string; telegram_payment_charge_id: string };
    assert.equal(outcome.status, "paid");
    const renew = await fetch(`${fake.url}/_sim/telegram/renewSubscription`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ telegram_payment_charge_id: "stxnone" }),
    });
    assert.deepEqual([renew.status, await renew.json()], [400, { error: "no subscription has that charge" }]);
    const noUser = await fetch(`${fake.url}/_sim/telegram/payInvoice`, { method: "POST", body: JSON.stringify({ invoice: link }) });
    assert.equal(noUser.status, 400);
  });
});
