// A member cancels from the portal (issue 33): the account page links each live subscription to a
// confirmation page saying what happens, whose button (CSRF) cancels through the domain path of
// cancel_subscription: the provider's renewals stop first (the Stripe twin's subscription is
// cancel_at_period_end; Telegram's editUserStarSubscription is called), then the subscription is
// cancelled at period end with the member as the causer, access kept until ends_at and ended by the
// expiry job. A code-granted one needs no provider; another member's is not found; a provider that
// cannot be reached changes nothing.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { findOrCreateMember } from "../../src/modules/members/members.ts";
import { noteProviderCheckout, openCheckout } from "../../src/modules/payments/checkouts.ts";
import { providerRegistry } from "../../src/modules/payments/providers.ts";
import { TEST_CARDS, type StripeTwin } from "../../src/simulators/stripe/index.ts";
import type { PaymentMethodRow } from "../../src/modules/payment-methods/tables.ts";
import { plansTable, type PlanRow } from "../../src/modules/plans/tables.ts";
import { scheduledJobs } from "../../src/modules/subscriptions/jobs.ts";
import { testDatabase } from "../helpers/backends.ts";
import { eventsOf, assertValidEvent } from "../helpers/events.ts";
import { testPlatform, testPlatformEndpoints } from "../helpers/platforms.ts";
import { TEST_APP_KEY } from "../helpers/server.ts";
import { useApiWithStripeTwin } from "../helpers/suite.ts";
import { activityOf, asDomain, codesFor, runJob, seedPlan } from "../modules/subscriptions/commerce.ts";
import { addStarsMethod, connectStripeMethod } from "../modules/payments/methods.ts";
import { botStart, projectWithPlan, signedInAs, startPortal, type PortalProjectFixture } from "./support.ts";

describe("subscriber portal: a member cancels a subscription", function () {
  this.timeout(120_000);
  const suite = useApiWithStripeTwin({ creator: { tier: "growth" } });
  let twin: StripeTwin;
  before(() => (twin = suite.twin));

  let portal: Awaited<ReturnType<typeof startPortal>>;
  /** The same portal without Stripe: a Stripe-billed subscription's provider cannot be reached from it. */
  let portalWithoutStripe: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  let stripeMethod: PaymentMethodRow;
  let starsPlanId: string;
  const stripe = () => suite.stripe;

  before(async () => {
    portal = await startPortal({ stripe: stripe() });
    portalWithoutStripe = await startPortal();
    fixture = await projectWithPlan(suite);
    const { db } = await testDatabase();
    stripeMethod = (await connectStripeMethod(suite.creator, fixture.projectId, { twin, client: stripe().client })).row;
    await addStarsMethod(suite.creator, fixture.projectId);
    starsPlanId = (await seedPlan(suite.creator)).planId;
    await db("plans").where({ id: starsPlanId }).update({ currency: "XTR", amount_minor: 250 });
  });
  after(() => Promise.all([portal?.close(), portalWithoutStripe?.close()]));

  const newUser = () => randomInt(10_000_000, 99_999_999);

  /** The member `userId`'s subscription, paid on the Stripe twin through a checkout of the fixture's plan. */
  async function stripeSubscription(userId: number): Promise<string> {
    const { db } = await testDatabase();
    const registry = providerRegistry({
      db,
      stripe: stripe().client,
      connectors: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY },
    });
    const target = (await registry.providerFor(stripeMethod))!;
    const { checkout, planRow } = await asDomain(
      suite.creator,
      async (ctx) => {
        const account = { connectorKey: "telegram", externalUserId: String(userId), displayName: "Ada Member" };
        const { member } = await findOrCreateMember(ctx, fixture.projectId, account);
        const planRow = (await plansTable.rows(ctx).where({ id: fixture.plan.planId }).first()) as PlanRow;
        const opened = await openCheckout(ctx, {
          member,
          plan: planRow,
          provider: "stripe",
          paymentMethodId: stripeMethod.id,
          providerAccount: target.method.account,
        });
        return { checkout: opened.checkout, planRow };
      },
      { system: true },
    );
    const price = { amountMinor: 500, currency: "USD", cycle: planRow.billing_cycle, cycleCount: 1, trialDays: 0 };
    const started = await target.provider.startCheckout(target.method, {
      reference: checkout.id,
      planName: planRow.name,
      price,
      successUrl: "https://portal.example/paid",
      cancelUrl: "https://portal.example/plans",
    });
    // As the portal does once Stripe has answered: the session is the one the payment must be made in.
    await asDomain(suite.creator, (ctx) => noteProviderCheckout(ctx, checkout.id, started.providerCheckoutId!), { system: true });
    await twin.completeCheckout(started.providerCheckoutId!, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.ok(subscription_id, "the twin's event started the subscription");
    return subscription_id as string;
  }

  /** The member `userId`'s subscription, paid in Stars: the bot's plan link, then the simulated member pays the invoice. */
  async function starsSubscription(userId: number): Promise<string> {
    const reply = await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, userId, starsPlanId);
    const link = /Pay with Telegram Stars: (\S+)/.exec(reply)?.[1];
    assert.ok(link, reply);
    const paid = await (await testPlatform()).payInvoice({ invoice: link, user: { id: userId, first_name: "Ada" } });
    assert.equal(paid.status, "paid", JSON.stringify(paid));
    return (await liveOf(userId)).id;
  }

  /** The member `userId`'s subscription from an access code redeemed through the bot. */
  async function codeSubscription(userId: number): Promise<string> {
    const [code] = await codesFor(suite.creator, fixture.plan, 1);
    assert.match(await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, userId, code!), /worked/);
    return (await liveOf(userId)).id;
  }

  async function liveOf(userId: number) {
    const { db } = await testDatabase();
    const row = await db("subscriptions")
      .join("members", "members.id", "subscriptions.member_id")
      .where({ "members.project_id": fixture.projectId, "members.external_user_id": String(userId) })
      .orderBy("subscriptions.created_at", "desc")
      .first("subscriptions.*");
    assert.ok(row, `a subscription of ${userId}`);
    return row;
  }

  const cancelPath = (id: string) => `/${fixture.handle}/subscriptions/${id}/cancel`;

  it("cancels a code-granted subscription after a confirmation page; the member is the causer, access kept until ends_at", async () => {
    const { db } = await testDatabase();
    const userId = newUser();
    const id = await codeSubscription(userId);
    const before = await db("subscriptions").where({ id }).first();
    const browser = await signedInAs(portal.url, suite.api.url, fixture, userId);
    const account = await (await browser.get(`/${fixture.handle}/account`)).text();
    assert.ok(account.includes(`href="${cancelPath(id)}"`), "the account page links the live subscription to its cancellation");

    const shown = await browser.get(cancelPath(id));
    const page = await shown.text();
    assert.equal(shown.status, 200, page.slice(0, 400));
    assert.match(page, /Night Owl monthly/);
    assert.match(page, /Nothing is charged for it, and it does not continue after its period\./);
    const until = new Date(before.ends_at).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
    assert.ok(page.includes(`You keep your access until ${until}; then it ends.`), page);
    assert.equal((await db("subscriptions").where({ id }).first()).status, "active", "showing the page changes nothing");

    // Without the page's CSRF token: refused, nothing changes.
    assert.equal((await browser.request("POST", cancelPath(id), {})).status, 403);
    assert.equal((await db("subscriptions").where({ id }).first()).status, "active");

    const done = await browser.post(cancelPath(id), {}, cancelPath(id));
    const answer = await done.text();
    assert.equal(done.status, 200, answer.slice(0, 400));
    assert.match(answer, /Your subscription is cancelled\./);
    const after = await db("subscriptions").where({ id }).first();
    assert.equal(after.status, "canceled");
    assert.equal(new Date(after.ends_at).getTime(), new Date(before.ends_at).getTime(), "access kept until the period's end");
    const member = await db("members").where({ id: after.member_id }).first();
    const entry = (await activityOf(suite.creator.teamId, id)).find((e) => e.event === "cancelled") as Record<string, unknown> | undefined;
    assert.ok(entry, "an activity entry");
    assert.deepEqual([entry.causer_type, entry.causer_id, entry.actor_kind], ["member", member.id, "human"]);
    const events = (await eventsOf(suite.creator.teamId, "subscription.cancelled")).filter((e) => e.data.subscription.id === id);
    assert.equal(events.length, 1);
    assertValidEvent(events[0]!);

    // Again: already cancelled, said so; the account page no longer offers it.
    const again = await (await browser.get(cancelPath(id))).text();
    assert.match(again, /already cancelled: your access continues until/);
    assert.doesNotMatch(again, /type="submit" class="danger"/);
    const repeated = await browser.post(cancelPath(id), {}, `/${fixture.handle}/account`);
    assert.match(await repeated.text(), /already cancelled/);
    assert.equal((await eventsOf(suite.creator.teamId, "subscription.cancelled")).filter((e) => e.data.subscription.id === id).length, 1);
    assert.ok(!(await (await browser.get(`/${fixture.handle}/account`)).text()).includes(`href="${cancelPath(id)}"`));
  });

  it("cancels a Stripe-billed subscription at Stripe first (cancel_at_period_end), keeps access until ends_at, then the expiry job ends it", async () => {
    const { db } = await testDatabase();
    const userId = newUser();
    const id = await stripeSubscription(userId);
    const browser = await signedInAs(portal.url, suite.api.url, fixture, userId);
    assert.match(await (await browser.get(cancelPath(id))).text(), /Renewals stop: Stripe does not charge you again\./);
    const done = await browser.post(cancelPath(id), {}, cancelPath(id));
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Your subscription is cancelled\./);
    const row = await db("subscriptions").where({ id }).first();
    assert.equal(row.status, "canceled");
    const account = (await providerRegistry({
      db,
      stripe: stripe().client,
      connectors: { platforms: await testPlatformEndpoints(), appKey: TEST_APP_KEY },
    }).providerFor(stripeMethod))!.method.account;
    const atStripe = await stripe().client.subscriptions.retrieve(row.provider_subscription_id, {}, { stripeAccount: account });
    assert.equal(atStripe.cancel_at_period_end, true, "Stripe will not renew it");
    await twin.settled();
    const settled = await db("subscriptions").where({ id }).first();
    assert.equal(settled.status, "canceled");
    assert.equal(new Date(settled.ends_at).getTime(), new Date(row.ends_at).getTime(), "Stripe's own report changes nothing more");
    assert.ok(new Date(settled.ends_at).getTime() > Date.now(), "access continues");

    await runJob(scheduledJobs, "subscriptions.expire", new Date(new Date(settled.ends_at).getTime() - 60_000));
    assert.equal((await db("subscriptions").where({ id }).first()).status, "canceled", "still in its period");
    await runJob(scheduledJobs, "subscriptions.expire", new Date(new Date(settled.ends_at).getTime() + 60_000));
    assert.equal((await db("subscriptions").where({ id }).first()).status, "expired");
  });

  it("cancels a Stars subscription: Telegram is told to stop charging (editUserStarSubscription)", async () => {
    const { db } = await testDatabase();
    const userId = newUser();
    const id = await starsSubscription(userId);
    const browser = await signedInAs(portal.url, suite.api.url, fixture, userId);
    assert.match(await (await browser.get(cancelPath(id))).text(), /Renewals stop: Telegram stops charging your Stars for this subscription\./);
    const mark = (await testPlatform()).calls.length;
    const done = await browser.post(cancelPath(id), {}, cancelPath(id));
    assert.equal(done.status, 200);
    const edits = (await testPlatform()).calls.slice(mark).filter((c) => c.name === "editUserStarSubscription");
    assert.equal(edits.length, 1);
    assert.equal(String(edits[0]!.params.user_id), String(userId));
    assert.equal(edits[0]!.params.is_canceled, true);
    assert.equal((await db("subscriptions").where({ id }).first()).status, "canceled");
  });

  it("changes nothing when the provider cannot be reached, and says so", async () => {
    const { db } = await testDatabase();
    const userId = newUser();
    const id = await stripeSubscription(userId);
    const browser = await signedInAs(portalWithoutStripe.url, suite.api.url, fixture, userId);
    const refused = await browser.post(cancelPath(id), {}, cancelPath(id));
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /Stripe could not be reached to stop the renewals, so nothing was changed: you are still subscribed\./);
    assert.equal((await db("subscriptions").where({ id }).first()).status, "active");
    assert.equal((await eventsOf(suite.creator.teamId, "subscription.cancelled")).filter((e) => e.data.subscription.id === id).length, 0);
  });

  it("finds only the member's own subscription: another member's answers 404 and stays live", async () => {
    const { db } = await testDatabase();
    const owner = newUser();
    const id = await codeSubscription(owner);
    const stranger = await signedInAs(portal.url, suite.api.url, fixture, newUser());
    assert.equal((await stranger.get(cancelPath(id))).status, 404);
    assert.equal((await stranger.post(cancelPath(id), {}, `/${fixture.handle}/account`)).status, 404);
    assert.equal((await stranger.get(cancelPath("not-a-uuid"))).status, 404);
    assert.equal((await db("subscriptions").where({ id }).first()).status, "active");
    // Signed out: sent to sign in, nothing changes.
    const guest = await portal.url;
    const res = await fetch(`${guest}${cancelPath(id)}`, { redirect: "manual" });
    assert.equal(res.status, 303);
  });
});
