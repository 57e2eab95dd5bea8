// The Creator tasks area over REST (rule 6): the open tasks, oldest first, the status filter, and
// completion issuing the grant (creator_task.completed then member.resource_added for the same
// grant); 422 with context.task_id when done already or the purchase ended.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { cancelSubscription } from "../../../src/modules/subscriptions/subscriptions.ts";
import { scheduledJobs } from "../../../src/modules/subscriptions/jobs.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { activityOf, asDomain, DAY, expectCredentialRefusals, runJob, subscribedMember } from "../subscriptions/commerce.ts";

describe("creator tasks", () => {
  const suite = useApiWithCreator({ creator: { projects: 2, label: "tasks" } });
  const tasksPath = (projectId: string) => `/v1/projects/${projectId}/creator-tasks`;
  const completePath = (projectId: string, taskId: string) => `${tasksPath(projectId)}/${taskId}/complete`;

  it("a purchase of a manual perk opens a task; complete issues the grant: creator_task.completed then member.resource_added for the same grant, after subscription.created [claim telegram.resource_kinds.perk discord.resource_kinds.perk]", async () => {
    const before = (await eventsOf(suite.creator.teamId)).length;
    const sub = await subscribedMember(suite.creator, { resources: [{ mode: "creator_task", title: "Signed print" }] });
    const [task] = sub.tasks;
    const listed = (await suite.client.get(tasksPath(sub.plan.projectId))).body.data.find((t: { id: string }) => t.id === task!.id);
    assert.deepEqual(listed, task, "the open task is listed as redemption returned it");

    const res = await suite.client.post(completePath(sub.plan.projectId, task!.id));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const done = res.body.data;
    assert.equal(done.status, "completed");
    assert.equal(done.completed_by_user_id, suite.creator.userId);
    assert.ok(done.completed_at);
    assert.equal(done.grant_id, sub.grants[0]!.id);

    const { db } = await testDatabase();
    const grant = await db("access_grants").where({ id: task!.grant_id }).first();
    assert.equal(grant.status, "granted");
    const events = (await eventsOf(suite.creator.teamId)).slice(before);
    const relevant = events.filter((e) => ["subscription.created", "creator_task.completed", "member.resource_added"].includes(e.type));
    assert.deepEqual(
      relevant.map((e) => e.type),
      ["subscription.created", "creator_task.completed", "member.resource_added"],
    );
    assert.equal(relevant[1]!.data.task.grant_id, task!.grant_id);
    assert.equal(relevant[2]!.data.grant.id, task!.grant_id);
    events.forEach(assertValidEvent);
    assert.ok(!events.some((e) => e.type.startsWith("message")), "the member is sent nothing");
    const entries = await activityOf(suite.creator.teamId, sub.subscription.id);
    assert.deepEqual(
      entries.filter((e) => e.event === "creator_task_completed").map((e) => [e.actor_kind, e.causer_id]),
      [["api_token", suite.creator.userId]],
    );

    const again = expectError(await suite.client.post(completePath(sub.plan.projectId, task!.id)), 422, "VALIDATION_FAILED");
    assert.equal(again.context.task_id, task!.id);
  });

  it("refuses a task whose purchase ended (cancelled lifetime, or expired) with 422 naming the task; the grant stays as it was", async () => {
    const lifetime = await subscribedMember(suite.creator, { cycle: "lifetime" });
    await asDomain(suite.creator, (ctx) => cancelSubscription(ctx, lifetime.subscription.id));
    const ended = expectError(await suite.client.post(completePath(lifetime.plan.projectId, lifetime.tasks[0]!.id)), 422, "VALIDATION_FAILED");
    assert.equal(ended.context.task_id, lifetime.tasks[0]!.id);

    // Cancelled but paid until ends_at: the purchase still stands, the task can be completed.
    const monthly = await subscribedMember(suite.creator);
    await asDomain(suite.creator, (ctx) => cancelSubscription(ctx, monthly.subscription.id));
    assert.equal((await suite.client.post(completePath(monthly.plan.projectId, monthly.tasks[0]!.id))).status, 200);

    const daily = await subscribedMember(suite.creator, { cycle: "day" });
    await runJob(scheduledJobs, "subscriptions.expire", new Date(Date.now() + 2 * DAY));
    const expired = expectError(await suite.client.post(completePath(daily.plan.projectId, daily.tasks[0]!.id)), 422, "VALIDATION_FAILED");
    assert.equal(expired.context.task_id, daily.tasks[0]!.id);
    const { db } = await testDatabase();
    assert.equal((await db("access_grants").where({ id: daily.grants[0]!.id }).first()).status, "revoked");
  });

  it("lists open tasks oldest first by default; status completed and all; sort_direction desc", async () => {
    const creator = await createTestCreator({ label: "tasks-list" });
    const client = suite.client.withToken(creator.token);
    const projectId = creator.projectIds[0]!;
    const subs: Awaited<ReturnType<typeof subscribedMember>>[] = [];
    for (let i = 0; i < 3; i++) subs.push(await subscribedMember(creator, { cycle: i === 2 ? "lifetime" : "month" }));
    const { db } = await testDatabase();
    // Distinct creation times, in creation order.
    for (const [i, s] of subs.entries())
      await db("creator_tasks")
        .where({ id: s.tasks[0]!.id })
        .update({ created_at: new Date(Date.now() - (10 - i) * 60_000) });
    const ids = subs.map((s) => s.tasks[0]!.id);
    await client.post(completePath(projectId, ids[1]!));
    // Cancelling a lifetime purchase ends it at once: its task becomes void.
    await asDomain(creator, (ctx) => cancelSubscription(ctx, subs[2]!.subscription.id));
    const listed = async (query = "") => (await client.get(`${tasksPath(projectId)}${query}`)).body.data.map((t: { id: string }) => t.id);
    assert.deepEqual(await listed(), [ids[0]], "open only (the void task is not open)");
    const lifetime = await subscribedMember(creator, { cycle: "lifetime" });
    await db("creator_tasks").where({ id: lifetime.tasks[0]!.id }).update({ created_at: new Date() });
    assert.deepEqual(await listed(), [ids[0], lifetime.tasks[0]!.id], "oldest first");
    assert.deepEqual(await listed("?sort_direction=desc"), [lifetime.tasks[0]!.id, ids[0]]);
    assert.deepEqual(await listed("?status=completed"), [ids[1]]);
    assert.deepEqual(await listed("?status=all"), [ids[0], ids[1], ids[2], lifetime.tasks[0]!.id]);
    const page = (await client.get(`${tasksPath(projectId)}?status=all&per_page=2&page=2`)).body;
    assert.deepEqual(
      page.data.map((t: { id: string }) => t.id),
      [ids[2], lifetime.tasks[0]!.id],
    );
    assert.equal(page.meta.total, 4);
  });

  it("refuses a bad status or paging value with 422 naming it", async () => {
    const projectId = suite.creator.projectIds[0]!;
    for (const [query, field] of [
      ["status=done", "status"],
      ["page=0", "page"],
      ["per_page=-1", "per_page"],
      ["page=abc", "page"],
      ["sort_direction=sideways", "sort_direction"],
    ]) {
      const error = expectError(await suite.client.get(`${tasksPath(projectId)}?${query}`), 422, "VALIDATION_FAILED");
      assert.ok(Object.keys(error.fields).includes(field!), `${query}: ${JSON.stringify(error.fields)}`);
    }
  });

  it("answers 401, 403 TOKEN_MISSING_ABILITY (the subscription abilities), and 404 for another team's task or project", async () => {
    const sub = await subscribedMember(suite.creator);
    const projectId = sub.plan.projectId;
    await expectCredentialRefusals(suite.client, suite.creator, {
      method: "GET",
      path: tasksPath(projectId),
      ability: "project-subscription:view-any",
    });
    await expectCredentialRefusals(suite.client, suite.creator, {
      method: "POST",
      path: completePath(projectId, sub.tasks[0]!.id),
      ability: "project-subscription:update",
    });
    const other = await createTestCreator({ label: "tasks-other" });
    const theirs = await subscribedMember(other);
    expectError(await suite.client.post(completePath(theirs.plan.projectId, theirs.tasks[0]!.id)), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(completePath(projectId, theirs.tasks[0]!.id)), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(completePath(projectId, randomUUID())), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(tasksPath(theirs.plan.projectId)), 404, "RESOURCE_NOT_FOUND");
    const restricted = await tokenFor(suite.creator, ["project-subscription:update"], [suite.creator.projectIds[1]!]);
    expectError(await suite.client.request("POST", completePath(projectId, sub.tasks[0]!.id), { token: restricted.token }), 404, "TENANT_MISMATCH");
    const { db } = await testDatabase();
    assert.equal((await db("creator_tasks").where({ id: sub.tasks[0]!.id }).first()).status, "open", "the refused calls changed nothing");
  });
});
