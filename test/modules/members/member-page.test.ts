// What the creator dashboard's member list and member page need: the list's filters (q, plan_id,
// platform, access) with plans and access_state per row, get_member's access per resource with its
// reason, and the quick actions sync_member_access, extend_subscription and cancel now.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { markGrantFulfilled } from "../../../src/modules/subscriptions/grants.ts";
import { banMember } from "../../../src/modules/members/ban.ts";
import { findOrCreateMember } from "../../../src/modules/members/members.ts";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { eventsOf } from "../../helpers/events.ts";
import {
  account,
  activityOf,
  asDomain,
  codesFor,
  DAY,
  expectCredentialRefusals,
  redeem,
  runJob,
  seedPlan,
  subscribedMember,
} from "../subscriptions/commerce.ts";
import { scheduledJobs } from "../../../src/modules/subscriptions/jobs.ts";

type Row = { id: string; plans: { id: string; name: string }[]; access_state: string };

describe("members: the dashboard's list and member page", () => {
  const suite = useApiWithCreator({ creator: { projects: 2, label: "member-page" } });
  const membersPath = (projectId: string) => `/v1/projects/${projectId}/members`;

  it("filters the list by q, plan_id, platform and access (alone and combined); rows carry plans and access_state; links keep the filters", async () => {
    const creator = await createTestCreator({ label: "member-filters" });
    const client = suite.client.withToken(creator.token);
    const projectId = creator.projectIds[0]!;
    const { db } = await testDatabase();
    const gold = await seedPlan(creator, { resources: [{ mode: "membership" }] });
    const silver = await seedPlan(creator, { resources: [{ mode: "membership" }, { mode: "membership" }] });
    const join = async (plan: typeof gold, name: string) => {
      const [code] = await codesFor(creator, plan);
      return redeem(creator, projectId, code!, account(name));
    };
    const alice = await join(gold, "Alice Zed");
    const bob = await join(silver, "Bob 100%");
    const carol = await join(silver, "Carol");
    const dan = await join(gold, "Dan");
    await asDomain(creator, (ctx) => markGrantFulfilled(ctx, alice.grants[0]!.id), { system: true });
    // Carol: one place granted, one whose platform call failed.
    await asDomain(creator, (ctx) => markGrantFulfilled(ctx, carol.grants[0]!.id), { system: true });
    await db("access_grants").where({ id: carol.grants[1]!.id }).update({ platform_attempts: 2, platform_error: "refused: not an admin" });
    await db("members").where({ id: carol.member.id }).update({ email: "carol@Example.org", connector_key: "discord" });
    await asDomain(creator, (ctx) => banMember(ctx, projectId, dan.member.id, {}));

    const ids = async (query: string) => {
      const res = await client.get(`${membersPath(projectId)}?${query}`);
      assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
      return (res.body.data as Row[]).map((m) => m.id);
    };
    const all = (await client.get(membersPath(projectId))).body.data as Row[];
    const row = (id: string) => all.find((m) => m.id === id)!;
    assert.deepEqual(
      row(alice.member.id).plans.map((p) => p.id),
      [gold.planId],
    );
    assert.deepEqual(
      [alice, bob, carol, dan].map((m) => row(m.member.id).access_state),
      ["granted", "pending", "failed", "none"],
    );
    assert.deepEqual(row(dan.member.id).plans, [], "a banned member's subscription ended");

    assert.deepEqual(await ids("q=aLiCe"), [alice.member.id], "q ignores case");
    assert.deepEqual(await ids("q=example.ORG"), [carol.member.id], "q searches the email");
    assert.deepEqual(await ids(`q=${carol.member.external_user_id!.slice(2, 8)}`), [carol.member.id], "q searches the platform user id");
    assert.deepEqual(await ids("q=100%25"), [bob.member.id], "% is matched as text");
    assert.deepEqual(await ids("q=%25"), [bob.member.id]);
    assert.deepEqual(await ids(`plan_id=${silver.planId}`), [carol.member.id, bob.member.id]);
    assert.deepEqual(await ids(`plan_id=${gold.planId}`), [alice.member.id], "only live subscriptions count");
    assert.deepEqual(await ids("platform=discord"), [carol.member.id]);
    assert.deepEqual(await ids("access=granted"), [alice.member.id]);
    assert.deepEqual(await ids("access=pending"), [bob.member.id]);
    assert.deepEqual(await ids("access=failed"), [carol.member.id]);
    assert.deepEqual(await ids("access=none"), [dan.member.id]);
    assert.deepEqual(await ids(`plan_id=${silver.planId}&access=pending`), [bob.member.id]);
    assert.deepEqual(await ids(`plan_id=${silver.planId}&platform=telegram&q=bob`), [bob.member.id]);
    assert.deepEqual(await ids("status=banned&access=none&q=da"), [dan.member.id]);
    assert.deepEqual(await ids(`q=carol&platform=telegram`), []);

    const paged = await client.get(`${membersPath(projectId)}?plan_id=${silver.planId}&q=o&per_page=1`);
    assert.equal(paged.body.meta.total, 2);
    const next = new URL(paged.body.links.next);
    assert.equal(next.searchParams.get("plan_id"), silver.planId);
    assert.equal(next.searchParams.get("q"), "o");
    assert.equal(next.searchParams.get("page"), "2");
    const second = await client.get(next.pathname + next.search);
    assert.deepEqual(
      second.body.data.map((m: Row) => m.id),
      [bob.member.id],
    );

    const other = await createTestCreator({ label: "member-filters-other" });
    const theirs = await subscribedMember(other);
    assert.deepEqual(await ids(`plan_id=${theirs.plan.planId}`), [], "another team's plan matches nothing");
    for (const [query, field] of [
      ["q=", "q"],
      [`q=${"x".repeat(101)}`, "q"],
      ["plan_id=nope", "plan_id"],
      ["platform=Not%20A%20Key", "platform"],
      ["access=maybe", "access"],
    ]) {
      const error = expectError(await client.get(`${membersPath(projectId)}?${query}`), 422, "VALIDATION_FAILED");
      assert.ok(Object.keys(error.fields).includes(field!), `${query}: ${JSON.stringify(error.fields)}`);
    }
  });

  it("get_member explains each resource: covered (access code, trial), pending, platform not linked, no subscription, in no plan, banned, ended", async () => {
    const creator = await createTestCreator({ label: "member-access" });
    const client = suite.client.withToken(creator.token);
    const projectId = creator.projectIds[0]!;
    const { db } = await testDatabase();
    const sub = await subscribedMember(creator, { resources: [{ mode: "membership" }, { mode: "creator_task" }] });
    const elsewhere = await seedPlan(creator, { resources: [{ mode: "role", title: "VIP role" }] });
    const lonely = randomUUID();
    await db("resources").insert({
      id: lonely,
      team_id: creator.teamId,
      project_id: projectId,
      connector_key: "telegram",
      kind: "telegram-channel",
      grant_mode: "membership",
      title: "In no plan",
      created_at: new Date(),
      updated_at: new Date(),
    });
    await asDomain(creator, (ctx) => markGrantFulfilled(ctx, sub.grants[0]!.id), { system: true });
    const path = `${membersPath(projectId)}/${sub.member.id}`;
    const res = await client.get(path);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.access_state, "pending", "the creator task is still open");
    const byResource = (body: { data: { access: { resource_id: string }[] } }) => new Map(body.data.access.map((a: any) => [a.resource_id, a]));
    let access = byResource(res.body);
    assert.equal(access.size, 4, "one entry per resource of the project");
    const [place, perk] = sub.plan.resourceIds;
    assert.deepEqual([access.get(place!).state, access.get(place!).reason.code], ["granted", "access_code"]);
    assert.equal(access.get(place!).reason.subscription_id, sub.subscription.id);
    assert.equal(access.get(place!).reason.plan_id, sub.plan.planId);
    assert.equal(access.get(place!).grant_id, sub.grants[0]!.id);
    assert.deepEqual([access.get(perk!).state, access.get(perk!).reason.code], ["pending", "access_code"]);
    const vip = access.get(elsewhere.resourceIds[0]!);
    assert.deepEqual([vip.state, vip.reason.code, vip.reason.plan_ids], ["none", "plan_excludes_resource", [elsewhere.planId]]);
    assert.deepEqual([access.get(lonely).state, access.get(lonely).reason.code], ["none", "resource_in_no_plan"]);

    // A member whose platform account is on another connector: owed the place, which the connector cannot give.
    const trial = await subscribedMember(creator, { trialDays: 7, resources: [{ mode: "membership" }] });
    await db("members").where({ id: trial.member.id }).update({ connector_key: "discord" });
    access = byResource((await client.get(`${membersPath(projectId)}/${trial.member.id}`)).body);
    const unlinked = access.get(trial.plan.resourceIds[0]!);
    assert.deepEqual([unlinked.state, unlinked.reason.code], ["pending", "platform_account_not_linked"]);
    assert.deepEqual([access.get(place!).state, access.get(place!).reason.code], ["none", "plan_excludes_resource"]);
    await db("members").where({ id: trial.member.id }).update({ connector_key: "telegram" });
    access = byResource((await client.get(`${membersPath(projectId)}/${trial.member.id}`)).body);
    assert.equal(access.get(trial.plan.resourceIds[0]!).reason.code, "trial");

    // A failed platform call: failed, with the platform's words.
    await db("access_grants").where({ id: trial.grants[0]!.id }).update({ platform_attempts: 1, platform_error: "refused: bot is not an admin" });
    access = byResource((await client.get(`${membersPath(projectId)}/${trial.member.id}`)).body);
    assert.deepEqual(
      [access.get(trial.plan.resourceIds[0]!).state, access.get(trial.plan.resourceIds[0]!).platform_error],
      ["failed", "refused: bot is not an admin"],
    );

    // A lead: never subscribed.
    const lead = await asDomain(creator, (ctx) => findOrCreateMember(ctx, projectId, account("Lea")), { system: true });
    access = byResource((await client.get(`${membersPath(projectId)}/${lead.member.id}`)).body);
    assert.deepEqual(
      [access.get(place!).state, access.get(place!).reason.code, access.get(place!).reason.plan_ids],
      ["none", "no_subscription", [sub.plan.planId]],
    );

    // Ended: the expiry job ran past a daily subscription.
    const daily = await subscribedMember(creator, { cycle: "day", resources: [{ mode: "membership" }] });
    await runJob(scheduledJobs, "subscriptions.expire", new Date(Date.now() + 2 * DAY));
    access = byResource((await client.get(`${membersPath(projectId)}/${daily.member.id}`)).body);
    const ended = access.get(daily.plan.resourceIds[0]!);
    assert.deepEqual([ended.state, ended.reason.code, ended.reason.subscription_id], ["none", "subscription_ended", daily.subscription.id]);

    // Banned: every place none, member_banned.
    await client.post(`${path}/ban`, {});
    const banned = await client.get(path);
    assert.equal(banned.body.data.access_state, "none");
    assert.ok(banned.body.data.access.every((a: any) => a.state === "none" && a.reason.code === "member_banned"));

    expectError(await suite.client.get(path), 404, "RESOURCE_NOT_FOUND");
  });

  it("extends a subscription by days: ends_at moves, activity logged, an idempotent replay moves it once; refuses provider-billed (409), ended, lifetime and bad days", async () => {
    const sub = await subscribedMember(suite.creator);
    const path = `/v1/subscriptions/${sub.subscription.id}/extend`;
    const key = randomUUID();
    const res = await suite.client.request("POST", path, { body: { days: 7 }, idempotencyKey: key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const moved = new Date(sub.subscription.ends_at!).getTime() + 7 * DAY;
    assert.equal(res.body.data.ends_at, new Date(moved).toISOString());
    const replay = await suite.client.request("POST", path, { body: { days: 7 }, idempotencyKey: key });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get("idempotent-replay"), "true");
    assert.deepEqual(replay.body, res.body);
    const { db } = await testDatabase();
    assert.equal(new Date((await db("subscriptions").where({ id: sub.subscription.id }).first()).ends_at).getTime(), moved, "moved once");
    const entry = (await activityOf(suite.creator.teamId, sub.subscription.id)).filter((e) => e.event === "extended");
    assert.equal(entry.length, 1);
    assert.equal(entry[0]!.properties.days, 7);
    assert.equal(entry[0]!.properties.previous_ends_at, sub.subscription.ends_at);

    for (const body of [{ days: 0 }, { days: 366 }, { days: 1.5 }, {}]) {
      const error = expectError(await suite.client.post(path, body), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), ["days"], JSON.stringify(body));
    }
    const billed = await subscribedMember(suite.creator);
    await db("subscriptions").where({ id: billed.subscription.id }).update({ provider: "stripe", provider_subscription_id: "sub_test" });
    const refusal = expectError(
      await suite.client.post(`/v1/subscriptions/${billed.subscription.id}/extend`, { days: 3 }),
      409,
      "SUBSCRIPTION_PROVIDER_BILLED",
    );
    assert.equal(refusal.context.provider, "stripe");
    const lifetime = await subscribedMember(suite.creator, { cycle: "lifetime" });
    expectError(await suite.client.post(`/v1/subscriptions/${lifetime.subscription.id}/extend`, { days: 3 }), 422, "VALIDATION_FAILED");
    await suite.client.post(`/v1/subscriptions/${lifetime.subscription.id}/cancel`);
    expectError(await suite.client.post(`/v1/subscriptions/${lifetime.subscription.id}/extend`, { days: 3 }), 422, "VALIDATION_FAILED");

    await expectCredentialRefusals(suite.client, suite.creator, { method: "POST", path, body: { days: 1 }, ability: "project-subscription:update" });
    const other = await createTestCreator({ label: "extend-other" });
    const theirs = await subscribedMember(other);
    expectError(await suite.client.post(`/v1/subscriptions/${theirs.subscription.id}/extend`, { days: 1 }), 404, "RESOURCE_NOT_FOUND");
  });

  it("cancels now with at_period_end false: expired at once, grants revoked; a cancelled one still running can be ended now", async () => {
    const sub = await subscribedMember(suite.creator, { resources: [{ mode: "membership" }] });
    const before = (await eventsOf(suite.creator.teamId)).length;
    const res = await suite.client.post(`/v1/subscriptions/${sub.subscription.id}/cancel`, { at_period_end: false });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "expired");
    const { db } = await testDatabase();
    assert.equal((await db("access_grants").where({ id: sub.grants[0]!.id }).first()).status, "revoked");
    assert.deepEqual(
      (await eventsOf(suite.creator.teamId)).slice(before).map((e) => e.type),
      ["subscription.cancelled", "subscription.expired", "member.churned"],
    );
    const later = await subscribedMember(suite.creator);
    assert.equal((await suite.client.post(`/v1/subscriptions/${later.subscription.id}/cancel`, {})).body.data.status, "canceled");
    assert.equal(
      (await suite.client.post(`/v1/subscriptions/${later.subscription.id}/cancel`, { at_period_end: false })).body.data.status,
      "expired",
    );
    expectError(await suite.client.post(`/v1/subscriptions/${later.subscription.id}/cancel`, { at_period_end: false }), 422, "VALIDATION_FAILED");
    const error = expectError(
      await suite.client.post(`/v1/subscriptions/${later.subscription.id}/cancel`, { at_period_end: "no" }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(error.fields), ["at_period_end"]);
  });

  it("sync_member_access queues the member's outstanding places (202), skips granted and creator tasks, and runs the sweep for them", async () => {
    const sub = await subscribedMember(suite.creator, { resources: [{ mode: "membership" }, { mode: "membership" }, { mode: "creator_task" }] });
    await asDomain(suite.creator, (ctx) => markGrantFulfilled(ctx, sub.grants[1]!.id), { system: true });
    const { db } = await testDatabase();
    const later = new Date(Date.now() + 3600_000);
    await db("access_grants")
      .where({ id: sub.grants[0]!.id })
      .update({ platform_attempts: 2, platform_retry_at: later, platform_error: "refused: x" });
    const path = `${membersPath(sub.plan.projectId)}/${sub.member.id}/sync-access`;
    const res = await suite.client.post(path);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.data.member_id, sub.member.id);
    assert.deepEqual(
      res.body.data.queued.map((q: any) => [q.grant_id, q.action, q.previous_attempts]),
      [[sub.grants[0]!.id, "give", 2]],
    );
    assert.deepEqual(
      res.body.data.not_queued.map((q: any) => [q.grant_id, q.reason]).sort(),
      [
        [sub.grants[1]!.id, "already_applied"],
        [sub.grants[2]!.id, "creator_task"],
      ].sort(),
    );
    assert.equal(res.body.data.ban_queued, false);
    // The sweep ran for the member after the commit: the grant was tried again now, not at its back-off.
    const grant = await db("access_grants").where({ id: sub.grants[0]!.id }).first();
    assert.ok(grant.status === "granted" || grant.platform_attempts === 3, JSON.stringify(grant));
    assert.ok(grant.platform_retry_at === null || new Date(grant.platform_retry_at).getTime() < later.getTime());
    const entries = (await activityOf(suite.creator.teamId, sub.member.id)).filter((e) => e.event === "access_sync_requested");
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.actor_kind, "api_token");

    await expectCredentialRefusals(suite.client, suite.creator, { method: "POST", path, ability: "project-user:update" });
    const other = await createTestCreator({ label: "sync-other" });
    const theirs = await subscribedMember(other);
    expectError(await suite.client.post(`${membersPath(theirs.plan.projectId)}/${theirs.member.id}/sync-access`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(`${membersPath(sub.plan.projectId)}/${theirs.member.id}/sync-access`), 404, "RESOURCE_NOT_FOUND");
  });
});
