// A creator refunds a member's payment from the authorization host (issue 33): the project's recent
// payments, a confirmation saying what happens to the member's access, and the POST that asks the
// provider. The refund is recorded once from the provider's report: Stripe's charge.refunded through
// the API's webhook route (the twin posts it), Telegram Stars' refunded_payment message (the fake
// platform posts it) and the same event applied at once by the page, one refund row whichever
// arrives first. A whole refund of the period's payment ends access; a partial one keeps it.
// Refused: another team's payment (404), a role without payment:refund (403), a form without its
// CSRF token (403), a partial Stars refund and a malformed or too large amount (422).
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { paymentsPages, useStripePages, type StripePages } from "./payments-support.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { createTestCreator, joinTeamWithToken } from "../../helpers/fixtures.ts";
import { ApiClient } from "../../helpers/http.ts";
import { testPlatform, testPlatformEndpoints } from "../../helpers/platforms.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { installTelegram } from "../../modules/connectors/support.ts";
import { openStripeShop } from "../../modules/payments/stripe-shop.ts";
import { asDomain, seedPlan } from "../../modules/subscriptions/commerce.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { openCheckout } from "../../../src/modules/payments/checkouts.ts";
import { providerRegistry } from "../../../src/modules/payments/providers.ts";
import { TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { PaymentMethodRow } from "../../../src/modules/payment-methods/tables.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";

describe("auth pages: a creator refunds a payment", function () {
  this.timeout(60_000);
  const hosts = useStripePages();
  let twin: StripeTwin;
  let api: StripePages["api"];
  let auth: StripePages["auth"];
  before(() => ({ twin, api, auth } = hosts));

  const { signedIn } = paymentsPages(() => ({ twin, authUrl: auth.url }));

  const list = (projectId: string) => `/payments/projects/${projectId}/payments`;
  const refundPath = (projectId: string, paymentId: string) => `${list(projectId)}/${paymentId}/refund`;

  /** A member's Stripe payment on the creator's shop: the payment row and its subscription. */
  async function stripePayment(shop: Awaited<ReturnType<typeof openStripeShop>>, name: string) {
    const { db } = await testDatabase();
    const { checkout, sessionId } = await shop.checkoutFor(name);
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first("subscription_id");
    const payment = await db("transactions").where({ subscription_id, kind: "payment" }).first();
    assert.ok(payment, "the payment is recorded");
    return { payment, subscriptionId: subscription_id as string };
  }

  const refundsOf = async (paymentId: string) =>
    (await testDatabase()).db("transactions").where({ refunded_transaction_id: paymentId, kind: "refund" }).orderBy("created_at");
  const statusOf = async (subscriptionId: string) =>
    ((await (await testDatabase()).db("subscriptions").where({ id: subscriptionId }).first("status")) as { status: string }).status;
  const refundedEvents = async (teamId: string, paymentId: string) =>
    (await eventsOf(teamId, "payment.refunded")).filter((e) => e.data.payment.refunded_payment_id === paymentId);

  it("refunds a Stripe payment wholly: the confirmation says access ends, Stripe's report records it once and ends access", async () => {
    const creator = await createTestCreator({ label: "refund-whole" });
    const shop = await openStripeShop(creator, twin, api.deps.stripe!);
    const { payment, subscriptionId } = await stripePayment(shop, "Ada Whole");
    const projectId = shop.plan.projectId;
    const browser = await signedIn(creator);

    assert.match(await (await browser.get("/payments")).text(), new RegExp(`href="${list(projectId)}">Recent payments and refunds`));
    const listed = await (await browser.get(list(projectId))).text();
    assert.match(listed, /<strong>Ada Whole<\/strong> paid <strong>5\.00 USD<\/strong>/);
    assert.match(listed, /Stripe · <time/);
    assert.match(listed, new RegExp(`href="${refundPath(projectId, payment.id)}"`));

    const confirm = await browser.get(refundPath(projectId, payment.id));
    assert.equal(confirm.status, 200);
    const confirmText = await confirm.text();
    assert.match(confirmText, /pays for Ada Whole's current period, so refunding all of it <strong>ends their access now<\/strong>/);
    assert.match(confirmText, /Leave empty to refund all that is left, 5\.00 USD/);

    const res = await browser.post(refundPath(projectId, payment.id), { amount: "" }, refundPath(projectId, payment.id));
    assert.equal(res.status, 303, await res.text());
    assert.equal(res.headers.get("location"), `${list(projectId)}?done=stripe-refunded`);
    await twin.settled();
    const refunds = await refundsOf(payment.id);
    assert.deepEqual(
      refunds.map((r: Record<string, unknown>) => [Number(r.amount_minor), r.currency, r.provider]),
      [[500, "USD", "stripe"]],
    );
    assert.equal((await (await testDatabase()).db("transactions").where({ id: payment.id }).first()).status, "refunded");
    assert.equal(await statusOf(subscriptionId), "expired");
    const events = await refundedEvents(creator.teamId, payment.id);
    assert.equal(events.length, 1);
    assertValidEvent(events[0]!);
    const entry = await (
      await testDatabase()
    )
      .db("activity_log")
      .where({ team_id: creator.teamId, event: "payment_refund_requested", subject_type: "subscription", subject_id: subscriptionId })
      .first("causer_id", "actor_kind", "properties");
    assert.deepEqual([entry?.causer_id, entry?.actor_kind], [creator.userId, "human"]);
    assert.deepEqual([entry.properties.payment_id, entry.properties.amount_minor], [payment.id, 500]);

    const after = await (await browser.get(`${list(projectId)}?done=stripe-refunded`)).text();
    assert.match(after, /Stripe is refunding the payment/);
    assert.match(after, /<strong>5\.00 USD<\/strong> <span class="badge">Refunded<\/span>/);
    assert.doesNotMatch(after, new RegExp(`href="${refundPath(projectId, payment.id)}"`));
    // Refunded already: the confirmation sends back to the list, a second POST gives nothing more back.
    const again = await browser.get(refundPath(projectId, payment.id));
    assert.equal(again.headers.get("location"), `${list(projectId)}?done=already-refunded`);
    const twice = await browser.post(refundPath(projectId, payment.id), {}, list(projectId));
    assert.equal(twice.headers.get("location"), `${list(projectId)}?done=already-refunded`);
    await twin.settled();
    assert.equal((await refundsOf(payment.id)).length, 1);
  });

  it("refunds part of a Stripe payment (access kept), refuses a malformed or too large amount, and reports Stripe's 'already refunded'", async () => {
    const creator = await createTestCreator({ label: "refund-part" });
    const shop = await openStripeShop(creator, twin, api.deps.stripe!);
    const { payment, subscriptionId } = await stripePayment(shop, "Bo Partial");
    const projectId = shop.plan.projectId;
    const browser = await signedIn(creator);
    const path = refundPath(projectId, payment.id);

    for (const amount of ["abc", "1.234", "-1", "6.00", "0"]) {
      const bad = await browser.post(path, { amount }, path);
      assert.equal(bad.status, 422, amount);
      assert.match(await bad.text(), /That was not done: (the amount is a number in USD with at most 2 decimals|The amount is more than nothing)/);
    }
    const res = await browser.post(path, { amount: "2" }, path);
    assert.equal(res.status, 303, await res.text());
    await twin.settled();
    assert.deepEqual(
      (await refundsOf(payment.id)).map((r: Record<string, unknown>) => Number(r.amount_minor)),
      [200],
    );
    assert.equal(await statusOf(subscriptionId), "active");
    const listed = await (await browser.get(list(projectId))).text();
    assert.match(listed, /<span class="badge">2\.00 USD refunded<\/span>/);
    const confirm = await (await browser.get(path)).text();
    assert.match(confirm, /2\.00 USD of it is refunded already/);
    assert.match(confirm, /all that is left, 3\.00 USD/);

    // The rest refunded in Stripe's dashboard while its report is held back: Stripe answers "already refunded".
    const stripe = api.deps.stripe!.client;
    const [endpoint] = (await stripe.webhookEndpoints.list()).data;
    await stripe.webhookEndpoints.update(endpoint!.id, { disabled: true });
    try {
      await stripe.refunds.create({ payment_intent: payment.provider_reference }, { stripeAccount: shop.account });
      const already = await browser.post(path, {}, path);
      assert.equal(already.headers.get("location"), `${list(projectId)}?done=already-refunded`);
      assert.match(await (await browser.get(`${list(projectId)}?done=already-refunded`)).text(), /That payment was refunded already/);
    } finally {
      await stripe.webhookEndpoints.update(endpoint!.id, { disabled: false });
    }
    assert.equal((await refundsOf(payment.id)).length, 1, "recorded when Stripe's report arrives, not by the page");
  });

  /** A creator whose project sells an XTR plan through its installed bot and Telegram Stars. */
  async function starsShop(label: string) {
    const creator = await createTestCreator({ label });
    const projectId = creator.projectIds[0]!;
    const { bot } = await installTelegram(new ApiClient(api.url, creator.token), projectId);
    const plan = await seedPlan(creator);
    const { db } = await testDatabase();
    await db("plans").where({ id: plan.planId }).update({ currency: "XTR", amount_minor: 250 });
    const browser = await signedIn(creator);
    assert.equal((await browser.post(`/payments/projects/${projectId}/stars`, {}, "/payments")).status, 303);
    const method = (await db("payment_methods").where({ project_id: projectId, provider: "telegram_stars" }).first()) as PaymentMethodRow;
    const registry = providerRegistry({ db, stripe: null, connectors: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY } });
    const target = (await registry.providerFor(method))!;

    /** A member pays the plan in Telegram: the payment row, its subscription and Telegram's charge id. */
    async function pay(name: string) {
      const userId = randomInt(10_000_000, 99_999_999);
      const { checkout, planRow } = await asDomain(
        creator,
        async (ctx) => {
          const { member } = await findOrCreateMember(ctx, projectId, {
            connectorKey: "telegram",
            externalUserId: String(userId),
            displayName: name,
          });
          const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
          const opened = await openCheckout(ctx, {
            member,
            plan: planRow,
            provider: "telegram_stars",
            paymentMethodId: method.id,
            providerAccount: target.method.account,
          });
          return { checkout: opened.checkout, planRow };
        },
        { system: true },
      );
      const price = { amountMinor: 250, currency: "XTR", cycle: planRow.billing_cycle, cycleCount: 1, trialDays: 0 };
      const start = await target.provider.startCheckout(target.method, { reference: checkout.id, planName: planRow.name, price });
      const paid = await (await testPlatform()).payInvoice({ invoice: start.url!, user: { id: userId, first_name: name } });
      assert.equal(paid.status, "paid", JSON.stringify(paid));
      const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first("subscription_id");
      const payment = await db("transactions").where({ subscription_id, kind: "payment" }).first();
      return {
        payment,
        subscriptionId: subscription_id as string,
        chargeId: (paid as { telegram_payment_charge_id: string }).telegram_payment_charge_id,
      };
    }
    return { creator, projectId, bot, browser, target, pay };
  }

  const inboxCount = async (eventId: string) =>
    Number(
      (await (await testDatabase()).db("payment_provider_events").where({ provider: "telegram_stars", event_id: eventId }).count({ n: "*" }))[0]!.n,
    );

  it("refunds a Telegram Stars payment wholly: one refund row from the page and Telegram's refunded_payment message, access ended", async () => {
    const shop = await starsShop("refund-stars");
    const { payment, subscriptionId, chargeId } = await shop.pay("Stella Stars");
    const path = refundPath(shop.projectId, payment.id);
    const confirm = await (await shop.browser.get(path)).text();
    assert.match(confirm, /Telegram refunds a Stars payment once and wholly: all 250 XTR go back to the member/);
    assert.match(confirm, /<strong>ends their access now<\/strong>/);
    assert.doesNotMatch(confirm, /name="amount"/);
    const partial = await shop.browser.post(path, { amount: "100" }, path);
    assert.equal(partial.status, 422);
    assert.match(await partial.text(), /Telegram Stars refunds a payment wholly and once/);

    const res = await shop.browser.post(path, {}, path);
    assert.equal(res.status, 303, await res.text());
    assert.equal(res.headers.get("location"), `${list(shop.projectId)}?done=stars-refunded`);
    // Applied by the page before it answered; Telegram's message, delivered after, is a duplicate.
    assert.equal((await refundsOf(payment.id)).length, 1);
    await (await testPlatform()).settled();
    const refunds = await refundsOf(payment.id);
    assert.deepEqual(
      refunds.map((r: Record<string, unknown>) => [Number(r.amount_minor), r.currency, r.provider_reference]),
      [[250, "XTR", payment.provider_reference]],
    );
    assert.equal(await inboxCount(`telegram-refund:${chargeId}`), 1);
    assert.equal(await statusOf(subscriptionId), "expired");
    assert.equal((await refundedEvents(shop.creator.teamId, payment.id)).length, 1);
    const calls = (await testPlatform()).calls.filter((c) => c.name === "refundStarPayment" && c.params.telegram_payment_charge_id === chargeId);
    assert.equal(calls.length, 1);
    assert.match(await (await shop.browser.get(`${list(shop.projectId)}?done=stars-refunded`)).text(), /The stars were given back/);
  });

  it("records a Stars refund from Telegram's refunded_payment message alone, and from the page alone when the message never comes", async () => {
    const shop = await starsShop("refund-stars-paths");
    const platform = await testPlatform();
    // Refunded by the bot outside the page (as an owed refund is): only Telegram's message records it.
    const byBot = await shop.pay("Una Update");
    await shop.target.provider.refund(shop.target.method, byBot.payment.provider_reference);
    await platform.settled();
    assert.deepEqual(
      (await refundsOf(byBot.payment.id)).map((r: Record<string, unknown>) => Number(r.amount_minor)),
      [250],
    );
    assert.equal(await statusOf(byBot.subscriptionId), "expired");

    // The bot's webhook gone: no message reaches us, and the page's own application records the refund.
    const byPage = await shop.pay("Pia Page");
    const gone = await fetch(`${platform.url}/bot${shop.bot.token}/deleteWebhook`, { method: "POST" });
    assert.equal(gone.status, 200);
    const path = refundPath(shop.projectId, byPage.payment.id);
    assert.equal((await shop.browser.post(path, {}, path)).status, 303);
    await platform.settled();
    assert.equal((await refundsOf(byPage.payment.id)).length, 1);
    assert.equal(await inboxCount(`telegram-refund:${byPage.chargeId}`), 1);
    assert.equal(await statusOf(byPage.subscriptionId), "expired");
  });

  it("refuses another team's payment (404), a role without payment:refund (403) and a form without its CSRF token (403)", async () => {
    const owner = await createTestCreator({ label: "refund-owner" });
    const shop = await openStripeShop(owner, twin, api.deps.stripe!);
    const { payment } = await stripePayment(shop, "Cy Guarded");
    const projectId = shop.plan.projectId;
    const path = refundPath(projectId, payment.id);

    const stranger = await createTestCreator({ label: "refund-stranger" });
    const strangerBrowser = await signedIn(stranger);
    assert.equal((await strangerBrowser.get(list(projectId))).status, 404);
    assert.equal((await strangerBrowser.get(path)).status, 404);
    assert.equal((await strangerBrowser.post(path, {}, "/payments")).status, 404);
    // The stranger's own project naming the owner's payment: not one of that project's.
    const own = refundPath(stranger.projectIds[0]!, payment.id);
    assert.equal((await strangerBrowser.get(own)).status, 404);
    assert.equal((await strangerBrowser.post(own, {}, "/payments")).status, 404);
    for (const id of ["not-a-payment", "-".repeat(36)])
      assert.equal((await strangerBrowser.get(refundPath(stranger.projectIds[0]!, id))).status, 404);

    // A member (the built-in role reads): the list without Refund; the confirmation and the POST 403.
    const member = await createTestCreator({ label: "refund-member" });
    await joinTeamWithToken(owner, member, ["project:view-any"], "member");
    const memberBrowser = await signedIn(member);
    assert.equal((await memberBrowser.post("/teams/switch", { team_id: owner.teamId, return_to: "/payments" }, "/payments")).status, 302);
    const memberList = await memberBrowser.get(list(projectId));
    assert.equal(memberList.status, 200);
    const memberText = await memberList.text();
    assert.match(memberText, /Cy Guarded/);
    assert.doesNotMatch(memberText, /\/refund"/);
    const refused = await memberBrowser.get(path);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /needs payment:refund/);
    assert.equal((await memberBrowser.post(path, {}, "/payments")).status, 403);

    // The owner's own form, without its token.
    const ownerBrowser = await signedIn(owner);
    await ownerBrowser.get(path);
    const forged = await ownerBrowser.request("POST", path, {});
    assert.equal(forged.status, 403);
    assert.match(await forged.text(), /This form has expired or was not sent from this site/);

    await twin.settled();
    assert.equal((await refundsOf(payment.id)).length, 0, "nothing was refunded (a refund at Stripe would have been reported)");
  });
});
