// The creator's own tier billed through Stripe on the platform account (issue 33, item 5), in
// process with the Stripe twin: the owner upgrades from the billing page (Checkout paid → Starter,
// billing.tier_changed on every team they own, delivered only to endpoints the owner registered),
// changes plan (the prorated difference charged; a declined card changes nothing), cancels (Free
// when the period ends), and a failed renewal keeps the tier through the grace, then falls back.
// Repeated and late events change nothing; a non-owner is refused; a bad signature is a 400.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type Stripe from "stripe";
import { billingEventsUrl, setUpSimulatedBilling } from "../../../src/modules/billing/stripe-setup.ts";
import { BILLING_GRACE_MS, endPastGraces } from "../../../src/modules/billing/tier-subscription.ts";
import { startStripeTwin, TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import type { StripePayments } from "../../../src/modules/payments/stripe/stripe-payments.ts";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { createTestCreator, joinTeamWithToken, TEST_PASSWORD, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import type { StartOptions } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createEndpoint } from "../webhooks/support.ts";

const DAY_S = 86400;

describe("billing: the creator's own tier through Stripe", function () {
  this.timeout(90_000);
  let twin: StripeTwin;
  const apiOptions: StartOptions = {};
  before(async () => {
    twin = await startStripeTwin();
    apiOptions.stripeTwin = twin;
  });
  const suite = useApiWithCreator({ api: apiOptions, creator: { tier: "free" } });
  let auth: Awaited<ReturnType<typeof startAuth>>;
  const stripe = () => suite.api.deps.stripe as StripePayments;
  before(async () => {
    // As a simulated start does (open.ts): the tiers' prices and the platform endpoint on the twin.
    stripe().billing = await setUpSimulatedBilling(stripe().client, suite.api.url);
    auth = await startAuth({ stripe: stripe(), clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  });
  after(async () => {
    await auth?.close();
    await twin?.close();
  });

  async function signedIn(creator: TestCreator): Promise<FormBrowser> {
    const browser = new FormBrowser(auth.url);
    const res = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(res.status, 302);
    return browser;
  }

  async function tierOf(creator: TestCreator): Promise<string> {
    const { db } = await testDatabase();
    return ((await db("users").where({ id: creator.userId }).first("tier")) as { tier: string }).tier;
  }

  async function billingRow(creator: TestCreator) {
    const { db } = await testDatabase();
    return db("creator_billing").where({ user_id: creator.userId }).first();
  }

  /** The owner upgrades from the billing page and pays on the twin's hosted page; answers the page's return address. */
  async function upgrade(browser: FormBrowser, creator: TestCreator, tier: "starter" | "growth", card: string = TEST_CARDS.success) {
    const res = await browser.post("/billing/checkout", { team_id: creator.teamId, tier }, "/billing");
    assert.equal(res.status, 303, await res.text());
    const pay = new URL(res.headers.get("location")!);
    assert.equal(pay.origin, twin.url);
    const sessionId = pay.pathname.split("/").at(-1)!;
    const back = await twin.completeCheckout(sessionId, { card });
    await twin.settled();
    return new URL(back!);
  }

  async function billingDeliveries() {
    return twin.deliveries.filter((d) => d.url === billingEventsUrl(suite.api.url));
  }

  it("Free → Starter: the paid checkout makes the owner Starter, with billing.tier_changed on every team they own", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ tier: "free" });
    const otherTeam = randomUUID();
    await db("teams").insert({ id: otherTeam, name: "Second team", owner_user_id: creator.userId, personal: false, created_at: new Date() });
    const browser = await signedIn(creator);
    const page = await (await browser.get("/billing")).text();
    assert.match(page, /Your tier: Free/);
    assert.match(page, /\$19\.00 a month/);
    assert.match(page, /Upgrade to Starter/);

    const back = await upgrade(browser, creator, "starter");
    assert.ok(
      (await billingDeliveries()).every((d) => d.status === 200),
      JSON.stringify(await billingDeliveries()),
    );
    assert.equal(await tierOf(creator), "starter");
    for (const team of [creator.teamId, otherTeam]) {
      const events = await eventsOf(team, "billing.tier_changed");
      assert.equal(events.length, 1, `one event on team ${team}`);
      assert.equal(events[0]!.project_id, null);
      assert.deepEqual(events[0]!.data.billing, { user_id: creator.userId, previous_tier: "free", tier: "starter", reason: "subscribed" });
      assertValidEvent(events[0]!);
    }
    const row = await billingRow(creator);
    assert.equal(row.subscription_status, "active");
    assert.match(row.stripe_customer_id, /^cus_/);

    // The return page re-reads the session (already applied: nothing more) and lands on the page.
    const returned = await browser.get(`${back.pathname}${back.search}`);
    assert.equal(returned.status, 302);
    assert.match(returned.headers.get("location")!, /done=paid/);
    const after = await (await browser.get(returned.headers.get("location")!)).text();
    assert.match(after, /Your tier: Starter/);
    assert.match(after, /renews on \d{4}-\d{2}-\d{2}/);
    assert.equal((await eventsOf(creator.teamId, "billing.tier_changed")).length, 1);

    // The customer is remembered: one per creator.
    const customers = await stripe().client.customers.list({ limit: 100 });
    assert.equal(customers.data.filter((c) => c.metadata.subbridge_user_id === creator.userId).length, 1);
  });

  it("delivers billing.* only to endpoints registered by the team's owner (the holder of billing:read)", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ tier: "free" });
    const member = await createTestCreator({ tier: "free" });
    await joinTeamWithToken(creator, member, ["webhook-endpoint:view-any"]);
    const client = new ApiClient(suite.api.url, creator.token);
    const owners = (await createEndpoint(client, { events: ["billing.*"] })).data;
    const byName = (await createEndpoint(client, { events: ["billing.tier_changed"] })).data;
    // An endpoint whose registering member holds no billing:read (an admin cannot: it is the owner's alone).
    const members = (await createEndpoint(client, { events: ["billing.*"] })).data;
    await db("webhook_endpoints").where({ id: members.id }).update({ created_by_user_id: member.userId });

    await upgrade(await signedIn(creator), creator, "growth");
    assert.equal(await tierOf(creator), "growth");
    const [event] = await eventsOf(creator.teamId, "billing.tier_changed");
    assert.ok(event);
    const queued = (await db("webhook_deliveries").where({ event_id: event.id }).select("endpoint_id")) as { endpoint_id: string }[];
    assert.deepEqual(queued.map((d) => d.endpoint_id).sort(), [owners.id, byName.id].sort());

    // Subscribing to a billing event by name needs billing:read as billing.* does.
    const { token } = await tokenFor(creator, ["webhook-endpoint:create"]);
    const refused = await new ApiClient(suite.api.url, token).post("/v1/webhook-endpoints", {
      name: "No billing",
      url: "https://hooks.example.com/in",
      events: ["billing.tier_changed"],
    });
    assert.equal(expectError(refused, 403, "TOKEN_MISSING_ABILITY").context.required_ability, "billing:read");
  });

  it("Starter → Growth charges the prorated difference and changes the tier; a declined card changes nothing", async () => {
    const creator = await createTestCreator({ tier: "free" });
    const browser = await signedIn(creator);
    await upgrade(browser, creator, "starter");
    const subscription = (await billingRow(creator)).stripe_subscription_id as string;

    twin.failNextPayment(subscription);
    const declined = await browser.post("/billing/change", { team_id: creator.teamId, tier: "growth" }, "/billing");
    assert.equal(declined.status, 402);
    assert.match(await declined.text(), /Your card was declined.*Nothing changed/);
    await twin.settled();
    assert.equal(await tierOf(creator), "starter");
    const unchanged = await stripe().client.subscriptions.retrieve(subscription);
    assert.equal(unchanged.items.data[0]!.price.id, stripe().billing!.prices.starter);

    const changed = await browser.post("/billing/change", { team_id: creator.teamId, tier: "growth" }, "/billing");
    assert.equal(changed.status, 302, await changed.text());
    await twin.settled();
    assert.equal(await tierOf(creator), "growth");
    const events = await eventsOf(creator.teamId, "billing.tier_changed");
    assert.deepEqual(
      events.map((e) => [e.data.billing.previous_tier, e.data.billing.tier, e.data.billing.reason]),
      [
        ["free", "starter", "subscribed"],
        ["starter", "growth", "plan_changed"],
      ],
    );
    const invoices = await stripe().client.invoices.list({ customer: (await billingRow(creator)).stripe_customer_id, limit: 10 });
    const proration = invoices.data.find((i) => i.billing_reason === "subscription_update" && i.status === "paid");
    // Almost the whole month remains: close to the 3000 difference between 4900 and 1900.
    assert.ok(
      proration && proration.amount_paid > 2900 && proration.amount_paid <= 3000,
      JSON.stringify(invoices.data.map((i) => [i.billing_reason, i.status, i.amount_due])),
    );
    assert.match(await (await browser.get("/billing")).text(), /Growth, \$49\.00 a month, renews on/);
  });

  it("a cancellation keeps the tier until the period ends, then Free", async () => {
    const creator = await createTestCreator({ tier: "free" });
    const browser = await signedIn(creator);
    await upgrade(browser, creator, "starter");
    const cancelled = await browser.post("/billing/cancel", { team_id: creator.teamId }, "/billing");
    assert.equal(cancelled.status, 302);
    await twin.settled();
    assert.equal(await tierOf(creator), "starter");
    const [notice] = await eventsOf(creator.teamId, "billing.subscription_cancelled");
    assert.ok(notice);
    assert.equal(notice.data.billing.tier, "starter");
    assertValidEvent(notice);
    assert.match(await (await browser.get("/billing")).text(), /Cancelled: Starter .* ends on/);

    await twin.advanceClock(32 * DAY_S);
    await twin.settled();
    assert.equal(await tierOf(creator), "free");
    const last = (await eventsOf(creator.teamId, "billing.tier_changed")).at(-1)!;
    assert.deepEqual([last.data.billing.previous_tier, last.data.billing.tier, last.data.billing.reason], ["starter", "free", "subscription_ended"]);
  });

  it("a failed renewal keeps the tier through the grace, then Free; a later payment brings it back", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ tier: "free" });
    await upgrade(await signedIn(creator), creator, "starter");
    const subscription = (await billingRow(creator)).stripe_subscription_id as string;
    twin.failNextPayment(subscription);
    await twin.advanceClock(32 * DAY_S);
    await twin.settled();
    const row = await billingRow(creator);
    assert.equal(row.subscription_status, "past_due");
    assert.equal(await tierOf(creator), "starter");
    const [failed] = await eventsOf(creator.teamId, "billing.payment_failed");
    assert.ok(failed);
    assertValidEvent(failed);
    const graceEnd = new Date(row.grace_ends_at).getTime();
    const sub = await stripe().client.subscriptions.retrieve(subscription);
    assert.equal(graceEnd, sub.items.data[0]!.current_period_start * 1000 + BILLING_GRACE_MS);

    assert.deepEqual(await endPastGraces(db, new Date(graceEnd - 60_000)), { changed: 0 });
    assert.equal(await tierOf(creator), "starter");
    assert.deepEqual(await endPastGraces(db, new Date(graceEnd)), { changed: 1 });
    assert.deepEqual(await endPastGraces(db, new Date(graceEnd)), { changed: 0 });
    assert.equal(await tierOf(creator), "free");
    const fell = (await eventsOf(creator.teamId, "billing.tier_changed")).at(-1)!;
    assert.deepEqual([fell.data.billing.tier, fell.data.billing.reason], ["free", "payment_grace_ended"]);

    // Stripe's retry three days later pays: invoice.paid, the subscription active again, the tier back.
    await twin.advanceClock(3 * DAY_S);
    await twin.settled();
    assert.equal(await tierOf(creator), "starter");
    assert.equal((await billingRow(creator)).subscription_status, "active");
  });

  it("when every retry fails Stripe ends the subscription and the owner is on Free", async () => {
    const creator = await createTestCreator({ tier: "free" });
    await upgrade(await signedIn(creator), creator, "growth");
    const subscription = (await billingRow(creator)).stripe_subscription_id as string;
    // A day at a time, every charge failing: the renewal, then Stripe's retries 3, 5 and 7 days later.
    let keptThroughRetries = false;
    for (let day = 0; day < 45 && (await billingRow(creator)).subscription_status !== "canceled"; day++) {
      twin.failNextPayment(subscription);
      await twin.advanceClock(DAY_S);
      await twin.settled();
      if ((await billingRow(creator)).subscription_status === "past_due") keptThroughRetries ||= (await tierOf(creator)) === "growth";
    }
    assert.ok(keptThroughRetries, "the tier is kept while Stripe retries");
    assert.equal((await billingRow(creator)).subscription_status, "canceled");
    assert.equal(await tierOf(creator), "free");
    const last = (await eventsOf(creator.teamId, "billing.tier_changed")).at(-1)!;
    assert.deepEqual([last.data.billing.tier, last.data.billing.reason], ["free", "subscription_ended"]);
  });

  /** Posts `event` to the billing route as Stripe would, signed with `secret`. */
  function post(event: unknown, secret: string) {
    const payload = JSON.stringify(event);
    return fetch(billingEventsUrl(suite.api.url), {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": stripe().client.webhooks.generateTestHeaderString({ payload, secret }) },
      body: payload,
    });
  }

  it("a repeated event changes nothing, and a late one cannot revive an ended subscription", async () => {
    const { db } = await testDatabase();
    const creator = await createTestCreator({ tier: "free" });
    await upgrade(await signedIn(creator), creator, "starter");
    const subscription = (await billingRow(creator)).stripe_subscription_id as string;
    const paid = twin.events.find(
      (e) => e.type === "invoice.paid" && (e.data as { object: Stripe.Invoice }).object.parent?.subscription_details?.subscription === subscription,
    )!;
    await stripe().client.subscriptions.cancel(subscription);
    await twin.settled();
    assert.equal(await tierOf(creator), "free");
    const before = (await eventsOf(creator.teamId)).length;

    // The same deletion again: answered 200, stored once, nothing changes.
    const deleted = twin.events.find(
      (e) => e.type === "customer.subscription.deleted" && (e.data as { object: { id: string } }).object.id === subscription,
    )!;
    const again = await post(deleted, stripe().billing!.webhookSecret);
    assert.equal(again.status, 200);
    assert.equal(
      Number((await db("payment_provider_events").where({ provider: "stripe_billing", event_id: deleted.id }).count({ n: "*" }))[0]!.n),
      1,
    );

    // The payment's event arriving after the deletion (another delivery, its own id): the re-read says canceled.
    const late = await post({ ...paid, id: `evt_late${randomUUID().replace(/-/g, "")}` }, stripe().billing!.webhookSecret);
    assert.equal(late.status, 200);
    const checkout = twin.events.find(
      (e) => e.type === "checkout.session.completed" && (e.data as { object: Stripe.Checkout.Session }).object.subscription === subscription,
    )!;
    assert.equal((await post({ ...checkout, id: `evt_late${randomUUID().replace(/-/g, "")}` }, stripe().billing!.webhookSecret)).status, 200);
    assert.equal(await tierOf(creator), "free");
    assert.equal((await eventsOf(creator.teamId)).length, before);
  });

  it("refuses a bad signature with 400 PROVIDER_SIGNATURE_INVALID and stores nothing", async () => {
    const { db } = await testDatabase();
    const event = twin.events.find((e) => e.type === "invoice.paid")!;
    const forged = { ...event, id: `evt_forged${randomUUID().replace(/-/g, "")}` };
    const res = await post(forged, "whsec_not_the_endpoints_secret");
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, "PROVIDER_SIGNATURE_INVALID");
    const missing = await fetch(billingEventsUrl(suite.api.url), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.equal(missing.status, 400);
    // Headers the library cannot compare (an empty or non-ASCII v1) are refused alike, never a 500 (issue 43).
    for (const header of ["t=1,v1=", "t=1,v1", `t=1,v1=${"\u00e9".repeat(64)}`]) {
      const unreadable = await fetch(billingEventsUrl(suite.api.url), {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": header },
        body: JSON.stringify(forged),
      });
      assert.equal(unreadable.status, 400, header);
      assert.equal(((await unreadable.json()) as { error: { code: string } }).error.code, "PROVIDER_SIGNATURE_INVALID");
    }
    assert.equal((await db("payment_provider_events").where({ event_id: forged.id })).length, 0);
  });

  it("shows and changes a team's billing only to its owner", async () => {
    const owner = await createTestCreator({ tier: "free" });
    const member = await createTestCreator({ tier: "free" });
    await joinTeamWithToken(owner, member, ["project:view-any"]);
    const browser = await signedIn(member);
    const page = await browser.get(`/billing?team=${owner.teamId}`);
    assert.equal(page.status, 403);
    assert.match(await page.text(), /only the owner of .* sees and changes its billing/);
    const checkout = await browser.post("/billing/checkout", { team_id: owner.teamId, tier: "growth" }, "/billing");
    assert.equal(checkout.status, 403);
    assert.equal(await tierOf(owner), "free");
    // The member's own team is theirs: its page opens.
    assert.equal((await browser.get(`/billing?team=${member.teamId}`)).status, 200);
  });
});
