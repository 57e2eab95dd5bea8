// The tier's project limit (Free 3, Starter 10, Growth 20): every project counts, archived ones
// included; deleting one frees its place; the domain function the CLI and the demo use obeys it too.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { startApi, type RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext, systemActor } from "../../../src/db/tenant.ts";
import { createProject } from "../../../src/modules/projects/projects.ts";
import { ApiError } from "../../../src/errors.ts";
import { createProjectVia, patch, snapshot } from "./support.ts";

describe("projects: the tier's project limit", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api?.close());

  function expectLimit(res: Awaited<ReturnType<ApiClient["post"]>>, context: Record<string, unknown>) {
    const error = expectError(res, 403, "TEAM_TIER_REQUIRED");
    assert.deepEqual(error.context, context);
  }

  for (const [tier, limit, required] of [
    ["free", 3, "starter"],
    ["starter", 10, "growth"],
    ["growth", 20, null],
  ] as const) {
    it(`${tier}: ${limit} projects, then 403 TEAM_TIER_REQUIRED naming ${required ?? "no tier"}, writing nothing`, async () => {
      const creator = await createTestCreator({ tier, label: `projects-limit-${tier}`, projects: limit - 1 });
      const client = new ApiClient(api.url, creator.token);
      await createProjectVia(client);
      const before = await snapshot(creator.teamId);
      expectLimit(await client.post("/v1/projects", { name: "One too many" }), {
        required_tier: required,
        current_tier: tier,
        project_limit: limit,
        project_count: limit,
      });
      assert.deepEqual(await snapshot(creator.teamId), before);
    });
  }

  describe("on one Free team", () => {
    let creator: TestCreator;
    let client: ApiClient;
    before(async () => {
      creator = await createTestCreator({ tier: "free", label: "projects-limit-free", projects: 3 });
      client = new ApiClient(api.url, creator.token);
    });

    it("counts archived projects; deleting one frees its place", async () => {
      await patch(client, `/v1/projects/${creator.projectIds[0]}`, { status: "archived" });
      expectError(await client.post("/v1/projects", { name: "Still too many" }), 403, "TEAM_TIER_REQUIRED");
      assert.equal((await client.delete(`/v1/projects/${creator.projectIds[0]}`)).status, 204);
      await createProjectVia(client, { name: "In the freed place" });
      expectError(await client.post("/v1/projects", { name: "Full again" }), 403, "TEAM_TIER_REQUIRED");
    });

    it("holds for the domain function the operator CLI and the demo use", async () => {
      const { db } = await testDatabase();
      const actor = { ...systemActor(creator.teamId), userId: creator.userId };
      await assert.rejects(
        db.transaction((trx) => createProject(createDomainContext(trx, actor, new Date()), { name: "By the operator" })),
        (err: unknown) => err instanceof ApiError && err.code === "TEAM_TIER_REQUIRED",
      );
    });
  });

  it("lets only one of two concurrent creations take the last place", async () => {
    const creator = await createTestCreator({ tier: "free", label: "projects-limit-race", projects: 2 });
    const client = new ApiClient(api.url, creator.token);
    const results = await Promise.all([client.post("/v1/projects", { name: "Racer A" }), client.post("/v1/projects", { name: "Racer B" })]);
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 403]);
    const { db } = await testDatabase();
    assert.equal((await db("projects").where({ team_id: creator.teamId })).length, 3);
  });
});
