// A coupon's limit is exact (issue 43): a checkout opened with it holds one of its uses until it
// completes (a redemption) or expires (the use comes back), so a coupon allowing one use can be paid
// with once, even by members starting their checkouts at the same moment; a member's own earlier
// checkout does not hold a use against them. Checked and opened as the portal does it, in one
// transaction per member (checkCouponForPlan, then openCheckout).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { checkCouponForPlan, type CouponCheck } from "../../../src/modules/coupons/checkout.ts";
import { createCoupon } from "../../../src/modules/coupons/coupons.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { applyProviderEvent } from "../../../src/modules/payments/apply.ts";
import { noteProviderCheckout, openCheckout } from "../../../src/modules/payments/checkouts.ts";
import { CHECKOUT_OPEN_MS, scheduledJobs as paymentJobs } from "../../../src/modules/payments/jobs.ts";
import { plansTable, type PlanRow } from "../../../src/modules/plans/tables.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { account, asDomain, runJob, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { completionReport } from "../payments/reports.ts";

describe("coupons: a limit of uses is exact", () => {
  let creator: TestCreator;
  let plan: SeededPlan;
  let code: string;
  before(async () => {
    creator = await createTestCreator();
    plan = await seedPlan(creator);
    code = `ONCE${randomUUID().slice(0, 6)}`;
    await asDomain(creator, (ctx) => createCoupon(ctx, plan.projectId, { code, percent_off: 20, max_redemptions: 1 }));
  });

  /** A member (named by `person`) checks the coupon and, when it applies, opens a checkout with it, in one transaction. */
  function startWith(person: ReturnType<typeof account>, now = new Date()): Promise<{ check: CouponCheck; checkoutId: string | null }> {
    return asDomain(
      creator,
      async (ctx) => {
        const { member } = await findOrCreateMember(ctx, plan.projectId, person);
        const planRow = (await plansTable.rows(ctx).where({ id: plan.planId }).first()) as PlanRow;
        const check = await checkCouponForPlan(ctx, planRow, code, member.id);
        if (!check.ok) return { check, checkoutId: null };
        const { checkout } = await openCheckout(ctx, {
          member,
          plan: planRow,
          provider: "stripe",
          paymentMethodId: null,
          providerAccount: "acct_coupons",
          discount: check.discount,
        });
        await noteProviderCheckout(ctx, checkout.id, `cs_${checkout.id}`);
        return { check, checkoutId: checkout.id };
      },
      { system: true, now },
    );
  }

  it("lets one of two members starting at once hold the last use; the other is told it is used up", async () => {
    const [one, two] = [account("One"), account("Two")];
    const results = await Promise.all([startWith(one), startWith(two)]);
    assert.deepEqual(results.map((r) => r.check.ok).sort(), [false, true], JSON.stringify(results));
    const refused = results.find((r) => !r.check.ok)!.check as { ok: false; reason: string };
    assert.match(refused.reason, /used as many times as it allows/);
    const holder = results.find((r) => r.check.ok)!;
    const who = results[0]!.check.ok ? one : two;
    const other = results[0]!.check.ok ? two : one;
    // The holder starting again is not held back by their own earlier checkout (which the new one closes).
    const again = await startWith(who);
    assert.equal(again.check.ok, true);
    const { db } = await testDatabase();
    assert.equal((await db("payment_checkouts").where({ id: holder.checkoutId }).first()).status, "expired");
    assert.equal((await startWith(other)).check.ok, false, "still held by the holder's open checkout");

    // The holder's checkout expires: the use comes back, and the other member takes it and pays.
    await runJob(paymentJobs, "payments.expire-checkouts", new Date(Date.now() + CHECKOUT_OPEN_MS + 60_000));
    const taken = await startWith(other);
    assert.equal(taken.check.ok, true);
    const checkout = await db("payment_checkouts").where({ id: taken.checkoutId }).first();
    assert.equal(Number(checkout.amount_minor), 400, "the first payment is the price less 20%");
    const paid = await applyProviderEvent(
      db,
      "stripe",
      completionReport(checkout, "acct_coupons", {
        payment: { providerPaymentId: `pi_${randomUUID()}`, amountMinor: 400, currency: "USD", feeMinor: null, paidAt: new Date() },
      }),
      new Date(),
    );
    assert.equal(paid.outcome, "applied");
    assert.equal((await db("coupons").where({ code }).first()).redemptions_count, 1);
    assert.equal((await startWith(account("Three"))).check.ok, false, "redeemed once: used up for everyone");
  });
});
