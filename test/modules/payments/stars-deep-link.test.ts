// The bot's plan deep link sells the plan (issue 33): a bare plan UUID of a plan the project sells
// in Telegram Stars opens a checkout and answers with the invoice (a link for a recurring plan, an
// invoice in the chat for a lifetime one), made after the start's transaction committed; the
// simulated member pays it and has the subscription. An access-code-only plan points to its code, a
// live subscription is told so with nothing to pay, and a plan only Stripe sells goes to the portal.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { testPlatform } from "../../helpers/platforms.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { installTelegram, postTelegramStart } from "../connectors/support.ts";
import { seedPlan, type PlanOptions } from "../subscriptions/commerce.ts";

describe("payments: the bot's plan link sells the plan in Telegram Stars", function () {
  this.timeout(90_000);
  const suite = useApiWithCreator({ creator: { tier: "growth" } });
  let installation: { id: string };
  let bot: { id: number };
  let projectId: string;

  before(async () => {
    projectId = suite.creator.projectIds[0]!;
    ({ installation, bot } = await installTelegram(suite.client, projectId));
    const { db } = await testDatabase();
    const now = new Date();
    const method = { team_id: suite.creator.teamId, project_id: projectId, mode: "test", enabled: true, created_at: now, updated_at: now };
    await db("payment_methods").insert([
      { ...method, id: randomUUID(), provider: "telegram_stars", name: "Stars", currencies: '["XTR"]', billing_cycles: '["month","lifetime"]' },
      { ...method, id: randomUUID(), provider: "stripe", name: "Cards", currencies: '["USD"]', billing_cycles: '["month","year","lifetime"]' },
    ]);
  });

  /** A published plan of the project; in Stars (`amount` stars) unless `usd`. */
  async function plan(options: PlanOptions & { amount?: number; usd?: boolean; codesOnly?: boolean } = {}): Promise<string> {
    const { planId } = await seedPlan(suite.creator, options);
    const { db } = await testDatabase();
    const price = options.usd ? { currency: "USD", amount_minor: 900 } : { currency: "XTR", amount_minor: options.amount ?? 250 };
    await db("plans")
      .where({ id: planId })
      .update({ ...price, access_codes_only: options.codesOnly ?? false });
    return planId;
  }

  /** Posts a private "/start <payload>" from `userId` to the bot's webhook; answers the bot's calls it caused. */
  async function start(userId: number, payload: string) {
    const mark = (await testPlatform()).calls.length;
    const res = await postTelegramStart(suite.api.url, installation.id, userId, payload, { firstName: "Stella" });
    assert.equal(res.status, 200, await res.text());
    const calls = (await testPlatform()).calls.slice(mark).filter((c) => c.bot === String(bot.id));
    const texts = calls.filter((c) => c.name === "sendMessage").map((c) => String(c.params.text));
    return { calls, texts, link: /Pay with Telegram Stars: (\S+)/.exec(texts.join("\n"))?.[1] };
  }

  async function subscriptionsOf(userId: number) {
    const { db } = await testDatabase();
    return db("subscriptions")
      .join("members", "members.id", "subscriptions.member_id")
      .where({ "members.project_id": projectId, "members.external_user_id": String(userId) })
      .select("subscriptions.*");
  }

  it("answers a Stars plan's link with its invoice link; the member pays it and has the subscription", async () => {
    const planId = await plan({ amount: 250 });
    const user = randomInt(10_000_000, 99_999_999);
    const { texts, link } = await start(user, planId);
    assert.equal(texts.length, 1, texts.join("\n"));
    assert.match(texts[0]!, /250 stars \(renews every 30 days until you cancel\)/);
    assert.ok(link?.startsWith("https://t.me/$"), texts[0]);
    const { db } = await testDatabase();
    const [checkout] = await db("payment_checkouts").where({ plan_id: planId });
    assert.equal(checkout.provider, "telegram_stars");
    assert.equal(checkout.status, "open");
    assert.ok(checkout.payment_method_id, "the checkout names the Stars method");

    const paid = await (await testPlatform()).payInvoice({ invoice: link!, user: { id: user, first_name: "Stella" } });
    assert.equal(paid.status, "paid", JSON.stringify(paid));
    const [subscription, ...more] = await subscriptionsOf(user);
    assert.equal(more.length, 0);
    assert.equal(subscription.status, "active");
    assert.equal(subscription.plan_id, planId);
    assert.equal(subscription.provider, "telegram_stars");
    const transactions = await db("transactions").where({ subscription_id: subscription.id });
    assert.deepEqual(
      transactions.map((t: Record<string, unknown>) => [Number(t.amount_minor), t.currency]),
      [[250, "XTR"]],
    );

    // The link again during the live subscription: said so, no invoice, no checkout.
    const again = await start(user, planId);
    assert.match(again.texts.join("\n"), /already have an active membership/);
    assert.equal(again.link, undefined);
    assert.deepEqual(
      again.calls.filter((c) => c.name === "createInvoiceLink" || c.name === "sendInvoice"),
      [],
    );
    assert.equal((await db("payment_checkouts").where({ plan_id: planId })).length, 1);
  });

  it("opens a new checkout on each opening, closing the earlier one: its invoice is declined, the new one is paid once", async () => {
    const planId = await plan({ amount: 100 });
    const user = randomInt(10_000_000, 99_999_999);
    const first = await start(user, planId);
    const second = await start(user, planId);
    assert.ok(first.link && second.link && first.link !== second.link);
    const { db } = await testDatabase();
    assert.deepEqual(
      (await db("payment_checkouts").where({ plan_id: planId }).orderBy("created_at")).map((c: { status: string }) => c.status),
      ["expired", "open"],
      "a member has one open checkout per project",
    );

    const platform = await testPlatform();
    const paid = await platform.payInvoice({ invoice: second.link!, user: { id: user, first_name: "Stella" } });
    assert.equal(paid.status, "paid", JSON.stringify(paid));
    const late = await platform.payInvoice({ invoice: first.link!, user: { id: user, first_name: "Stella" } });
    assert.equal(late.status, "declined", JSON.stringify(late));
    assert.equal((await subscriptionsOf(user)).length, 1);
  });

  it("sends a lifetime Stars plan's invoice into the chat", async () => {
    const planId = await plan({ amount: 700, cycle: "lifetime" });
    const user = randomInt(10_000_000, 99_999_999);
    const { calls, texts } = await start(user, planId);
    assert.match(texts.join("\n"), /700 stars \(one payment, access for life\)/);
    const [invoice, ...more] = calls.filter((c) => c.name === "sendInvoice");
    assert.equal(more.length, 0);
    assert.equal(String(invoice?.params.chat_id), String(user));
    const { db } = await testDatabase();
    const [checkout] = await db("payment_checkouts").where({ plan_id: planId });
    assert.equal(invoice?.params.payload, checkout.id);
  });

  it("keeps an access-code-only plan on the code path: no checkout, no invoice", async () => {
    const planId = await plan({ codesOnly: true });
    const { calls, texts } = await start(randomInt(10_000_000, 99_999_999), planId);
    assert.match(texts.join("\n"), /joined with an access code/);
    assert.equal(calls.filter((c) => c.name === "createInvoiceLink" || c.name === "sendInvoice").length, 0);
    const { db } = await testDatabase();
    assert.equal((await db("payment_checkouts").where({ plan_id: planId })).length, 0);
  });

  it("sends a plan only Stripe sells to the portal's plan page", async () => {
    const planId = await plan({ usd: true });
    const { calls, texts } = await start(randomInt(10_000_000, 99_999_999), planId);
    assert.match(texts.join("\n"), new RegExp(`\\$9\\.00 every month\\.\\nCheck out on http\\S+\\?plan=${planId}`));
    assert.equal(calls.filter((c) => c.name === "createInvoiceLink" || c.name === "sendInvoice").length, 0);
    const { db } = await testDatabase();
    assert.equal((await db("payment_checkouts").where({ plan_id: planId })).length, 0);
  });

  it("sends a Stars plan that Stars cannot sell (billed yearly) to the portal", async () => {
    const planId = await plan({ amount: 250, cycle: "year" });
    const { texts } = await start(randomInt(10_000_000, 99_999_999), planId);
    assert.match(texts.join("\n"), new RegExp(`250 stars every year\\.\\nCheck out on http\\S+\\?plan=${planId}`));
  });
});
