// The Members area over REST: the list with its status filter, one member, ban (subscriptions
// cancelled, grants revoked, the connector's work recorded, member.banned) and unban.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { markGrantFulfilled } from "../../../src/modules/subscriptions/grants.ts";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { activityOf, asDomain, DAY, expectCredentialRefusals, runJob, subscribedMember } from "../subscriptions/commerce.ts";
import { scheduledJobs } from "../../../src/modules/subscriptions/jobs.ts";

describe("members", () => {
  const suite = useApiWithCreator({ creator: { projects: 2, label: "members" } });
  const membersPath = (projectId: string) => `/v1/projects/${projectId}/members`;
  const memberPath = (projectId: string, id: string) => `${membersPath(projectId)}/${id}`;

  it("lists a project's members newest first (25 a page by default), filtered by status; gets one", async () => {
    const creator = await createTestCreator({ label: "members-list" });
    const client = suite.client.withToken(creator.token);
    const projectId = creator.projectIds[0]!;
    const customer = await subscribedMember(creator);
    const trialing = await subscribedMember(creator, { trialDays: 7 });
    const churned = await subscribedMember(creator, { cycle: "day" });
    await runJob(scheduledJobs, "subscriptions.expire", new Date(Date.now() + 2 * DAY));
    const res = await client.get(membersPath(projectId));
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.per_page, 25);
    assert.deepEqual(
      res.body.data.map((m: { id: string }) => m.id),
      [churned.member.id, trialing.member.id, customer.member.id],
    );
    const byStatus = async (status: string) =>
      (await client.get(`${membersPath(projectId)}?status=${status}`)).body.data.map((m: { id: string }) => m.id);
    assert.deepEqual(await byStatus("customer"), [customer.member.id]);
    assert.deepEqual(await byStatus("trialing"), [trialing.member.id]);
    assert.deepEqual(await byStatus("churned"), [churned.member.id]);
    assert.deepEqual(await byStatus("lead"), []);
    const one = await client.get(memberPath(projectId, customer.member.id));
    assert.equal(one.status, 200);
    const { plans, access_state, access, ...member } = one.body.data;
    assert.deepEqual(member, { ...customer.member, updated_at: one.body.data.updated_at });
    assert.deepEqual(
      plans.map((p: { id: string }) => p.id),
      [customer.plan.planId],
    );
    assert.equal(access_state, "pending");
    assert.equal(access.length, 3, "one entry per resource of the project");
    assert.equal(one.body.data.email, null);
    for (const query of ["status=vip", "per_page=0", "page=-1"]) {
      const error = expectError(await client.get(`${membersPath(projectId)}?${query}`), 422, "VALIDATION_FAILED");
      assert.ok(Object.keys(error.fields).length, query);
    }
  });

  it("bans a member: live subscriptions cancelled ending now, grants revoked, the connector's work recorded, member.banned; unban makes them churned", async () => {
    const sub = await subscribedMember(suite.creator, { resources: [{ mode: "membership" }, { mode: "creator_task" }] });
    await asDomain(suite.creator, (ctx) => markGrantFulfilled(ctx, sub.grants[0]!.id), { system: true });
    const projectId = sub.plan.projectId;
    const before = (await eventsOf(suite.creator.teamId)).length;
    const res = await suite.client.post(`${memberPath(projectId, sub.member.id)}/ban`, { reason: "Spam in the group" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "banned");
    assert.equal(res.body.data.ban_reason, "Spam in the group");
    const { db } = await testDatabase();
    const subscription = await db("subscriptions").where({ id: sub.subscription.id }).first();
    assert.equal(subscription.status, "canceled");
    assert.ok(new Date(subscription.ends_at).getTime() <= Date.now(), "access ends now");
    const grants = await db("access_grants").where({ member_id: sub.member.id }).select("status", "platform_synced_at");
    assert.ok(grants.every((g: { status: string; platform_synced_at: Date | null }) => g.status === "revoked" && g.platform_synced_at === null));
    const member = await db("members").where({ id: sub.member.id }).first();
    assert.equal(member.platform_synced_at, null, "the connector has the ban to apply");
    assert.equal((await db("creator_tasks").where({ grant_id: sub.grants[1]!.id }).first()).status, "void");
    const events = (await eventsOf(suite.creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.cancelled", "member.resource_removed", "member.banned"],
    );
    events.forEach(assertValidEvent);
    assert.equal(events[2]!.data.reason, "Spam in the group");

    const count = (await eventsOf(suite.creator.teamId)).length;
    assert.equal((await suite.client.post(`${memberPath(projectId, sub.member.id)}/ban`, {})).body.data.status, "banned");
    assert.equal((await eventsOf(suite.creator.teamId)).length, count, "banning a banned member changes nothing");
    // The expiry job ends the cancelled subscription; the member stays banned.
    await runJob(scheduledJobs, "subscriptions.expire", new Date(Date.now() + 1000));
    assert.equal((await db("members").where({ id: sub.member.id }).first()).status, "banned");

    const unbanned = await suite.client.post(`${memberPath(projectId, sub.member.id)}/unban`);
    assert.equal(unbanned.status, 200);
    assert.equal(unbanned.body.data.status, "churned");
    assert.equal(unbanned.body.data.ban_reason, null);
    const last = (await eventsOf(suite.creator.teamId)).at(-1)!;
    assert.equal(last.type, "member.unbanned");
    assertValidEvent(last);
    assert.deepEqual((await activityOf(suite.creator.teamId, sub.member.id)).map((e) => [e.event, e.actor_kind]).slice(-2), [
      ["banned", "api_token"],
      ["unbanned", "api_token"],
    ]);
    const again = expectError(await suite.client.post(`${memberPath(projectId, sub.member.id)}/unban`), 422, "VALIDATION_FAILED");
    assert.equal(again.context.member_id, sub.member.id);
    const long = expectError(
      await suite.client.post(`${memberPath(projectId, sub.member.id)}/ban`, { reason: "x".repeat(501) }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(long.fields), ["reason"]);
  });

  it("answers 401, 403 TOKEN_MISSING_ABILITY and 404 for another team's member, a member of another project or outside the allow-list", async () => {
    const sub = await subscribedMember(suite.creator);
    const projectId = sub.plan.projectId;
    const path = memberPath(projectId, sub.member.id);
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: membersPath(projectId), ability: "project-user:view-any" });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path, ability: "project-user:view" });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "POST", path: `${path}/ban`, body: {}, ability: "project-user:update" });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "POST", path: `${path}/unban`, ability: "project-user:update" });
    const other = await createTestCreator({ label: "members-other" });
    const theirs = await subscribedMember(other);
    expectError(await suite.client.get(memberPath(theirs.plan.projectId, theirs.member.id)), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(`${memberPath(projectId, theirs.member.id)}/ban`, {}), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(memberPath(suite.creator.projectIds[1]!, sub.member.id)), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(memberPath(projectId, randomUUID())), 404, "RESOURCE_NOT_FOUND");
    const restricted = await tokenFor(suite.creator, ["project-user:update", "project-user:view"], [suite.creator.projectIds[1]!]);
    expectError(await suite.client.request("POST", `${path}/ban`, { body: {}, token: restricted.token }), 404, "TENANT_MISMATCH");
    const { db } = await testDatabase();
    assert.equal((await db("members").where({ id: sub.member.id }).first()).status, "customer", "the refused calls changed nothing");
  });
});
