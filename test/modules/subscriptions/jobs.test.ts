// The subscription jobs at an injected clock: expiry at ends_at (grants revoked with
// member.resource_removed per granted one, the member churned after the last live one) and the end
// of trials; each run twice changes nothing the second time.
import assert from "node:assert/strict";
import { scheduledJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { markGrantFulfilled } from "../../../src/modules/subscriptions/grants.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { account, activityOf, asDomain, codesFor, DAY, redeem, runJob, seedPlan, subscribedMember } from "./commerce.ts";

describe("subscriptions: the scheduled jobs", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator({ label: "subs-jobs" });
  });

  it("expires subscriptions past ends_at: grants revoked, subscription.expired, member.resource_removed per granted grant, member churned; once", async () => {
    const sub = await subscribedMember(creator, { cycle: "day", resources: [{ mode: "membership" }, { mode: "creator_task" }] });
    await asDomain(creator, (ctx) => markGrantFulfilled(ctx, sub.grants[0]!.id), { system: true });
    const before = (await eventsOf(creator.teamId)).length;
    const notYet = new Date(Date.now() + DAY / 2);
    await runJob(scheduledJobs, "subscriptions.expire", notYet);
    assert.equal((await eventsOf(creator.teamId)).length, before, "nothing is due before ends_at");

    const at = new Date(Date.now() + 2 * DAY);
    assert.ok((await runJob(scheduledJobs, "subscriptions.expire", at)) >= 1);
    const { db } = await testDatabase();
    const row = await db("subscriptions").where({ id: sub.subscription.id }).first();
    assert.equal(row.status, "expired");
    assert.equal(new Date(row.expired_at).toISOString(), at.toISOString());
    const grants = await db("access_grants")
      .where({ subscription_id: sub.subscription.id })
      .orderBy("created_at")
      .select("status", "platform_synced_at");
    assert.deepEqual(
      grants.map((g: { status: string }) => g.status),
      ["revoked", "revoked"],
    );
    assert.ok(
      grants.every((g: { platform_synced_at: Date | null }) => g.platform_synced_at === null),
      "the connector has removals to apply",
    );
    assert.equal((await db("creator_tasks").where({ grant_id: sub.grants[1]!.id }).first()).status, "void");
    assert.equal((await db("members").where({ id: sub.member.id }).first()).status, "churned");
    const events = (await eventsOf(creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.expired", "member.resource_removed", "member.churned"],
    );
    events.forEach(assertValidEvent);
    assert.equal(events[1]!.data.grant.id, sub.grants[0]!.id, "only the granted grant is reported removed");
    assert.deepEqual(
      (await activityOf(creator.teamId, sub.subscription.id)).map((e) => [e.event, e.actor_kind]),
      [
        ["created", "system"],
        ["grant_fulfilled", "system"],
        ["expired", "system"],
      ],
    );

    const count = (await eventsOf(creator.teamId)).length;
    assert.equal(await runJob(scheduledJobs, "subscriptions.expire", at), 0, "a second run changes nothing");
    assert.equal((await eventsOf(creator.teamId)).length, count);
  });

  it("makes a churned member who redeems again a customer, without a second member.joined", async () => {
    const first = await seedPlan(creator, { cycle: "day" });
    const second = await seedPlan(creator, { cycle: "year" });
    const who = account();
    const [a] = await codesFor(creator, first);
    const { member } = await redeem(creator, first.projectId, a!, who);
    const at = new Date(Date.now() + 2 * DAY);
    await runJob(scheduledJobs, "subscriptions.expire", at);
    const { db } = await testDatabase();
    assert.equal((await db("members").where({ id: member.id }).first()).status, "churned");
    const [b] = await codesFor(creator, second);
    const before = (await eventsOf(creator.teamId)).length;
    const again = await redeem(creator, second.projectId, b!, who, at);
    assert.equal(again.member.id, member.id);
    assert.equal(again.member.status, "customer");
    assert.deepEqual(
      (await eventsOf(creator.teamId)).slice(before).map((e) => e.type),
      ["subscription.created", "access_code.redeemed"],
      "member.joined fires only the first time",
    );
  });

  it("ends trials at trial_ends_at: active, subscription.activated, the member a customer; once", async () => {
    const trial = await subscribedMember(creator, { trialDays: 3 });
    const before = (await eventsOf(creator.teamId)).length;
    const at = new Date(Date.now() + 4 * DAY);
    // The job sweeps every team: other tests' subscriptions due by then may expire, this one must not.
    await runJob(scheduledJobs, "subscriptions.expire", at);
    const { db } = await testDatabase();
    assert.equal((await db("subscriptions").where({ id: trial.subscription.id }).first()).status, "trialing", "the paid period follows the trial");
    assert.ok((await runJob(scheduledJobs, "subscriptions.end-trials", at)) >= 1);
    assert.equal((await db("subscriptions").where({ id: trial.subscription.id }).first()).status, "active");
    assert.equal((await db("members").where({ id: trial.member.id }).first()).status, "customer");
    const events = (await eventsOf(creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.activated"],
    );
    events.forEach(assertValidEvent);
    assert.equal(await runJob(scheduledJobs, "subscriptions.end-trials", at), 0, "a second run changes nothing");
  });
});
