// A member pays from the portal (issue 33): each plan card offers the enabled methods that can sell
// the plan (a card form with a coupon field through Stripe, the bot's link for Telegram Stars,
// nothing for a plan no method sells), a member who is not signed in signs in first and comes back
// to the plan, our coupons are checked before Stripe is asked (each refusal in words, no provider
// call) and become a Stripe coupon on the connected account, a live member is refused without a
// provider call, checkout starts are budgeted per member, a Stripe that does not answer is a
// friendly page, and the twin's completion starts the subscription with the discounted payment and
// the grants, counts the coupon, and turns the success page from "confirming" to "You're in".
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { createCoupon } from "../../src/modules/coupons/coupons.ts";
import { TEST_CARDS, type StripeTwin } from "../../src/simulators/stripe/index.ts";
import { createStripeClient, stripeCouponId } from "../../src/modules/payments/stripe/index.ts";
import { CHECKOUT_MEMBER_BUDGET, PAYMENT_METHOD_UNREADABLE } from "../../src/apps/portal/checkout-page.ts";
import { testDatabase } from "../helpers/backends.ts";
import { useApiWithStripeTwin } from "../helpers/suite.ts";
import { asDomain, codesFor, redeem, seedPlan } from "../modules/subscriptions/commerce.ts";
import { addStarsMethod, connectStripeMethod } from "../modules/payments/methods.ts";
import { PortalBrowser, projectWithPlan, signInThroughBot, startPortal, type PortalProjectFixture } from "./support.ts";

const DAY = 86_400;

describe("subscriber portal: a member pays for a plan", function () {
  this.timeout(120_000);
  const suite = useApiWithStripeTwin({ twin: { merchantName: "Night Owls Club" }, creator: { tier: "growth" } });
  let twin: StripeTwin;
  before(() => (twin = suite.twin));

  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  let methodId: string;
  let account: string;
  /** Plans: the fixture's monthly $5 (card), a trial one (card), one in Stars, a yearly one nobody sells, one for codes only. */
  const plans = { card: "", trial: "", stars: "", yearly: "", codesOnly: "" };
  const stripe = () => suite.stripe;

  before(async () => {
    portal = await startPortal({ stripe: stripe() });
    fixture = await projectWithPlan(suite);
    plans.card = fixture.plan.planId;
    const { db } = await testDatabase();
    ({
      row: { id: methodId },
      account,
    } = await connectStripeMethod(suite.creator, fixture.projectId, { twin, client: stripe().client }));
    await addStarsMethod(suite.creator, fixture.projectId);
    plans.trial = (await seedPlan(suite.creator, { trialDays: 7 })).planId;
    await db("plans").where({ id: plans.trial }).update({ name: "Night Owl trial", amount_minor: 700 });
    plans.stars = (await seedPlan(suite.creator)).planId;
    await db("plans").where({ id: plans.stars }).update({ name: "Night Owl stars", currency: "XTR", amount_minor: 250 });
    plans.yearly = (await seedPlan(suite.creator, { cycle: "year" })).planId;
    await db("plans").where({ id: plans.yearly }).update({ name: "Night Owl yearly" });
    plans.codesOnly = (await seedPlan(suite.creator)).planId;
    await db("plans").where({ id: plans.codesOnly }).update({ name: "Night Owl invite", access_codes_only: true });
  });
  after(() => portal?.close());

  const planPage = (planId: string) => `/${fixture.handle}?plan=${planId}`;
  const checkoutPath = (planId: string) => `/${fixture.handle}/plans/${planId}/checkout`;

  async function member(returnTo?: string) {
    const userId = randomInt(1_000_000, 9_999_999);
    const signedIn = await signInThroughBot(portal.url, suite.api.url, fixture, userId, returnTo);
    return { ...signedIn, userId };
  }

  /** The plan card of `planId` on `page`. */
  function card(page: string, planId: string): string {
    const at = page.indexOf(`id="plan-${planId}"`);
    assert.ok(at >= 0, `no card for ${planId}`);
    return page.slice(at, page.indexOf("</li>\n", page.indexOf('class="pay"', at)));
  }

  async function coupon(input: Parameters<typeof createCoupon>[2]) {
    return asDomain(suite.creator, (ctx) => createCoupon(ctx, fixture.projectId, input));
  }

  it("offers each enabled method that can sell a plan: a card form, the bot's Stars link, or nothing; codes-only plans stay off the page", async () => {
    const guest = await (await fetch(`${portal.url}/${fixture.handle}`)).text();
    assert.doesNotMatch(guest, /Payments are not taken on this page/);
    assert.match(card(guest, plans.card), new RegExp(`href="/${fixture.handle}\\?plan=${plans.card}#sign-in-heading"[^>]*>Sign in to pay by card`));
    assert.doesNotMatch(card(guest, plans.card), /Pay with Telegram Stars/);
    const stars = card(guest, plans.stars);
    assert.ok(stars.includes(`href="${fixture.installation.bot_url}?start=${plans.stars}"`), "Stars through the bot's plan link");
    assert.match(stars, /Pay with Telegram Stars/);
    assert.match(stars, /Coupons apply to card payments only\./);
    assert.doesNotMatch(stars, /pay by card/i);
    assert.match(card(guest, plans.yearly), /This plan cannot be bought online right now\./);
    assert.doesNotMatch(card(guest, plans.yearly), /<form|Pay with/);
    assert.match(card(guest, plans.trial), /7-day free trial, then \$7\.00 every month/);
    assert.ok(!guest.includes(plans.codesOnly), "an access-codes-only plan keeps only the code path");

    const { browser } = await member();
    const signedIn = await browser.get(`/${fixture.handle}`);
    // The card form's answer redirects to Stripe's hosted page: the page's CSP lets a form lead there, and nowhere else.
    assert.match(signedIn.headers.get("content-security-policy")!, new RegExp(`form-action 'self' ${twin.url};`));
    assert.match((await fetch(`${portal.url}/${fixture.handle}`)).headers.get("content-security-policy")!, /form-action 'self';/);
    const page = await signedIn.text();
    const form = card(page, plans.card);
    assert.ok(form.includes(`action="${checkoutPath(plans.card)}"`));
    assert.ok(form.includes(`name="method" value="${methodId}"`));
    assert.match(form, /<label for="coupon-[^"]+">Coupon code/);
    assert.match(form, /name="_csrf"/);
    assert.match(form, /<button type="submit">Pay by card<\/button>/);
    assert.doesNotMatch(card(page, plans.stars), /<form/);
    // Without a CSRF token the checkout is refused.
    assert.equal((await browser.request("POST", checkoutPath(plans.card), { method: methodId })).status, 403);
  });

  it("sends a member who is not signed in to sign in first, and back to the plan afterwards (same origin only)", async () => {
    const guest = new PortalBrowser(portal.url);
    const anonymous = await guest.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`);
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get("location"), `/${fixture.handle}?plan=${plans.card}#sign-in-heading`);
    const picked = await (await fetch(`${portal.url}${planPage(plans.card)}`)).text();
    assert.match(picked, /Pay for it by card below; to pay by card, sign in first and you come back to this plan\./);
    assert.ok(picked.includes(`name="return_to" value="/${fixture.handle}?plan=${plans.card}"`), "the sign-in forms carry the plan");

    assert.equal((await member(planPage(plans.card))).landed, planPage(plans.card));
    for (const elsewhere of ["https://evil.example/steal", "//evil.example/x", "/another-community?plan=1"])
      assert.equal((await member(elsewhere)).landed, `/${fixture.handle}/account`, elsewhere);
  });

  it("refuses a coupon that does not apply, saying why in the plan's form, without asking Stripe", async () => {
    const { db } = await testDatabase();
    await coupon({ code: "OFFNOW", percent_off: 10, active: false });
    const expired = await coupon({ code: "LATE", percent_off: 10 });
    await db("coupons")
      .where({ id: expired.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const used = await coupon({ code: "ONCE", percent_off: 10, max_redemptions: 1 });
    await db("coupons").where({ id: used.id }).update({ redemptions_count: 1 });
    await coupon({ code: "YEARONLY", percent_off: 10, plan_ids: [plans.yearly] });
    await coupon({ code: "EUROS", amount_off: { amount: 100, currency: "EUR" } });
    const { browser } = await member();
    const calls = twin.calls.length;
    const cases: [string, RegExp][] = [
      ["NOPE", /That coupon code is not valid here\. Check it \(capitals count\) or leave it empty\./],
      ["offnow", /That coupon code is not valid here/],
      ["OFFNOW", /That coupon code is not valid here/],
      ["LATE", /That coupon has expired\./],
      ["ONCE", /That coupon has been used as many times as it allows\./],
      ["YEARONLY", /That coupon is not for the Night Owl monthly plan\./],
      ["EUROS", /That coupon takes off an amount in EUR, and this plan is sold in USD\./],
    ];
    for (const [code, reason] of cases) {
      const res = await browser.post(checkoutPath(plans.card), { method: methodId, coupon: code }, `/${fixture.handle}`);
      const page = await res.text();
      assert.equal(res.status, 422, code);
      const form = card(page, plans.card);
      assert.match(form, reason, code);
      assert.match(form, /role="alert"/);
      assert.match(form, new RegExp(`aria-invalid="true"`));
      assert.ok(form.includes(`value="${code}"`), "the typed code is kept");
      assert.match(page, /class="plan highlighted"/);
    }
    assert.equal(twin.calls.length, calls, "Stripe was not asked");
    assert.equal((await db("payment_checkouts").where({ project_id: fixture.projectId, status: "open" }).whereNotNull("coupon_id")).length, 0);
  });

  it("tells a member with a live subscription so, with no checkout and no call to Stripe", async () => {
    const { browser, userId } = await member();
    const [code] = await codesFor(suite.creator, fixture.plan, 1);
    await redeem(suite.creator, fixture.projectId, code!, { connectorKey: "telegram", externalUserId: String(userId), displayName: "Ada" });
    const calls = twin.calls.length;
    const { db } = await testDatabase();
    const before = (await db("payment_checkouts").where({ project_id: fixture.projectId })).length;
    const res = await browser.post(checkoutPath(plans.trial), { method: methodId, coupon: "" }, `/${fixture.handle}`);
    assert.equal(res.status, 409);
    assert.match(await res.text(), /You already have an active membership here\. Nothing was charged; your account page shows your membership\./);
    assert.equal(twin.calls.length, calls);
    assert.equal((await db("payment_checkouts").where({ project_id: fixture.projectId })).length, before);
  });

  it("refuses a plan no card method sells, and one that is not on sale", async () => {
    const { browser } = await member();
    const calls = twin.calls.length;
    for (const planId of [plans.yearly, plans.stars, plans.codesOnly]) {
      const res = await browser.post(checkoutPath(planId), { method: methodId }, `/${fixture.handle}`);
      assert.ok([404, 409].includes(res.status), `${planId}: ${res.status}`);
      assert.match(await res.text(), /not available for this plan|not on sale any more/);
    }
    assert.equal((await browser.post(checkoutPath("not-a-plan"), { method: methodId }, `/${fixture.handle}`)).status, 404);
    assert.equal(twin.calls.length, calls);
  });

  it("answers a payment method field that is not a payment method's id on the plan's page, never a 500 (issue 43)", async () => {
    const { db } = await testDatabase();
    const { browser } = await member();
    const checkouts = async () => Number((await db("payment_checkouts").where({ project_id: fixture.projectId }).count({ n: "*" }))[0]!.n);
    const before = await checkouts();
    const calls = twin.calls.length;
    for (const method of ["not-a-uuid", "", `${methodId}x`, "1' or '1'='1"]) {
      const res = await browser.post(checkoutPath(plans.card), { method }, `/${fixture.handle}`);
      assert.equal(res.status, 422, method);
      const page = await res.text();
      assert.ok(page.includes(PAYMENT_METHOD_UNREADABLE.replace(/'/g, "&#39;")), `${method}: ${page}`);
      assert.match(page, /<h2 id="plans-heading">Plans<\/h2>/, "the plan's page, with its forms");
    }
    // Upper case is the same id.
    const upper = await browser.post(checkoutPath(plans.card), { method: methodId.toUpperCase() }, `/${fixture.handle}`);
    assert.equal(upper.status, 303);
    assert.equal(await checkouts(), before + 1);
    assert.equal(twin.calls.length > calls, true);
  });

  it("pays with a coupon: Stripe's page at the discounted price, then the subscription, the payment, the grants and the redemption", async () => {
    const { db } = await testDatabase();
    const welcome = await coupon({ code: "WELCOME20", percent_off: 20, plan_ids: [plans.card], max_redemptions: 5 });
    const { browser } = await member();
    const started = await browser.post(checkoutPath(plans.card), { method: methodId, coupon: "WELCOME20" }, `/${fixture.handle}`);
    assert.equal(started.status, 303, await started.text());
    const hosted = started.headers.get("location")!;
    assert.ok(hosted.startsWith(`${twin.url}/c/pay/cs_test_`), hosted);
    const checkout = await db("payment_checkouts").where({ project_id: fixture.projectId, coupon_id: welcome.id }).first();
    assert.equal(checkout.status, "open");
    assert.equal(hosted.split("/").pop(), checkout.provider_checkout_id);
    const session = twin.calls.find(
      (c) => c.method === "POST" && c.path === "/v1/checkout/sessions" && c.params.client_reference_id === checkout.id,
    )!;
    assert.equal(session.params.success_url, `${portal.url}/${fixture.handle}/checkout/${checkout.id}`);
    assert.equal(session.params.cancel_url, `${portal.url}${planPage(plans.card)}`);
    assert.deepEqual(session.params.discounts, [{ coupon: stripeCouponId(welcome.id) }]);
    const hostedPage = await (await fetch(hosted)).text();
    assert.match(hostedPage, /\$4\.00/, "Stripe's page shows the discounted total");

    // Back from Stripe with no report in the page's wait: "confirming", a Check again button, and no timed reload.
    const successPath = `/${fixture.handle}/checkout/${checkout.id}`;
    const late = await (await browser.get(successPath)).text();
    assert.match(late, /<h1>Confirming your payment<\/h1>/);
    assert.doesNotMatch(late, /http-equiv="refresh"/);
    assert.match(late, /has not arrived yet/);
    assert.ok(late.includes(`href="${successPath}">Check again</a>`));

    // Back again as Stripe reports the payment: the page waits for the report and answers You're in.
    const coming = browser.get(successPath);
    await twin.completeCheckout(checkout.provider_checkout_id, { card: TEST_CARDS.success });
    assert.match(await (await coming).text(), /<h1>You're in<\/h1>/, "the report arrived within the page's wait");
    await twin.settled();
    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    const subscription = await db("subscriptions").where({ id: done.subscription_id }).first();
    assert.equal(subscription.status, "active");
    assert.equal(subscription.provider, "stripe");
    const payments = await db("transactions").where({ subscription_id: subscription.id, kind: "payment" });
    assert.deepEqual(
      payments.map((p) => [Number(p.amount_minor), p.currency]),
      [[400, "USD"]],
    );
    assert.equal((await db("access_grants").where({ subscription_id: subscription.id })).length, 2);
    assert.equal((await db("coupons").where({ id: welcome.id }).first()).redemptions_count, 1);

    const inside = await (await browser.get(successPath)).text();
    assert.match(inside, /<h1>You're in<\/h1>/);
    assert.match(inside, /<dd>Night Owl monthly<\/dd>/);
    const periodEnd = new Date(subscription.ends_at).toISOString().slice(0, 10);
    assert.match(
      inside,
      new RegExp(`<dt>Next charge</dt>\\s*<dd>\\$5\\.00 every month, from <strong>${periodEnd}</strong> until you cancel\\.</dd>`),
    );
    assert.ok(inside.includes(`href="${fixture.installation.bot_url}?start=project_${fixture.projectId}"`), "how to open the community");
    assert.doesNotMatch(inside, /http-equiv="refresh"/);

    // Anyone else learns nothing: another member, a visitor, a made-up id.
    const { browser: other } = await member();
    for (const [who, path] of [
      [other, successPath],
      [new PortalBrowser(portal.url), successPath],
      [browser, `/${fixture.handle}/checkout/${randomUUID()}`],
    ] as const) {
      const res = await who.get(path);
      const text = await res.text();
      assert.equal(res.status, 404);
      assert.match(text, /There is nothing to show at this address\./);
      assert.doesNotMatch(text, /Night Owl monthly<\/dd>|Confirming/);
    }
  });

  it("says when a checkout expired or did not complete", async () => {
    const { db } = await testDatabase();
    const { browser } = await member();
    const started = await browser.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`);
    assert.equal(started.status, 303);
    const checkout = await db("payment_checkouts")
      .where({ provider_checkout_id: started.headers.get("location")!.split("/").pop() })
      .first();
    const successPath = `/${fixture.handle}/checkout/${checkout.id}`;
    await db("payment_checkouts").where({ id: checkout.id }).update({ status: "expired" });
    assert.match(await (await browser.get(successPath)).text(), /This checkout expired before a payment arrived\. Nothing was charged/);
    await db("payment_checkouts").where({ id: checkout.id }).update({ status: "superseded" });
    assert.match(await (await browser.get(successPath)).text(), /<h1>Not completed<\/h1>[\s\S]*it is refunded/);
  });

  it(`budgets checkout starts: ${CHECKOUT_MEMBER_BUDGET[0]!.limit} in 10 minutes per member, then a page saying how long to wait`, async () => {
    const { browser } = await member();
    for (let i = 0; i < CHECKOUT_MEMBER_BUDGET[0]!.limit; i++)
      assert.equal((await browser.post(checkoutPath(plans.card), { method: methodId, coupon: "NOPE" }, `/${fixture.handle}`)).status, 422);
    const calls = twin.calls.length;
    const limited = await browser.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    assert.match(await limited.text(), /Too many checkouts started\. Wait \d+ seconds, then try again\. Nothing was charged\./);
    assert.equal(twin.calls.length, calls);
    const { browser: another } = await member();
    assert.equal(
      (await another.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`)).status,
      303,
      "another member is not limited",
    );
  });

  it("shows a friendly page when Stripe does not answer, leaving only an open checkout", async () => {
    // A Stripe address where nothing listens.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const client = createStripeClient({ secretKey: twin.secretKey, host: "127.0.0.1", port: closed, protocol: "http" });
    const down = await startPortal({ stripe: { client, webhookSecret: stripe().webhookSecret } });
    try {
      const { browser, userId } = await member();
      const moved = new PortalBrowser(down.url);
      for (const [name, value] of browser.cookies) moved.cookies.set(name, value);
      const res = await moved.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`);
      const page = await res.text();
      assert.equal(res.status, 503);
      assert.match(page, /The payment provider did not answer\. Nothing was charged; try again in a minute\./);
      const { db } = await testDatabase();
      const memberRow = await db("members")
        .where({ project_id: fixture.projectId, external_user_id: String(userId) })
        .first();
      const rows = await db("payment_checkouts").where({ member_id: memberRow.id });
      assert.deepEqual(
        rows.map((r) => [r.status, r.provider_checkout_id]),
        [["open", null]],
      );
      assert.equal((await db("subscriptions").where({ member_id: memberRow.id })).length, 0);
    } finally {
      await down.close();
    }
  });

  it("sells a trial as Stripe's trial: nothing charged now, the plan's price charged at its end", async () => {
    const { db } = await testDatabase();
    const { browser } = await member();
    const started = await browser.post(checkoutPath(plans.trial), { method: methodId }, `/${fixture.handle}`);
    assert.equal(started.status, 303);
    const sessionId = started.headers.get("location")!.split("/").pop()!;
    const checkout = await db("payment_checkouts").where({ provider_checkout_id: sessionId }).first();
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const subscription = await db("subscriptions")
      .where({ id: (await db("payment_checkouts").where({ id: checkout.id }).first()).subscription_id })
      .first();
    assert.equal(subscription.status, "trialing");
    assert.equal(
      (await db("transactions").where({ subscription_id: subscription.id, kind: "payment" })).length,
      0,
      "nothing charged during the trial",
    );
    const inside = await (await browser.get(`/${fixture.handle}/checkout/${checkout.id}`)).text();
    const trialEnd = new Date(subscription.trial_ends_at).toISOString().slice(0, 10);
    assert.ok(inside.includes(`Your free trial runs until <strong>${trialEnd}</strong>; then $7.00 every month, first charged that day.`), inside);

    await twin.advanceClock(8 * DAY);
    await twin.settled();
    const charged = await db("transactions").where({ subscription_id: subscription.id, kind: "payment" });
    assert.deepEqual(
      charged.map((p) => Number(p.amount_minor)),
      [700],
    );
    assert.equal((await db("subscriptions").where({ id: subscription.id }).first()).status, "active");
  });

  it("gives a plan's trial once per member and project: cancelled during the trial and back, the member pays from the first day", async () => {
    const { db } = await testDatabase();
    const { browser } = await member();
    const first = await browser.post(checkoutPath(plans.trial), { method: methodId }, `/${fixture.handle}`);
    const firstSession = first.headers.get("location")!.split("/").pop()!;
    await twin.completeCheckout(firstSession, { card: TEST_CARDS.success });
    await twin.settled();
    const trial = await db("subscriptions")
      .where({ id: (await db("payment_checkouts").where({ provider_checkout_id: firstSession }).first()).subscription_id })
      .first();
    assert.equal(trial.status, "trialing");
    const cancelPath = `/${fixture.handle}/subscriptions/${trial.id}/cancel`;
    assert.equal((await browser.post(cancelPath, {}, cancelPath)).status, 200);
    assert.equal((await db("subscriptions").where({ id: trial.id }).first()).status, "canceled");

    const page = await (await browser.get(`/${fixture.handle}`)).text();
    assert.match(card(page, plans.trial), /You have had this community's free trial: \$7\.00 every month, paid from the first day/);
    const again = await browser.post(checkoutPath(plans.trial), { method: methodId }, `/${fixture.handle}`);
    assert.equal(again.status, 303);
    const secondSession = again.headers.get("location")!.split("/").pop()!;
    const checkout = await db("payment_checkouts").where({ provider_checkout_id: secondSession }).first();
    assert.equal(checkout.trial_days, 0, "no second trial is offered");
    await twin.completeCheckout(secondSession, { card: TEST_CARDS.success });
    await twin.settled();
    const paid = await db("subscriptions")
      .where({ id: (await db("payment_checkouts").where({ id: checkout.id }).first()).subscription_id })
      .first();
    assert.deepEqual([paid.status, paid.trial_ends_at], ["active", null], "paid at once, no trial at Stripe either");
    assert.deepEqual(
      (await db("transactions").where({ subscription_id: paid.id, kind: "payment" })).map((t) => Number(t.amount_minor)),
      [700],
    );
  });

  // Last: it takes the project's card method away.
  it("a creator who disconnected SubBridge in Stripe, its event lost: the member is told plainly, the method goes off, the creator is alerted once", async () => {
    await twin.deauthorize(account, { eventLost: true });
    const { browser } = await member();
    const refused = await browser.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`);
    assert.equal(refused.status, 409);
    assert.match(await refused.text(), /This community cannot take card payments right now; its creator has been told\. Nothing was charged\./);
    const { db } = await testDatabase();
    assert.equal((await db("payment_methods").where({ id: methodId }).first()).enabled, false);
    const alerts = async () =>
      (await db("creator_alerts").where({ user_id: suite.creator.userId, about_project_id: fixture.projectId, class: "recovery" })).filter(
        (a: { title: string }) => a.title.endsWith("Stripe was disconnected"),
      );
    assert.equal((await alerts()).length, 1);
    const again = await browser.post(checkoutPath(plans.card), { method: methodId }, `/${fixture.handle}`);
    assert.equal(again.status, 409, "the method is off: no call to Stripe");
    assert.equal((await alerts()).length, 1);
  });
});
