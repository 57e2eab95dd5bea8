// A member buys a pass on the portal (issue 46): the plan card lists the windows not yet ended with
// their seats left and the card form asks for one; a window of capacity 1 refuses the second buyer
// (409, said on the plan page, no checkout, no Stripe call); a form without a window is 422; Stars
// are not offered for a pass plan and the bot sends it to the portal; the twin's payment starts a
// pass that ends with the window and grants nothing before it opens.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { TEST_CARDS, type StripeTwin } from "../../../src/simulators/stripe/index.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { useApiWithStripeTwin } from "../../helpers/suite.ts";
import { addStarsMethod, connectStripeMethod } from "../payments/methods.ts";
import { DAY, seedPlan } from "../subscriptions/commerce.ts";
import { botStart, projectWithPlan, signInThroughBot, startPortal, type PortalProjectFixture } from "../../portal/support.ts";

describe("pass windows on the portal: a member picks a window, capacity holds", function () {
  this.timeout(120_000);
  const suite = useApiWithStripeTwin({ twin: { merchantName: "Night Owls Club" }, creator: { tier: "growth" } });
  let twin: StripeTwin;
  let portal: Awaited<ReturnType<typeof startPortal>>;
  let fixture: PortalProjectFixture;
  let methodId: string;
  let planId: string;
  let windowId: string;
  let laterId: string;
  const start = new Date(Date.now() + 3 * DAY);
  const end = new Date(Date.now() + 5 * DAY);

  before(async () => {
    twin = suite.twin;
    portal = await startPortal({ stripe: suite.stripe });
    fixture = await projectWithPlan(suite);
    ({
      row: { id: methodId },
    } = await connectStripeMethod(suite.creator, fixture.projectId, { twin, client: suite.stripe.client }));
    await addStarsMethod(suite.creator, fixture.projectId);
    const { db } = await testDatabase();
    const later = [new Date(Date.now() + 10 * DAY), new Date(Date.now() + 11 * DAY)] as [Date, Date];
    const past = [new Date(Date.now() - 3 * DAY), new Date(Date.now() - 2 * DAY)] as [Date, Date];
    planId = (await seedPlan(suite.creator, { windows: [[start, end], later, past] })).planId;
    await db("plans").where({ id: planId }).update({ name: "Winter workshop" });
    const windows = await db("pass_windows").where({ plan_id: planId }).orderBy("starts_at");
    windowId = windows[1].id;
    laterId = windows[2].id;
    await db("pass_windows").where({ id: windowId }).update({ name: "December", capacity: 1 });
    await db("pass_windows").where({ id: laterId }).update({ name: "January", capacity: 20 });
    await db("pass_windows").where({ id: windows[0].id }).update({ name: "November" });
  });
  after(() => portal?.close());

  const checkoutPath = () => `/${fixture.handle}/plans/${planId}/checkout`;
  const member = async () => (await signInThroughBot(portal.url, suite.api.url, fixture, randomInt(1_000_000, 9_999_999))).browser;
  function card(page: string): string {
    const at = page.indexOf(`id="plan-${planId}"`);
    assert.ok(at >= 0, "the pass plan's card");
    return page.slice(at, page.indexOf("</li>\n", page.indexOf('class="pay"', at)));
  }

  it("lists the windows not yet ended with seats left, without Stars; the bot sends the plan to the portal", async () => {
    const guest = card(await (await fetch(`${portal.url}/${fixture.handle}`)).text());
    assert.match(guest, /December: [^<]* — 1 seat left/);
    assert.match(guest, /January: [^<]* — 20 seats left/);
    assert.doesNotMatch(guest, /November/, "an ended window is not sold");
    assert.doesNotMatch(guest, /Telegram Stars/);
    const page = card(await (await member()).get(`/${fixture.handle}`).then((r) => r.text()));
    assert.match(page, new RegExp(`name="pass_window"\\s+value="${windowId}"\\s+required\\s+checked`), "the form asks for a window");
    const reply = await botStart(suite.api.url, fixture.installation.id, fixture.bot.id, randomInt(1_000_000, 9_999_999), planId);
    assert.match(reply, /sold as passes for dated windows/);
    assert.ok(reply.includes(`?plan=${planId}`), reply);
  });

  it("a pass window of capacity 1 refuses the second buyer; a form without a window is 422", async () => {
    const { db } = await testDatabase();
    const first = await member();
    const bought = await first.post(checkoutPath(), { method: methodId, coupon: "", pass_window: windowId }, `/${fixture.handle}`);
    assert.equal(bought.status, 303, await bought.text());
    const checkout = await db("payment_checkouts").where({ plan_id: planId, status: "open" }).first();
    assert.equal(checkout.pass_window_id, windowId);
    const session = twin.calls.find((c) => c.path === "/v1/checkout/sessions" && c.params.client_reference_id === checkout.id)!;
    assert.equal(session.params.mode, "payment", "a pass is one payment");
    const closes = Number(session.params.expires_at) * 1000 - Date.now();
    assert.ok(closes > 50 * 60_000 && closes <= 60 * 60_000, `Stripe's page closes as the seat's hold ends (in ${closes} ms)`);

    const second = await member();
    const calls = twin.calls.length;
    const refused = await second.post(checkoutPath(), { method: methodId, coupon: "", pass_window: windowId }, `/${fixture.handle}`);
    assert.equal(refused.status, 409);
    const text = await refused.text();
    assert.match(text, /Every seat of that date is taken\. Nothing was charged; pick another date\./);
    assert.match(card(text), /December: [^<]* — sold out/);
    assert.match(card(text), new RegExp(`value="${windowId}"\\s+required\\s+disabled`));
    const missing = await second.post(checkoutPath(), { method: methodId, coupon: "" }, `/${fixture.handle}`);
    assert.equal(missing.status, 422);
    assert.match(await missing.text(), /Pick the date you want a pass for\./);
    assert.equal(twin.calls.length, calls, "Stripe was not asked");
    assert.equal((await db("payment_checkouts").where({ plan_id: planId })).length, 1, "the refused buyer holds nothing");
    const other = await second.post(checkoutPath(), { method: methodId, coupon: "", pass_window: laterId }, `/${fixture.handle}`);
    assert.equal(other.status, 303, "another window still sells");

    await twin.completeCheckout(checkout.provider_checkout_id, { card: TEST_CARDS.success });
    await twin.settled();
    const done = await db("payment_checkouts").where({ id: checkout.id }).first();
    assert.equal(done.status, "completed");
    const sub = await db("subscriptions").where({ id: done.subscription_id }).first();
    assert.deepEqual([sub.status, sub.pass_window_id, new Date(sub.ends_at).getTime()], ["active", windowId, end.getTime()]);
    assert.equal((await db("access_grants").where({ subscription_id: sub.id })).length, 0, "nothing before the window opens");
    const back = await (await first.get(`/${fixture.handle}/checkout/${checkout.id}`)).text();
    assert.match(back, /<h1>You're in<\/h1>/);
    assert.match(back, new RegExp(`None: one payment for a pass whose access ends <strong>${end.toISOString().slice(0, 10)}</strong>\\.`));
  });
});
