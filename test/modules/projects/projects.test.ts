// The Projects area: listing (defaults, sorting, the allow-list), creating (generated and custom
// handles, what is refused and that a refusal writes nothing) and reading one with its counts.
// Changes and deletion: changes.test.ts; handle history: handles.test.ts; the tier limit:
// limits.test.ts; 401/403/404 for every operation: access.test.ts.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, expectGrowthRequired, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import type { RunningApi } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createProjectVia, fillProject, handle, projectActivity, projectEvents, snapshot } from "./support.ts";

const HANDLE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

describe("projects: listing, creating, reading", () => {
  const suite = useApiWithCreator({ creator: { label: "projects-owner", projects: 0 } });
  let api: RunningApi;
  let owner: TestCreator;
  let client: ApiClient;
  before(() => ({ api, creator: owner, client } = suite));

  describe("list_projects", () => {
    let lister: TestCreator;
    let ids: string[];
    before(async () => {
      lister = await createTestCreator({ label: "projects-lister", projects: 0 });
      const as = new ApiClient(api.url, lister.token);
      ids = [];
      for (const [name, h] of [
        ["Bravo", "zulu-handle"],
        ["alpha", "mike-handle"],
        ["Charlie", "alpha-handle"],
      ] as const) {
        ids.push((await createProjectVia(as, { name, handle: `${h}-${randomUUID().slice(0, 8)}` })).id);
        await new Promise((r) => setTimeout(r, 5));
      }
    });

    it("lists the team's projects newest first, 25 a page by default", async () => {
      const res = await new ApiClient(api.url, lister.token).get("/v1/projects");
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.per_page, 25);
      assert.equal(res.body.meta.total, 3);
      assert.deepEqual(
        res.body.data.map((p: { id: string }) => p.id),
        [...ids].reverse(),
      );
      for (const p of res.body.data) assert.equal(p.team_id, lister.teamId);
    });

    it("sorts by name (case-insensitive) or handle on request; an unoffered column falls back to created_at", async () => {
      const as = new ApiClient(api.url, lister.token);
      const names = (await as.get("/v1/projects?sort_by=name&sort_direction=asc")).body.data.map((p: { name: string }) => p.name);
      assert.deepEqual(names, ["alpha", "Bravo", "Charlie"]);
      const handles = (await as.get("/v1/projects?sort_by=handle&sort_direction=asc")).body.data.map((p: { handle: string }) => p.handle);
      assert.deepEqual(handles, [...handles].sort());
      assert.ok(handles[0].startsWith("alpha-handle"));
      const fallback = await as.get("/v1/projects?sort_by=secret&sort_direction=asc");
      assert.equal(fallback.status, 200);
      assert.deepEqual(
        fallback.body.data.map((p: { id: string }) => p.id),
        ids,
      );
    });

    it("shows a token with a project allow-list only the projects it names", async () => {
      const restricted = await tokenFor(lister, ["project:view-any"], [ids[0]!, ids[2]!]);
      const res = await new ApiClient(api.url, restricted.token).get("/v1/projects?sort_direction=asc");
      assert.deepEqual(
        res.body.data.map((p: { id: string }) => p.id),
        [ids[0], ids[2]],
      );
      assert.equal(res.body.meta.total, 2);
    });

    it("answers 422 with fields for a bad paging value", async () => {
      const error = expectError(await client.get("/v1/projects?page=0"), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), ["page"]);
    });
  });

  describe("create_project", () => {
    it("creates an active project (201) with a handle made from its name, and writes project.created and its entry", async () => {
      const res = await client.post("/v1/projects", {
        name: "Café Société: Late Readers!",
        description: "Books at night.",
        terms_url: "https://example.com/terms",
      });
      assert.equal(res.status, 201);
      const project = res.body.data;
      assert.match(project.handle, /^cafe-societe-late-readers-[a-z0-9]{6}$/);
      assert.equal(project.status, "active");
      assert.equal(project.archived_at, null);
      assert.equal(project.terms_url, "https://example.com/terms");
      assert.equal(project.privacy_url, null);
      assert.equal(project.team_id, owner.teamId);
      const [event, ...more] = await projectEvents(owner.teamId, "project.created", project.id);
      assert.equal(more.length, 0);
      assert.deepEqual(event!.data, { project });
      const [entry] = await projectActivity(owner.teamId, project.id, "created");
      assert.equal(entry!.project_id, project.id);
      assert.equal(entry!.actor_kind, "api_token");
      assert.deepEqual(entry!.properties.project, project);
      const { db } = await testDatabase();
      const row = await db("project_handles").where({ handle: project.handle }).first();
      assert.equal(row.project_id, project.id);
      assert.equal(row.retired_at, null);
    });

    it("makes a valid handle from any name (no letters or digits: project-…)", async () => {
      for (const name of ["!!!", "ÄÖÜ", "x".repeat(255), "a--b  c"]) {
        const project = await createProjectVia(client, { name });
        assert.match(project.handle, HANDLE, name);
        assert.ok(project.handle.length >= 5 && project.handle.length <= 64, project.handle);
        if (name === "!!!") assert.match(project.handle, /^project-[a-z0-9]{6}$/);
      }
    });

    it("takes a custom handle on Growth", async () => {
      const wanted = handle("custom");
      const project = await createProjectVia(client, { handle: wanted });
      assert.equal(project.handle, wanted);
    });

    it("refuses a custom handle below Growth (403 TEAM_TIER_REQUIRED) and writes nothing; a generated one is fine", async () => {
      for (const tier of ["free", "starter"] as const) {
        const creator = await createTestCreator({ tier, label: `projects-${tier}`, projects: 0 });
        const as = new ApiClient(api.url, creator.token);
        const before = await snapshot(creator.teamId);
        expectGrowthRequired(await as.post("/v1/projects", { name: "Mine", handle: handle() }), tier);
        assert.deepEqual(await snapshot(creator.teamId), before);
        await createProjectVia(as);
      }
    });

    it("refuses a handle anyone holds or is reserved, or a bad field (422 naming it), and writes nothing", async () => {
      const other = await createTestCreator({ label: "projects-other", projects: 0 });
      const ofOther = await createProjectVia(new ApiClient(api.url, other.token), { handle: handle("other") });
      const cases: [Record<string, unknown>, string][] = [
        [{ handle: ofOther.handle }, "handle"],
        [{ handle: "admin" }, "handle"],
        [{ handle: "settings" }, "handle"],
        [{ handle: "Upper-Case" }, "handle"],
        [{ handle: "abcd" }, "handle"],
        [{ handle: "under_score" }, "handle"],
        [{ handle: "-leading" }, "handle"],
        [{ handle: "x".repeat(65) }, "handle"],
        [{ name: "" }, "name"],
        [{ name: "   " }, "name"],
        [{ name: "x".repeat(256) }, "name"],
        [{ description: "x".repeat(1001) }, "description"],
        [{ terms_url: "http://example.com/terms" }, "terms_url"],
        [{ privacy_url: "not a url" }, "privacy_url"],
        [{ team_id: other.teamId }, "team_id"],
      ];
      for (const [body, field] of cases) {
        const before = await snapshot(owner.teamId);
        const error = expectError(await client.post("/v1/projects", { name: "Refused", ...body }), 422, "VALIDATION_FAILED");
        assert.deepEqual(Object.keys(error.fields), [field], JSON.stringify(body));
        assert.deepEqual(await snapshot(owner.teamId), before, `nothing written for ${JSON.stringify(body)}`);
      }
    });

    it("refuses a token restricted to a project allow-list (404 TENANT_MISMATCH) and writes nothing", async () => {
      const creator = await createTestCreator({ label: "projects-restricted", projects: 1 });
      const restricted = await tokenFor(creator, ["project:create"], creator.projectIds);
      const before = await snapshot(creator.teamId);
      expectError(await new ApiClient(api.url, restricted.token).post("/v1/projects", { name: "Outside" }), 404, "TENANT_MISMATCH");
      assert.deepEqual(await snapshot(creator.teamId), before);
    });

    it("gives one of two concurrent creations with the same handle the handle, the other 422", async () => {
      const wanted = handle("race");
      const other = await createTestCreator({ label: "projects-race", projects: 0 });
      const results = await Promise.all([
        client.post("/v1/projects", { name: "Racer A", handle: wanted }),
        new ApiClient(api.url, other.token).post("/v1/projects", { name: "Racer B", handle: wanted }),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 422]);
      const { db } = await testDatabase();
      assert.equal((await db("projects").where({ handle: wanted })).length, 1);
    });
  });

  describe("get_project", () => {
    it("answers the project with its counts, computed by the database", async () => {
      const project = await createProjectVia(client);
      const empty = await client.get(`/v1/projects/${project.id}`);
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body.data, { ...project, counts: { plans: 0, resources: 0, members: 0, installations: 0 } });
      await fillProject(owner, project.id, { plans: 2, resources: 3, members: 4 });
      const neighbour = await createProjectVia(client);
      await fillProject(owner, neighbour.id, { plans: 1, resources: 1, members: 1 });
      const full = await client.get(`/v1/projects/${project.id}`);
      assert.deepEqual(full.body.data.counts, { plans: 2, resources: 3, members: 4, installations: 1 });
    });

    it("answers 404 for an unknown id, another team's project, and one outside the allow-list", async () => {
      const mine = await createProjectVia(client);
      const other = await createProjectVia(client);
      expectError(await client.get(`/v1/projects/${randomUUID()}`), 404, "RESOURCE_NOT_FOUND");
      const stranger = await createTestCreator({ label: "projects-stranger", projects: 0 });
      expectError(await new ApiClient(api.url, stranger.token).get(`/v1/projects/${mine.id}`), 404, "RESOURCE_NOT_FOUND");
      const restricted = await tokenFor(owner, ["project:view"], [mine.id]);
      const as = new ApiClient(api.url, restricted.token);
      assert.equal((await as.get(`/v1/projects/${mine.id}`)).status, 200);
      expectError(await as.get(`/v1/projects/${other.id}`), 404, "TENANT_MISMATCH");
    });
  });
});
