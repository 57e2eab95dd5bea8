// Redeeming an access code (the connector bot's and the portal's path): a domain function with its
// own tests, including two redemptions of one code at once.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiError } from "../../../src/errors.ts";
import { banMember } from "../../../src/modules/members/ban.ts";
import { markGrantFulfilled } from "../../../src/modules/subscriptions/grants.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { account, asDomain, codesFor, DAY, redeem, seedPlan, subscribedMember } from "../subscriptions/commerce.ts";

async function refusedWith(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await promise.then(
    () => assert.fail(`a ${code} refusal was due`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  return err;
}

async function codeStatus(planId: string) {
  const { db } = await testDatabase();
  return (await db("access_codes").where({ plan_id: planId }).orderBy("created_at").select("status")).map((r: { status: string }) => r.status).sort();
}

describe("access codes: redemption", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator({ label: "redeem", projects: 2 });
  });

  it("creates the member, the subscription and one pending grant per plan resource in order, with a task for the manual perk", async () => {
    const plan = await seedPlan(creator, {
      resources: [
        { mode: "creator_task", title: "Signed print" },
        { mode: "membership", title: "Members chat" },
      ],
    });
    const [code] = await codesFor(creator, plan);
    const before = (await eventsOf(creator.teamId)).length;
    const who = account("Ada Lovelace");
    const result = await redeem(creator, plan.projectId, code!, who);

    assert.equal(result.member.status, "customer");
    assert.equal(result.member.external_user_id, who.externalUserId);
    assert.equal(result.member.display_name, "Ada Lovelace");
    assert.ok(result.member.joined_at);
    assert.equal(result.subscription.status, "active");
    assert.equal(result.subscription.source, "access_code");
    assert.equal(result.subscription.member_id, result.member.id);
    const started = new Date(result.subscription.started_at);
    const expectedEnd = new Date(started);
    expectedEnd.setUTCMonth(expectedEnd.getUTCMonth() + 1);
    assert.equal(result.subscription.ends_at, expectedEnd.toISOString(), "a month after the start");
    assert.deepEqual(
      result.grants.map((g) => [g.resource_id, g.grant_mode, g.status]),
      [
        [plan.resourceIds[0], "creator_task", "pending"],
        [plan.resourceIds[1], "membership", "pending"],
      ],
    );
    assert.equal(result.tasks.length, 1);
    const [task] = result.tasks;
    assert.equal(task!.grant_id, result.grants[0]!.id);
    assert.deepEqual(task!.member, { id: result.member.id, display_name: "Ada Lovelace" });
    assert.deepEqual(task!.perk, { resource_id: plan.resourceIds[0], title: "Signed print" });
    assert.match(task!.instructions, /^[A-Z].*Signed print.*Ada Lovelace.*\.$/);
    assert.equal(task!.due_at, null);
    assert.equal(task!.status, "open");

    const events = (await eventsOf(creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.created", "member.joined", "access_code.redeemed"],
    );
    events.forEach(assertValidEvent);
    assert.equal(events[0]!.data.subscription.id, result.subscription.id);
    assert.equal(events[2]!.data.access_code.subscription_id, result.subscription.id);
    assert.equal(events[2]!.data.access_code.redeemed_by_member_id, result.member.id);
    assert.ok(!("email" in events[1]!.data.member), "events never carry the member's email");
    assert.deepEqual(await codeStatus(plan.planId).then((s) => s.slice(-1)), ["redeemed"]);

    const { db } = await testDatabase();
    const activity = await db("activity_log")
      .where({ team_id: creator.teamId })
      .whereIn("subject_id", [result.subscription.id, result.member.id])
      .select("event", "actor_kind");
    assert.deepEqual(activity.map((a: { event: string }) => a.event).sort(), ["created", "created", "joined"]);
    assert.ok(
      activity.every((a: { actor_kind: string }) => a.actor_kind === "system"),
      "the bot's path acts as the system",
    );
  });

  it("refuses an unknown code, a code of another project, and a code in another case (ACCESS_CODE_INVALID)", async () => {
    const plan = await seedPlan(creator);
    const other = await seedPlan(creator, { projectIndex: 1 });
    const [code] = await codesFor(creator, plan);
    const [otherCode] = await codesFor(creator, other);
    await refusedWith(redeem(creator, plan.projectId, randomUUID()), "ACCESS_CODE_INVALID");
    await refusedWith(redeem(creator, plan.projectId, otherCode!), "ACCESS_CODE_INVALID");
    await refusedWith(redeem(creator, plan.projectId, code!.toUpperCase()), "ACCESS_CODE_INVALID");
    await refusedWith(redeem(creator, plan.projectId, ""), "ACCESS_CODE_INVALID");
    assert.deepEqual(await codeStatus(plan.planId), ["unredeemed"]);
    // And the code itself still works.
    await redeem(creator, plan.projectId, code!);
  });

  it("refuses a used code (ACCESS_CODE_ALREADY_REDEEMED) and an expired one (ACCESS_CODE_EXPIRED), job or not", async () => {
    const plan = await seedPlan(creator);
    const [code] = await codesFor(creator, plan);
    await redeem(creator, plan.projectId, code!);
    await refusedWith(redeem(creator, plan.projectId, code!), "ACCESS_CODE_ALREADY_REDEEMED");
    const [expiring] = await codesFor(creator, plan, 1, new Date(Date.now() + DAY));
    await refusedWith(redeem(creator, plan.projectId, expiring!, account(), new Date(Date.now() + 2 * DAY)), "ACCESS_CODE_EXPIRED");
    const { db } = await testDatabase();
    await db("access_codes").where({ plan_id: plan.planId, status: "unredeemed" }).update({ status: "expired" });
    await refusedWith(redeem(creator, plan.projectId, expiring!), "ACCESS_CODE_EXPIRED");
  });

  it("refuses a member with a live subscription (SUBSCRIPTION_ALREADY_ACTIVE) and a banned member; the code stays unredeemed", async () => {
    const plan = await seedPlan(creator);
    const [first, second] = await codesFor(creator, plan, 2);
    const who = account();
    const { member } = await redeem(creator, plan.projectId, first!, who);
    const before = (await eventsOf(creator.teamId)).length;
    await refusedWith(redeem(creator, plan.projectId, second!, who), "SUBSCRIPTION_ALREADY_ACTIVE");
    await asDomain(creator, (ctx) => banMember(ctx, plan.projectId, member.id, { reason: "spam" }));
    const banned = await refusedWith(redeem(creator, plan.projectId, second!, who), "VALIDATION_FAILED");
    assert.equal(banned.context?.reason, "member_banned");
    assert.deepEqual(await codeStatus(plan.planId), ["redeemed", "unredeemed"]);
    const after = (await eventsOf(creator.teamId)).slice(before).map((e) => e.type);
    assert.ok(!after.includes("subscription.created") && !after.includes("access_code.redeemed"), after.join(", "));
  });

  it("lets exactly one of two simultaneous redemptions of one code win", async () => {
    const plan = await seedPlan(creator);
    const [code] = await codesFor(creator, plan);
    const results = await Promise.allSettled([redeem(creator, plan.projectId, code!), redeem(creator, plan.projectId, code!)]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1, JSON.stringify(results.map((r) => r.status)));
    const loser = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.ok(loser.reason instanceof ApiError && loser.reason.code === "ACCESS_CODE_ALREADY_REDEEMED", String(loser.reason));
    const { db } = await testDatabase();
    assert.equal((await db("subscriptions").where({ plan_id: plan.planId }).select("id")).length, 1);
  });

  it("starts a trial for a plan with one, has no end for a lifetime plan, and dates a dated pass's task at its window", async () => {
    const trial = await subscribedMember(creator, { trialDays: 7 });
    assert.equal(trial.subscription.status, "trialing");
    assert.equal(trial.member.status, "trialing");
    const trialEnd = new Date(new Date(trial.subscription.started_at).getTime() + 7 * DAY);
    assert.equal(trial.subscription.trial_ends_at, trialEnd.toISOString());
    const paidEnd = new Date(trialEnd);
    paidEnd.setUTCMonth(paidEnd.getUTCMonth() + 1);
    assert.equal(trial.subscription.ends_at, paidEnd.toISOString(), "the paid period follows the trial");

    const lifetime = await subscribedMember(creator, { cycle: "lifetime" });
    assert.equal(lifetime.subscription.ends_at, null);

    const start = new Date(Date.now() + 10 * DAY);
    const pass = await subscribedMember(creator, {
      windows: [
        [new Date(Date.now() - 5 * DAY), new Date(Date.now() - DAY)],
        [start, new Date(start.getTime() + DAY)],
      ],
    });
    assert.equal(pass.tasks[0]!.due_at, start.toISOString(), "the next window's start");
  });

  it("markGrantFulfilled issues a connector grant once (member.resource_added) and refuses a creator_task grant", async () => {
    const { grants } = await subscribedMember(creator, { resources: [{ mode: "membership" }, { mode: "creator_task" }] });
    const before = (await eventsOf(creator.teamId)).length;
    const issued = await asDomain(creator, (ctx) => markGrantFulfilled(ctx, grants[0]!.id), { system: true });
    assert.equal(issued.status, "granted");
    assert.ok(issued.granted_at);
    const again = await asDomain(creator, (ctx) => markGrantFulfilled(ctx, grants[0]!.id), { system: true });
    assert.deepEqual(again, issued, "a second report changes nothing");
    const events = (await eventsOf(creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.grant.id]),
      [["member.resource_added", grants[0]!.id]],
    );
    events.forEach(assertValidEvent);
    const { db } = await testDatabase();
    const entries = await db("activity_log").where({ team_id: creator.teamId, event: "grant_fulfilled" }).select("subject_id", "properties");
    assert.deepEqual(
      entries.map((e: { subject_id: string; properties: any }) => [e.subject_id, e.properties.grant.id]),
      [[grants[0]!.subscription_id, grants[0]!.id]],
    );
    await refusedWith(
      asDomain(creator, (ctx) => markGrantFulfilled(ctx, grants[1]!.id)),
      "VALIDATION_FAILED",
    );
    await refusedWith(
      asDomain(creator, (ctx) => markGrantFulfilled(ctx, randomUUID())),
      "RESOURCE_NOT_FOUND",
    );
  });
});
