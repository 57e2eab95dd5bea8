// The Subscriptions area over REST: the team-wide list with its status and plan_id filters, one
// subscription, cancel (access until ends_at; a lifetime one ends at once).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { activityOf, expectCredentialRefusals, subscribedMember } from "./commerce.ts";

describe("subscriptions", () => {
  const suite = useApiWithCreator({ creator: { projects: 2, label: "subscriptions" } });

  it("lists the team's subscriptions across projects newest first (25 a page), filtered by status and plan_id; gets one", async () => {
    const creator = await createTestCreator({ label: "subs-list", projects: 2 });
    const client = suite.client.withToken(creator.token);
    const a = await subscribedMember(creator);
    const b = await subscribedMember(creator, { projectIndex: 1, trialDays: 3 });
    const res = await client.get("/v1/subscriptions");
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.per_page, 25);
    assert.deepEqual(
      res.body.data.map((s: { id: string }) => s.id),
      [b.subscription.id, a.subscription.id],
    );
    assert.deepEqual(res.body.data[1], a.subscription);
    const ids = async (query: string) => (await client.get(`/v1/subscriptions?${query}`)).body.data.map((s: { id: string }) => s.id);
    assert.deepEqual(await ids("status=trialing"), [b.subscription.id]);
    assert.deepEqual(await ids("status=active"), [a.subscription.id]);
    assert.deepEqual(await ids(`plan_id=${a.plan.planId}`), [a.subscription.id]);
    assert.deepEqual(await ids(`plan_id=${a.plan.planId}&status=trialing`), []);
    assert.deepEqual(await ids("sort_by=ends_at&sort_direction=asc"), [a.subscription.id, b.subscription.id]);
    const restricted = await tokenFor(creator, ["project-subscription:view-any"], [creator.projectIds[0]!]);
    const narrowed = await suite.client.request("GET", "/v1/subscriptions", { token: restricted.token });
    assert.deepEqual(
      narrowed.body.data.map((s: { id: string }) => s.id),
      [a.subscription.id],
    );
    const one = await client.get(`/v1/subscriptions/${b.subscription.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, b.subscription);
    for (const [query, field] of [
      ["status=paused", "status"],
      ["plan_id=nope", "plan_id"],
      ["per_page=0", "per_page"],
    ]) {
      const error = expectError(await client.get(`/v1/subscriptions?${query}`), 422, "VALIDATION_FAILED");
      assert.ok(Object.keys(error.fields).includes(field!), `${query}: ${JSON.stringify(error.fields)}`);
    }
  });

  it("cancels: canceled with access until ends_at (subscription.cancelled, grants kept); 422 when not live", async () => {
    const sub = await subscribedMember(suite.creator);
    const before = (await eventsOf(suite.creator.teamId)).length;
    const res = await suite.client.post(`/v1/subscriptions/${sub.subscription.id}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "canceled");
    assert.ok(res.body.data.canceled_at);
    assert.equal(res.body.data.ends_at, sub.subscription.ends_at, "access continues until the period ends");
    const events = (await eventsOf(suite.creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.cancelled"],
    );
    events.forEach(assertValidEvent);
    const { db } = await testDatabase();
    assert.equal((await db("access_grants").where({ subscription_id: sub.subscription.id }).first()).status, "pending");
    assert.equal((await db("members").where({ id: sub.member.id }).first()).status, "customer");
    assert.deepEqual(
      (await activityOf(suite.creator.teamId, sub.subscription.id)).map((e) => [e.event, e.actor_kind]),
      [
        ["created", "system"],
        ["cancelled", "api_token"],
      ],
    );
    const again = expectError(await suite.client.post(`/v1/subscriptions/${sub.subscription.id}/cancel`), 422, "VALIDATION_FAILED");
    assert.equal(again.context.subscription_id, sub.subscription.id);
  });

  it("cancelling a lifetime subscription ends it at once: expired, grants revoked, the member churned", async () => {
    const sub = await subscribedMember(suite.creator, { cycle: "lifetime" });
    const before = (await eventsOf(suite.creator.teamId)).length;
    const res = await suite.client.post(`/v1/subscriptions/${sub.subscription.id}/cancel`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "expired");
    assert.ok(res.body.data.ends_at && res.body.data.expired_at);
    const events = (await eventsOf(suite.creator.teamId)).slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ["subscription.cancelled", "subscription.expired", "member.churned"],
    );
    events.forEach(assertValidEvent);
    const { db } = await testDatabase();
    assert.equal((await db("access_grants").where({ subscription_id: sub.subscription.id }).first()).status, "revoked");
  });

  it("answers 401, 403 TOKEN_MISSING_ABILITY, and 404 for another team's subscription or one outside the allow-list", async () => {
    const sub = await subscribedMember(suite.creator);
    const path = `/v1/subscriptions/${sub.subscription.id}`;
    await expectCredentialRefusals(suite.client, suite.creator, {
      method: "GET",
      path: "/v1/subscriptions",
      ability: "project-subscription:view-any",
    });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path, ability: "project-subscription:view" });
    await expectCredentialRefusals(suite.client, suite.creator, { method: "POST", path: `${path}/cancel`, ability: "project-subscription:update" });
    const other = await createTestCreator({ label: "subs-other" });
    const theirs = await subscribedMember(other);
    expectError(await suite.client.get(`/v1/subscriptions/${theirs.subscription.id}`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.post(`/v1/subscriptions/${theirs.subscription.id}/cancel`), 404, "RESOURCE_NOT_FOUND");
    expectError(await suite.client.get(`/v1/subscriptions/${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
    const restricted = await tokenFor(suite.creator, ["project-subscription:update", "project-subscription:view"], [suite.creator.projectIds[1]!]);
    expectError(await suite.client.request("POST", `${path}/cancel`, { token: restricted.token }), 404, "RESOURCE_NOT_FOUND");
    const { db } = await testDatabase();
    assert.equal((await db("subscriptions").where({ id: sub.subscription.id }).first()).status, "active", "the refused calls changed nothing");
  });
});
