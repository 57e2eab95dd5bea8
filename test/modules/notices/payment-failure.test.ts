// The payment-failure notice end to end: a member pays with Stripe (the twin), their renewal and a
// retry fail; the first failure queues one notice to the member's Telegram account saying until when
// access continues (the grace end), when it will be tried again and where to update the payment
// method; the retry's failure says nothing new.
import assert from "node:assert/strict";
import { TEST_CARDS } from "../../../src/simulators/stripe/index.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf } from "../../helpers/events.ts";
import { useApiWithStripeTwin } from "../../helpers/suite.ts";
import { openStripeShop } from "../payments/stripe-shop.ts";
import { DAY } from "../subscriptions/commerce.ts";
import { noticesOf } from "./notices.ts";

describe("notices: a failed Stripe payment", function () {
  this.timeout(60_000);
  const suite = useApiWithStripeTwin();

  it("queues one payment-failure notice per grace period, naming its end, the retry and the portal", async () => {
    const { db } = await testDatabase();
    const { twin } = suite;
    const shop = await openStripeShop(suite.creator, twin, suite.stripe);
    const externalUserId = String(700_000_000 + Math.floor(Math.random() * 1e8));
    const { checkout, sessionId } = await shop.checkoutFor("Fay", externalUserId);
    await twin.completeCheckout(sessionId, { card: TEST_CARDS.success });
    await twin.settled();
    const { subscription_id } = await db("payment_checkouts").where({ id: checkout.id }).first();
    const providerId = (await db("subscriptions").where({ id: subscription_id }).first()).provider_subscription_id;
    assert.deepEqual(await noticesOf(subscription_id), [], "a payment that succeeds tells the member nothing here");

    // The renewal fails, then Stripe's first retry (three days after the invoice, before the second is due) fails too.
    for (const days of [32, 2]) {
      twin.failNextPayment(providerId);
      await twin.advanceClock(days * (DAY / 1000));
      await twin.settled();
    }
    const subscription = await db("subscriptions").where({ id: subscription_id }).first();
    assert.equal(subscription.status, "past_due");
    const graceEnd = new Date(subscription.ends_at).toISOString();
    const failures = (await eventsOf(suite.creator.teamId, "payment.failed")).filter((e) => e.data.failure.subscription_id === subscription_id);
    assert.equal(failures.length, 2, "the renewal and its retry failed");
    const [failed] = failures;
    const retryAt = failed!.data.failure.next_retry_at as string;

    const notices = await noticesOf(subscription_id);
    assert.equal(notices.length, 1, JSON.stringify(notices));
    const [notice] = notices;
    const { name: projectName, handle } = await db("projects").where({ id: shop.plan.projectId }).first("name", "handle");
    const { name: planName } = await db("plans").where({ id: shop.plan.planId }).first("name");
    const at = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
    assert.deepEqual([notice!.purpose, notice!.recipient, notice!.status, notice!.connector_key], ["notice", externalUserId, "queued", "telegram"]);
    assert.equal(notice!.dedupe_key, `notice:payment-failed:${graceEnd}:${subscription_id}`);
    assert.equal(
      notice!.text,
      `${projectName}: your payment for ${planName} failed. Your access continues until ${at(graceEnd)}. It will be tried again on ${at(retryAt)}. Update your payment method on http://localhost:4005/${handle}/account`,
    );
  });
});
