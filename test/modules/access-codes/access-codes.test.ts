// The Access codes area over REST: bulk generation (quota per tier, expiry, codes shown once),
// the masked list with its status filter and default page size, deletion; activity and events.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createTestCreator, tokenFor } from "../../helpers/fixtures.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { activityOf, codesFor, DAY, expectCredentialRefusals, redeem, seedPlan } from "../subscriptions/commerce.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("access codes", () => {
  const suite = useApiWithCreator({ creator: { projects: 2, label: "codes" } });
  const codesPath = (plan: { projectId: string; planId: string }) => `/v1/projects/${plan.projectId}/plans/${plan.planId}/access-codes`;

  describe("POST .../access-codes (bulk_generate_access_codes)", () => {
    it("generates a batch (201): each code a lowercase UUID v4 shown once, stored only hashed; access_code.generated once; an activity entry on the plan", async () => {
      const plan = await seedPlan(suite.creator);
      const before = (await eventsOf(suite.creator.teamId)).length;
      const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
      const res = await suite.client.post(codesPath(plan), { quantity: 3, expires_at: expiresAt });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const batch = res.body.data;
      assert.equal(batch.count, 3);
      assert.equal(batch.plan_id, plan.planId);
      assert.equal(batch.expires_at, expiresAt);
      assert.equal(batch.codes.length, 3);
      for (const code of batch.codes) {
        assert.match(code.code, UUID_V4);
        assert.equal(code.code_masked, `${code.code.slice(0, 4)}${"*".repeat(28)}${code.code.slice(-4)}`);
        assert.equal(code.status, "unredeemed");
        assert.equal(code.batch_id, batch.batch_id);
      }
      assert.equal(new Set(batch.codes.map((c: { code: string }) => c.code)).size, 3);
      const { db } = await testDatabase();
      const stored = JSON.stringify(await db("access_codes").where({ batch_id: batch.batch_id }).select("*"));
      for (const code of batch.codes) assert.ok(!stored.includes(code.code), "the code itself is never stored");
      const events = (await eventsOf(suite.creator.teamId)).slice(before);
      assert.deepEqual(
        events.map((e) => e.type),
        ["access_code.generated"],
      );
      assertValidEvent(events[0]!);
      assert.deepEqual(events[0]!.data, { batch_id: batch.batch_id, plan_id: plan.planId, count: 3, expires_at: expiresAt });
      const entries = await activityOf(suite.creator.teamId, plan.planId);
      assert.deepEqual(
        entries.map((e) => [e.event, e.subject_type, e.actor_kind, e.causer_id]),
        [["access_codes_generated", "plan", "api_token", suite.creator.userId]],
      );
    });

    it("refuses a bad quantity, a past expiry or unknown fields (422 with fields), and a plan that is not published (422); nothing generated", async () => {
      const plan = await seedPlan(suite.creator);
      for (const [body, field] of [
        [{ quantity: 0 }, "quantity"],
        [{ quantity: 1001 }, "quantity"],
        [{}, "quantity"],
        [{ quantity: 1, expires_at: "soon" }, "expires_at"],
        [{ quantity: 1, expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at"],
        [{ quantity: 1, code: "mine" }, "code"],
      ] as const) {
        const error = expectError(await suite.client.post(codesPath(plan), body), 422, "VALIDATION_FAILED");
        assert.ok(
          Object.keys(error.fields ?? {}).some((k) => k.startsWith(field)),
          `${JSON.stringify(body)}: ${JSON.stringify(error.fields)}`,
        );
      }
      const draft = await seedPlan(suite.creator, { status: "draft" });
      const refusal = expectError(await suite.client.post(codesPath(draft), { quantity: 1 }), 422, "VALIDATION_FAILED");
      assert.equal(refusal.context.plan_id, draft.planId);
      const { db } = await testDatabase();
      assert.equal((await db("access_codes").whereIn("plan_id", [plan.planId, draft.planId]).select("id")).length, 0);
    });

    it("counts the month's codes across the team against the tier's quota: 400 ACCESS_CODE_CAP_EXCEEDED with remaining and limit", async () => {
      const free = await createTestCreator({ tier: "free", projects: 2, label: "codes-free" });
      const client = new ApiClient(suite.api.url, free.token);
      const first = await seedPlan(free);
      const second = await seedPlan(free, { projectIndex: 1 });
      assert.equal((await client.post(codesPath(first), { quantity: 3 })).body.data.quota_remaining, 2);
      const error = expectError(await client.post(codesPath(second), { quantity: 3 }), 400, "ACCESS_CODE_CAP_EXCEEDED");
      assert.deepEqual(error.context, { limit: 5, remaining: 2 });
      assert.equal((await client.post(codesPath(second), { quantity: 2 })).status, 201);
      const none = expectError(await client.post(codesPath(first), { quantity: 1 }), 400, "ACCESS_CODE_CAP_EXCEEDED");
      assert.deepEqual(none.context, { limit: 5, remaining: 0 });
      // Last month's codes do not count.
      const { db } = await testDatabase();
      const lastMonth = new Date();
      lastMonth.setUTCDate(0);
      await db("access_codes").where({ team_id: free.teamId }).update({ created_at: lastMonth });
      assert.equal((await client.post(codesPath(first), { quantity: 5 })).status, 201);
      const starter = await createTestCreator({ tier: "starter", label: "codes-starter" });
      const starterPlan = await seedPlan(starter);
      const overStarter = expectError(
        await new ApiClient(suite.api.url, starter.token).post(codesPath(starterPlan), { quantity: 201 }),
        400,
        "ACCESS_CODE_CAP_EXCEEDED",
      );
      assert.deepEqual(overStarter.context, { limit: 200, remaining: 200 });
    });

    it("answers 401, 403 TOKEN_MISSING_ABILITY, and 404 for another team's plan or a plan of another project", async () => {
      const plan = await seedPlan(suite.creator);
      await expectCredentialRefusals(suite.client, suite.creator, {
        method: "POST",
        path: codesPath(plan),
        body: { quantity: 1 },
        ability: "project-access-code:create",
      });
      const other = await createTestCreator({ label: "codes-other" });
      const otherPlan = await seedPlan(other);
      expectError(await suite.client.post(codesPath(otherPlan), { quantity: 1 }), 404, "RESOURCE_NOT_FOUND");
      expectError(
        await suite.client.post(codesPath({ projectId: suite.creator.projectIds[1]!, planId: plan.planId }), { quantity: 1 }),
        404,
        "RESOURCE_NOT_FOUND",
      );
      const restricted = await tokenFor(suite.creator, ["project-access-code:create"], [suite.creator.projectIds[1]!]);
      expectError(await suite.client.request("POST", codesPath(plan), { body: { quantity: 1 }, token: restricted.token }), 404, "TENANT_MISMATCH");
    });
  });

  describe("GET .../access-codes (list_access_codes)", () => {
    it("lists masked codes newest first, 50 a page by default, filtered by status", async () => {
      const plan = await seedPlan(suite.creator);
      const codes = await codesFor(suite.creator, plan, 3, new Date(Date.now() + DAY));
      await redeem(suite.creator, plan.projectId, codes[0]!);
      const { db } = await testDatabase();
      const expired = await db("access_codes").where({ plan_id: plan.planId, status: "unredeemed" }).first("id");
      await db("access_codes").where({ id: expired.id }).update({ status: "expired" });
      const res = await suite.client.get(codesPath(plan));
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.per_page, 50);
      assert.equal(res.body.meta.total, 3);
      for (const row of res.body.data) {
        assert.ok(!("code" in row), "a list never shows the code");
        assert.ok(!codes.includes(row.code_masked));
      }
      const byStatus = async (status: string) =>
        (await suite.client.get(`${codesPath(plan)}?status=${status}`)).body.data.map((c: { status: string }) => c.status);
      assert.deepEqual(await byStatus("redeemed"), ["redeemed"]);
      assert.deepEqual(await byStatus("unredeemed"), ["unredeemed"]);
      assert.deepEqual(await byStatus("expired"), ["expired"]);
      assert.equal((await suite.client.get(`${codesPath(plan)}?status=expired`)).body.data[0].id, expired.id);
      const redeemed = (await suite.client.get(`${codesPath(plan)}?status=redeemed`)).body.data[0];
      assert.ok(redeemed.redeemed_at && redeemed.redeemed_by_member_id && redeemed.subscription_id);
      assert.equal((await suite.client.get(`${codesPath(plan)}?per_page=2&page=2`)).body.data.length, 1);
    });

    it("refuses a bad status or paging value (422 with fields), answers 401, 403 and 404", async () => {
      const plan = await seedPlan(suite.creator);
      for (const query of ["status=used", "per_page=0", "page=0", "sort_direction=up"]) {
        const error = expectError(await suite.client.get(`${codesPath(plan)}?${query}`), 422, "VALIDATION_FAILED");
        assert.ok(Object.keys(error.fields).length > 0, query);
      }
      await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: codesPath(plan), ability: "project-access-code:view-any" });
      expectError(await suite.client.get(codesPath({ projectId: plan.projectId, planId: randomUUID() })), 404, "RESOURCE_NOT_FOUND");
    });
  });

  describe("DELETE .../access-codes/{access_code} (delete_access_code)", () => {
    it("deletes a code (204) so it no longer redeems; access_code.deleted and an activity entry", async () => {
      const plan = await seedPlan(suite.creator);
      const batch = (await suite.client.post(codesPath(plan), { quantity: 1 })).body.data;
      const [code] = batch.codes;
      const before = (await eventsOf(suite.creator.teamId)).length;
      const res = await suite.client.delete(`${codesPath(plan)}/${code.id}`);
      assert.equal(res.status, 204);
      const events = (await eventsOf(suite.creator.teamId)).slice(before);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.access_code.id]),
        [["access_code.deleted", code.id]],
      );
      assertValidEvent(events[0]!);
      assert.deepEqual(
        (await activityOf(suite.creator.teamId, code.id)).map((e) => [e.event, e.subject_type]),
        [["deleted", "access-code"]],
      );
      await assert.rejects(redeem(suite.creator, plan.projectId, code.code), /ACCESS_CODE_INVALID|No access code/);
      expectError(await suite.client.delete(`${codesPath(plan)}/${code.id}`), 404, "RESOURCE_NOT_FOUND");
    });

    it("answers 401, 403 TOKEN_MISSING_ABILITY and 404 for a code of another plan", async () => {
      const plan = await seedPlan(suite.creator);
      const other = await seedPlan(suite.creator);
      const [id] = (await suite.client.post(codesPath(plan), { quantity: 1 })).body.data.codes.map((c: { id: string }) => c.id);
      await expectCredentialRefusals(suite.client, suite.creator, {
        method: "DELETE",
        path: `${codesPath(plan)}/${id}`,
        ability: "project-access-code:delete",
      });
      expectError(await suite.client.delete(`${codesPath(other)}/${id}`), 404, "RESOURCE_NOT_FOUND");
      const { db } = await testDatabase();
      assert.ok(await db("access_codes").where({ id }).first("id"), "the refused calls left the code");
    });
  });
});
