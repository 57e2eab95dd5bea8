// The Overview's numbers of the analytics answer (MRR, new and churned members, failed payments,
// revenue at risk), checked against paid subscriptions of known plans (monthly, yearly, weekly, a
// Stars plan every 30 days, a lifetime one) and payments, around a fixed window, with another
// project's and another team's rows.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { codesFor, redeem, seedPlan, type SeededPlan } from "../subscriptions/commerce.ts";
import { seedTransaction } from "../transactions/support.ts";
import type { Redemption } from "../../../src/modules/access-codes/redeem.ts";

const at = (day: string) => new Date(`2026-${day}T00:00:00.000Z`);
const WINDOW = "from=2026-06-01T00:00:00.000Z&to=2026-07-01T00:00:00.000Z";

/** A plan with its price and cycle set. */
async function plan(creator: TestCreator, price: { amount: number; currency: string; cycle: string; count?: number }, projectIndex = 0) {
  const seeded = await seedPlan(creator, { projectIndex });
  const { db } = await testDatabase();
  await db("plans")
    .where({ id: seeded.planId })
    .update({ amount_minor: price.amount, currency: price.currency, billing_cycle: price.cycle, billing_cycle_count: price.count ?? 1 });
  return seeded;
}

interface Paid {
  /** Billed by a provider (false: an access code's subscription, which bills nothing). */
  provider?: boolean;
  status?: "trialing" | "active" | "past_due" | "canceled" | "expired";
  trialEnds?: Date;
  canceled?: Date;
  ends?: Date;
  expired?: Date;
}

/** A member's subscription to `p` created at `created`, then set as a provider would have left it. */
async function subscription(creator: TestCreator, p: SeededPlan, created: Date, s: Paid = {}): Promise<Redemption> {
  const [code] = await codesFor(creator, p);
  const redemption = await redeem(creator, p.projectId, code!, undefined, created);
  const { db } = await testDatabase();
  await db("subscriptions")
    .where({ id: redemption.subscription.id })
    .update({
      status: s.status ?? (s.expired ? "expired" : "active"),
      provider: s.provider === false ? null : "stripe",
      provider_subscription_id: s.provider === false ? null : `sub_${randomUUID()}`,
      trial_ends_at: s.trialEnds ?? null,
      canceled_at: s.canceled ?? null,
      ends_at: s.ends ?? s.expired ?? at("12-31"),
      expired_at: s.expired ?? null,
    });
  return redemption;
}

async function failedPayment(creator: TestCreator, projectId: string, amount: number, currency: string, when: Date) {
  const { db } = await testDatabase();
  await db("events").insert({
    id: `evt_${randomUUID()}`,
    team_id: creator.teamId,
    project_id: projectId,
    type: "payment.failed",
    api_version: "2026-11-23",
    data: JSON.stringify({ failure: { amount: { amount, currency } } }),
    created_at: when,
  });
}

describe("analytics: the overview's MRR, member movement, failed payments and revenue at risk", () => {
  const suite = useApiWithCreator({ creator: { label: "overview", projects: 2 } });
  before(async () => {
    const creator = suite.creator;
    const [p0, p1] = creator.projectIds as [string, string];
    const monthly = await plan(creator, { amount: 500, currency: "USD", cycle: "month" });
    const yearly = await plan(creator, { amount: 12000, currency: "USD", cycle: "year" });
    const weekly = await plan(creator, { amount: 300, currency: "EUR", cycle: "week" });
    const stars = await plan(creator, { amount: 250, currency: "XTR", cycle: "day", count: 30 });
    const lifetime = await plan(creator, { amount: 9900, currency: "USD", cycle: "lifetime" });
    const elsewhere = await plan(creator, { amount: 500, currency: "USD", cycle: "month" }, 1);

    // Counted in MRR (USD 500 + 400 + 1000 + 500 + 500 = 2900 over 5; EUR 300 x 52/12 = 1300; XTR 250 x 365/12/30 = 253.47 -> 253).
    await seedTransaction(creator, await subscription(creator, monthly, at("05-01")), { amount: 500, at: at("06-01") });
    // A coupon took 100 off its first (and so far only) invoice: MRR counts what it pays.
    await seedTransaction(creator, await subscription(creator, monthly, at("06-10")), { amount: 400, at: at("06-10") });
    await seedTransaction(creator, await subscription(creator, yearly, at("03-01")), { amount: 12000, at: at("03-01") });
    await seedTransaction(creator, await subscription(creator, weekly, at("06-20")), { amount: 300, currency: "EUR", at: at("06-20") });
    await seedTransaction(creator, await subscription(creator, stars, at("06-15")), {
      amount: 250,
      currency: "XTR",
      provider: "telegram_stars",
      at: at("06-15"),
    });
    // A trial that ended unpaid: past due, counted at the plan's price, and at risk.
    await subscription(creator, monthly, at("05-20"), { status: "past_due", trialEnds: at("06-20") });
    // Cancelled at the period's end: counted until it ends, not churn.
    const leaving = await subscription(creator, monthly, at("04-15"), { status: "canceled", canceled: at("06-25"), ends: at("07-15") });
    await seedTransaction(creator, leaving, { amount: 500, at: at("06-15") });

    // Not counted in MRR.
    await subscription(creator, monthly, at("06-25"), { status: "trialing", trialEnds: at("07-10") }); // in its trial at the window's end
    await subscription(creator, monthly, at("06-05"), { provider: false }); // an access code's: bills nothing
    await seedTransaction(creator, await subscription(creator, lifetime, at("06-02")), { amount: 9900, at: at("06-02") }); // not recurring
    const ended = await subscription(creator, monthly, at("05-10"), { status: "expired", canceled: at("06-25"), expired: at("06-25") });
    await seedTransaction(creator, ended, { amount: 500, at: at("06-10") });
    await subscription(creator, monthly, at("07-02")); // after the window
    // A member whose subscription ended in the window but who subscribed again: not churned.
    const back = await subscription(creator, monthly, at("05-01"), { status: "expired", expired: at("06-05") });
    const { db } = await testDatabase();
    const ended1 = await db("subscriptions").where({ id: back.subscription.id }).first();
    await db("subscriptions").insert({
      ...ended1,
      id: randomUUID(),
      status: "active",
      provider: null,
      provider_subscription_id: null,
      canceled_at: null,
      expired_at: null,
      created_at: at("06-06"),
      started_at: at("06-06"),
      ends_at: at("12-31"),
      updated_at: at("06-06"),
    });

    // The other project: counted team-wide only (USD 500, a new member, one at risk).
    await subscription(creator, elsewhere, at("06-15"), { status: "past_due" });

    await failedPayment(creator, p0, 500, "USD", at("06-20"));
    await failedPayment(creator, p0, 500, "USD", at("06-23")); // the provider's retry: another attempt
    await failedPayment(creator, p0, 250, "XTR", at("06-01")); // from is inclusive
    await failedPayment(creator, p0, 500, "USD", at("07-01")); // to is exclusive
    await failedPayment(creator, p1, 500, "USD", at("06-21"));

    // Another team's rows never count.
    const stranger = await createTestCreator({ label: "overview-stranger" });
    const theirs = await plan(stranger, { amount: 7000, currency: "USD", cycle: "month" });
    await seedTransaction(stranger, await subscription(stranger, theirs, at("06-10"), { status: "past_due" }), { amount: 7000, at: at("06-10") });
    await failedPayment(stranger, stranger.projectIds[0]!, 7000, "USD", at("06-10"));
  });

  it("answers a project's MRR per currency (Stars apart), new and churned members, failed payments and revenue at risk", async () => {
    const res = await suite.client.get(`/v1/projects/${suite.creator.projectIds[0]}/analytics?${WINDOW}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = res.body.data;
    assert.deepEqual(data.mrr, [
      { currency: "EUR", amount: 1300, subscriptions: 1 },
      { currency: "USD", amount: 2900, subscriptions: 5 },
      { currency: "XTR", amount: 253, subscriptions: 1 },
    ]);
    // New: the 06-02, 06-05, 06-10, 06-15, 06-20 and 06-25 members; churned: the one ended on 06-25.
    assert.deepEqual(data.members, { active: 11, new: 6, churned: 1 });
    assert.deepEqual(data.failed_payments, [
      { currency: "USD", count: 2, amount: 1000 },
      { currency: "XTR", count: 1, amount: 250 },
    ]);
    assert.deepEqual(data.at_risk, [{ currency: "USD", subscriptions: 1, amount: 500 }]);
  });

  it("adds up the team's projects the token may see", async () => {
    const data = (await suite.client.get(`/v1/analytics?${WINDOW}`)).body.data;
    assert.deepEqual(data.mrr, [
      { currency: "EUR", amount: 1300, subscriptions: 1 },
      { currency: "USD", amount: 3400, subscriptions: 6 },
      { currency: "XTR", amount: 253, subscriptions: 1 },
    ]);
    assert.deepEqual(data.members, { active: 12, new: 7, churned: 1 });
    assert.deepEqual(data.failed_payments, [
      { currency: "USD", count: 3, amount: 1500 },
      { currency: "XTR", count: 1, amount: 250 },
    ]);
    assert.deepEqual(data.at_risk, [{ currency: "USD", subscriptions: 2, amount: 1000 }]);
  });

  it("reads MRR at the window's end: before a yearly plan's first payment and after a subscription ended", async () => {
    const data = (
      await suite.client.get(`/v1/projects/${suite.creator.projectIds[0]}/analytics?from=2026-02-01T00:00:00.000Z&to=2026-03-01T00:00:00.000Z`)
    ).body.data;
    assert.deepEqual([data.mrr, data.members.new, data.members.churned, data.failed_payments], [[], 0, 0, []]);
    const april = (
      await suite.client.get(`/v1/projects/${suite.creator.projectIds[0]}/analytics?from=2026-04-01T00:00:00.000Z&to=2026-04-20T00:00:00.000Z`)
    ).body.data;
    // The yearly plan (12000 / 12) and the member cancelling later, who had paid nothing yet: the plan's price.
    assert.deepEqual(april.mrr, [{ currency: "USD", amount: 1500, subscriptions: 2 }]);
    assert.deepEqual([april.members.new, april.members.churned], [1, 0]);
  });
});
