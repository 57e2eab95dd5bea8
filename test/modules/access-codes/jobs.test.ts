// The access-code expiry job at an injected clock: unredeemed codes past their expiry become
// expired (access_code.expired each, system actor); redeemed and unexpired codes stay; a second run
// changes nothing.
import assert from "node:assert/strict";
import { scheduledJobs } from "../../../src/modules/access-codes/jobs.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { activityOf, codesFor, DAY, redeem, runJob, seedPlan } from "../subscriptions/commerce.ts";

describe("access codes: the expiry job", () => {
  let creator: TestCreator;
  let other: TestCreator;
  before(async () => {
    creator = await createTestCreator({ label: "codes-expiry" });
    other = await createTestCreator({ label: "codes-expiry-other" });
  });

  it("declares access-codes.expire with a cron", () => {
    const job = scheduledJobs.find((j) => j.name === "access-codes.expire");
    assert.ok(job && /^(\S+ ){4}\S+$/.test(job.cron));
  });

  it("expires due unredeemed codes of every team once, as the system", async () => {
    const now = Date.now();
    const plan = await seedPlan(creator);
    const [due, redeemed] = await codesFor(creator, plan, 2, new Date(now + DAY));
    const [later] = await codesFor(creator, plan, 1, new Date(now + 10 * DAY));
    const [never] = await codesFor(creator, plan, 1);
    const otherPlan = await seedPlan(other);
    await codesFor(other, otherPlan, 1, new Date(now + DAY));
    await redeem(creator, plan.projectId, redeemed!);
    const before = { mine: (await eventsOf(creator.teamId)).length, theirs: (await eventsOf(other.teamId)).length };

    const at = new Date(now + 2 * DAY);
    assert.ok((await runJob(scheduledJobs, "access-codes.expire", at)) >= 2, "both teams' due codes");
    const { db } = await testDatabase();
    const statuses = Object.fromEntries(
      (await db("access_codes").where({ plan_id: plan.planId }).select("code_masked", "status", "expired_at")).map(
        (r: { code_masked: string; status: string; expired_at: Date }) => [r.code_masked, r],
      ),
    );
    const of = (code: string) => statuses[`${code.slice(0, 4)}${"*".repeat(28)}${code.slice(-4)}`];
    assert.equal(of(due!).status, "expired");
    assert.equal(new Date(of(due!).expired_at).toISOString(), at.toISOString());
    assert.equal(of(redeemed!).status, "redeemed");
    assert.equal(of(later!).status, "unredeemed");
    assert.equal(of(never!).status, "unredeemed");
    const mine = (await eventsOf(creator.teamId)).slice(before.mine);
    assert.deepEqual(
      mine.map((e) => e.type),
      ["access_code.expired"],
    );
    mine.forEach(assertValidEvent);
    assert.equal((await eventsOf(other.teamId)).slice(before.theirs).length, 1, "the other team's code expired in its own team");
    const id = mine[0]!.data.access_code.id;
    assert.deepEqual(
      (await activityOf(creator.teamId, id)).map((e) => [e.event, e.actor_kind, e.causer_id]),
      [["expired", "system", null]],
    );

    const events = (await eventsOf(creator.teamId)).length;
    assert.equal(await runJob(scheduledJobs, "access-codes.expire", at), 0, "a second run changes nothing");
    assert.equal((await eventsOf(creator.teamId)).length, events);
  });
});
