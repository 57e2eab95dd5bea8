// Telegram Stars in the local fake platform (fake-platform.ts): the Bot API's payment methods with
// Telegram's validation and answers, a ledger of star transactions, and a simulator that acts as a
// Telegram user (pays an invoice, is charged for a renewal, cancels), posting the updates to the
// bot's webhook as Telegram does, and the refunded_payment message after refundStarPayment.
import { randomBytes } from "node:crypto";
import { invalidStarsInvoice, jsonParam, STARS_SUBSCRIPTION_PERIOD } from "./fake-telegram-invoices.ts";
import type { SimulatedTelegramUser, StarCharge, StarsStore, StarSubscription, StoredInvoice } from "./fake-telegram-stars-store.ts";

export { jsonParam } from "./fake-telegram-invoices.ts";
export type { SimulatedTelegramUser } from "./fake-telegram-stars-store.ts";

export interface TelegramWebhook {
  url: string;
  secret_token: string | null;
  /** null: Telegram's default (every update type but chat_member, message_reaction, message_reaction_count). */
  allowed_updates: string[] | null;
}

/** An invoice to pay: its link (createInvoiceLink) or the message that carries it (sendInvoice). */
export type InvoiceRef = string | { chat_id: number | string; message_id: number };

export type PaymentOutcome =
  | {
      status: "paid";
      telegram_payment_charge_id: string;
      /** The message update posted to the webhook, and whether the webhook took it (2xx). */
      update: Record<string, unknown>;
      delivered: boolean;
    }
  /** The bot answered ok: false; nothing was charged. */
  | { status: "declined"; error_message: string }
  /** The bot did not answer in time (or its webhook refused the query); nothing was charged. */
  | { status: "unanswered" };

/** How long Telegram waits for answerPreCheckoutQuery. */
const PRE_CHECKOUT_ANSWER_MS = 10_000;

/** The Bot API's User object of a simulated member. */
const userObject = (user: SimulatedTelegramUser) => ({ is_bot: false, ...user });

/** A Bot API answer: the result, or Telegram's refusal (HTTP 400 with its description). */
export type BotApiAnswer = { ok: true; result: unknown } | { ok: false; description: string };

/** What a test or a person does as a Telegram user. */
export interface StarsSimulator {
  /**
   * A Telegram user pays an invoice: a pre_checkout_query goes to the bot's webhook; Telegram charges
   * only when the bot answers ok within `answerWithinMs` (Telegram's 10 s), then posts the
   * successful_payment message (a subscription's first payment when the invoice has a period).
   */
  payInvoice(input: { invoice: InvoiceRef; user: SimulatedTelegramUser; answerWithinMs?: number }): Promise<PaymentOutcome>;
  /** Telegram charges a subscription's next period (any charge id of it names it) and posts the recurring successful_payment. */
  renewSubscription(input: { telegram_payment_charge_id: string }): Promise<PaymentOutcome>;
  /** The user cancels a subscription in Telegram: it runs to its expiration date and is not renewed. */
  cancelSubscription(input: { telegram_payment_charge_id: string }): void;
  /** Resolves once the updates posted after a call's answer (a refund's refunded_payment message) have been delivered. */
  settled(): Promise<void>;
}

/** The Stars side of the fake Telegram, reading the webhooks that setWebhook keeps. */
export function telegramStars(webhooks: ReadonlyMap<number, TelegramWebhook>, store: StarsStore) {
  const { invoices, charges, ledger, counters } = store;
  /** Pre-checkout queries Telegram waits on, by query id: the bot that got it and who takes the answer. */
  const preCheckouts = new Map<string, { botId: number; settle: (answer: { ok: boolean; error_message: string }) => void }>();
  const now = () => Math.floor(Date.now() / 1000);

  const refuse = (description: string): BotApiAnswer => ({ ok: false, description });
  const ok = (result: unknown): BotApiAnswer => ({ ok: true, result });
  const messageKey = (botId: number, chat: unknown, messageId: unknown) => `${botId}/${String(chat)}/${String(messageId)}`;
  const botUser = (bot: { id: number; username: string }) => ({ id: bot.id, is_bot: true, first_name: bot.username, username: bot.username });

  /** A charge of `botId`'s that `userId` paid, or the refusal Telegram gives. */
  function chargeOf(botId: number, params: Record<string, unknown>): StarCharge | string {
    const charge = charges.get(String(params.telegram_payment_charge_id ?? ""));
    if (!charge || charge.botId !== botId || charge.user.id !== Number(params.user_id)) return "Bad Request: CHARGE_NOT_FOUND";
    return charge;
  }

  /** Answers a payments method of the Bot API for `bot`, or undefined when `method` is none. */
  function method(name: string, bot: { id: number; username: string }, params: Record<string, unknown>, chatOk: boolean): BotApiAnswer | undefined {
    const chat = params.chat_id;
    switch (name) {
      case "createInvoiceLink":
      case "sendInvoice": {
        const link = name === "createInvoiceLink";
        if (!link && !chatOk) return refuse("Bad Request: chat not found");
        const invalid = invalidStarsInvoice(params, link);
        if (invalid) return refuse(invalid);
        const amount = (jsonParam(params.prices) as { amount: number }[])[0]!.amount;
        const invoice: StoredInvoice = {
          botId: bot.id,
          title: params.title as string,
          payload: params.payload as string,
          amount,
          // sendInvoice has no subscription_period: Telegram ignores it there, as any unknown parameter.
          subscriptionPeriod: link && params.subscription_period !== undefined ? STARS_SUBSCRIPTION_PERIOD : null,
        };
        if (link) {
          const slug = randomBytes(12).toString("base64url");
          invoices.set(slug, invoice);
          return ok(`https://t.me/$${slug}`);
        }
        const messageId = ++counters.sequence;
        invoices.set(messageKey(bot.id, chat, messageId), invoice);
        return ok({
          message_id: messageId,
          from: botUser(bot),
          date: now(),
          chat: { id: chat },
          invoice: {
            title: invoice.title,
            description: params.description,
            start_parameter: typeof params.start_parameter === "string" ? params.start_parameter : "",
            currency: "XTR",
            total_amount: amount,
          },
        });
      }
      case "answerPreCheckoutQuery": {
        const query = preCheckouts.get(String(params.pre_checkout_query_id ?? ""));
        if (!query || query.botId !== bot.id) return refuse("Bad Request: query is too old and response timeout expired or query ID is invalid");
        const accepted = params.ok === true || params.ok === "true";
        const errorMessage = typeof params.error_message === "string" ? params.error_message : "";
        if (!accepted && !errorMessage) return refuse("Bad Request: ERROR_MESSAGE_EMPTY");
        preCheckouts.delete(String(params.pre_checkout_query_id));
        query.settle({ ok: accepted, error_message: errorMessage });
        return ok(true);
      }
      case "refundStarPayment": {
        const charge = chargeOf(bot.id, params);
        if (typeof charge === "string") return refuse(charge);
        if (charge.refunded) return refuse("Bad Request: CHARGE_ALREADY_REFUNDED");
        charge.refunded = true;
        record(bot.id, {
          id: params.telegram_payment_charge_id,
          amount: charge.amount,
          date: now(),
          receiver: { type: "user", transaction_type: "invoice_payment", user: userObject(charge.user), invoice_payload: charge.payload },
        });
        postRefundedPayment(bot.id, String(params.telegram_payment_charge_id), charge);
        return ok(true);
      }
      case "editUserStarSubscription": {
        const charge = chargeOf(bot.id, params);
        if (typeof charge === "string") return refuse(charge);
        if (!charge.subscription) return refuse("Bad Request: SUBSCRIPTION_NOT_FOUND");
        if (params.is_canceled === undefined) return refuse('Bad Request: parameter "is_canceled" is required');
        // Only the bot's own cancellation can be lifted by the bot; the user's stays.
        charge.subscription.canceledByBot = params.is_canceled === true || params.is_canceled === "true";
        return ok(true);
      }
      case "getStarTransactions": {
        const all = ledger.get(bot.id) ?? [];
        const offset = Math.max(0, Number(params.offset ?? 0) || 0);
        const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100) || 100));
        return ok({ transactions: all.slice(offset, offset + limit) });
      }
      default:
        return undefined;
    }
  }

  /** A new message in the member's private chat with the bot (where Telegram posts a payment's service messages). */
  const memberMessage = (user: SimulatedTelegramUser) => ({
    message_id: ++counters.sequence,
    from: userObject(user),
    chat: { id: user.id, type: "private", first_name: user.first_name, ...(user.username ? { username: user.username } : {}) },
    date: now(),
  });

  /** Updates posted after a Bot API call has answered (Telegram sends them on its own time), until they are delivered. */
  const posting = new Set<Promise<unknown>>();

  /**
   * The service message Telegram posts in the member's chat with the bot once a payment is
   * refunded (Message.refunded_payment: RefundedPayment), after refundStarPayment has answered.
   */
  function postRefundedPayment(botId: number, chargeId: string, charge: StarCharge) {
    const user = charge.user;
    const sent = deliver(botId, "message", {
      ...memberMessage(user),
      refunded_payment: {
        currency: "XTR",
        total_amount: charge.amount,
        invoice_payload: charge.payload,
        telegram_payment_charge_id: chargeId,
      },
    }).catch(() => undefined);
    posting.add(sent);
    void sent.finally(() => posting.delete(sent));
  }

  function record(botId: number, transaction: Record<string, unknown>) {
    ledger.set(botId, [...(ledger.get(botId) ?? []), transaction]);
  }

  /** Posts an update to the bot's webhook as Telegram does; true when the webhook took it (2xx). */
  async function deliver(
    botId: number,
    type: string,
    body: Record<string, unknown>,
  ): Promise<{ update: Record<string, unknown>; delivered: boolean }> {
    const hook = webhooks.get(botId);
    if (!hook) throw new Error(`bot ${botId} has no webhook: Telegram has nowhere to send the ${type}`);
    const update = { update_id: ++counters.updateId, [type]: body };
    // Telegram sends only the update types the webhook asked for.
    const wanted = hook.allowed_updates ?? ["message", "pre_checkout_query"];
    if (!wanted.includes(type)) return { update, delivered: false };
    try {
      const res = await fetch(hook.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(hook.secret_token ? { "x-telegram-bot-api-secret-token": hook.secret_token } : {}) },
        body: JSON.stringify(update),
        signal: AbortSignal.timeout(PRE_CHECKOUT_ANSWER_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      return { update, delivered: res.ok };
    } catch {
      return { update, delivered: false };
    }
  }

  /** Charges the user (the ledger and, for a subscription, its period) and posts the successful_payment message. */
  async function charge(
    input: { botId: number; user: SimulatedTelegramUser; amount: number; payload: string },
    subscription: StarSubscription | null,
    first: boolean,
  ): Promise<PaymentOutcome> {
    const id = `stx${randomBytes(30).toString("base64url")}`;
    charges.set(id, { ...input, refunded: false, subscription });
    record(input.botId, {
      id,
      amount: input.amount,
      date: now(),
      source: {
        type: "user",
        transaction_type: "invoice_payment",
        user: userObject(input.user),
        invoice_payload: input.payload,
        ...(subscription ? { subscription_period: subscription.period } : {}),
      },
    });
    const { update, delivered } = await deliver(input.botId, "message", {
      ...memberMessage(input.user),
      successful_payment: {
        currency: "XTR",
        total_amount: input.amount,
        invoice_payload: input.payload,
        telegram_payment_charge_id: id,
        provider_payment_charge_id: `${input.user.id}_${counters.sequence}`,
        ...(subscription
          ? { subscription_expiration_date: subscription.expiresAt, is_recurring: true, ...(first ? { is_first_recurring: true } : {}) }
          : {}),
      },
    });
    return { status: "paid", telegram_payment_charge_id: id, update, delivered };
  }

  const simulator: StarsSimulator = {
    async payInvoice({ invoice: ref, user, answerWithinMs = PRE_CHECKOUT_ANSWER_MS }) {
      const invoice =
        typeof ref === "string"
          ? invoices.get(ref.replace(/^https:\/\/t\.me\/\$/, ""))
          : [...new Set([...invoices.values()].map((i) => i.botId))]
              .map((botId) => invoices.get(messageKey(botId, ref.chat_id, ref.message_id)))
              .find(Boolean);
      if (!invoice) throw new Error("no such invoice");
      if (!webhooks.has(invoice.botId)) throw new Error(`bot ${invoice.botId} has no webhook: Telegram has nowhere to send the pre_checkout_query`);
      const queryId = String(BigInt(`0x${randomBytes(7).toString("hex")}`));
      const answer = new Promise<{ ok: boolean; error_message: string } | null>((resolve) => {
        const timer = setTimeout(() => {
          preCheckouts.delete(queryId);
          resolve(null);
        }, answerWithinMs);
        timer.unref();
        preCheckouts.set(queryId, {
          botId: invoice.botId,
          settle: (a) => {
            clearTimeout(timer);
            resolve(a);
          },
        });
      });
      await deliver(invoice.botId, "pre_checkout_query", {
        id: queryId,
        from: userObject(user),
        currency: "XTR",
        total_amount: invoice.amount,
        invoice_payload: invoice.payload,
      });
      // A query the webhook refused is retried by Telegram until the time runs out; the answer may still come.
      const answered = await answer;
      if (!answered) return { status: "unanswered" as const };
      if (!answered.ok) return { status: "declined" as const, error_message: answered.error_message };
      const input = { botId: invoice.botId, user, amount: invoice.amount, payload: invoice.payload };
      const subscription = invoice.subscriptionPeriod
        ? { ...input, period: invoice.subscriptionPeriod, expiresAt: now() + invoice.subscriptionPeriod, canceledByUser: false, canceledByBot: false }
        : null;
      return charge(input, subscription, true);
    },
    async renewSubscription({ telegram_payment_charge_id }) {
      const subscription = charges.get(telegram_payment_charge_id)?.subscription;
      if (!subscription) throw new Error("no subscription has that charge");
      if (subscription.canceledByUser || subscription.canceledByBot) throw new Error("the subscription is canceled: Telegram does not renew it");
      subscription.expiresAt += subscription.period;
      const { botId, user, amount, payload } = subscription;
      return charge({ botId, user, amount, payload }, subscription, false);
    },
    cancelSubscription({ telegram_payment_charge_id }) {
      const subscription = charges.get(telegram_payment_charge_id)?.subscription;
      if (!subscription) throw new Error("no subscription has that charge");
      subscription.canceledByUser = true;
    },
    async settled() {
      while (posting.size) await Promise.all([...posting]);
    },
  };

  /** POST /_sim/telegram/<function>: the simulator over HTTP (a path the Bot API never uses), for a person trying an embedded start. */
  async function simulate(name: string, params: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    try {
      switch (name) {
        case "payInvoice": {
          const user = params.user as Partial<SimulatedTelegramUser> | undefined;
          if (typeof user?.id !== "number" || typeof user.first_name !== "string")
            return reply(400, { error: "payInvoice takes {invoice, user: {id, first_name}, answerWithinMs?}" });
          return reply(200, await simulator.payInvoice(params as Parameters<StarsSimulator["payInvoice"]>[0]));
        }
        case "renewSubscription":
          return reply(200, await simulator.renewSubscription({ telegram_payment_charge_id: String(params.telegram_payment_charge_id) }));
        case "cancelSubscription":
          simulator.cancelSubscription({ telegram_payment_charge_id: String(params.telegram_payment_charge_id) });
          return reply(200, { status: "canceled" });
        default:
          return reply(404, { error: "no such simulator function" });
      }
    } catch (err) {
      return reply(400, { error: (err as Error).message });
    }
  }

  return { method, simulator, simulate, deliver };
}

/** A simulator route's HTTP answer. */
const reply = (status: number, body: unknown) => ({ status, body });
