// Changing a project (fields, archive and restore) and deleting it, with the events and activity
// entries each writes, and what a refusal leaves alone.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import type { RunningApi } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createProjectVia, fillProject, handle, patch, projectActivity, projectEvents, snapshot } from "./support.ts";

describe("projects: changing and deleting", () => {
  const suite = useApiWithCreator({ creator: { label: "projects-changes", projects: 0 } });
  let api: RunningApi;
  let owner: TestCreator;
  let client: ApiClient;
  before(() => ({ api, creator: owner, client } = suite));

  describe("update_project", () => {
    it("changes only what was sent (200), and project.updated names the changed fields and their previous values", async () => {
      const project = await createProjectVia(client, { name: "Before", description: "Old words", terms_url: "https://example.com/t" });
      const res = await patch(client, `/v1/projects/${project.id}`, { name: "After", description: null, privacy_url: "https://example.com/p" });
      assert.equal(res.status, 200);
      const changed = res.body.data;
      assert.deepEqual(
        { ...changed, updated_at: project.updated_at },
        { ...project, name: "After", description: null, privacy_url: "https://example.com/p" },
      );
      assert.ok(changed.updated_at >= project.updated_at);
      assert.deepEqual((await client.get(`/v1/projects/${project.id}`)).body.data.name, "After");
      const [event, ...more] = await projectEvents(owner.teamId, "project.updated", project.id);
      assert.equal(more.length, 0);
      assert.deepEqual(event!.data, {
        project: changed,
        changed_fields: ["name", "description", "privacy_url"],
        previous: { name: "Before", description: "Old words", privacy_url: null },
      });
      const [entry] = await projectActivity(owner.teamId, project.id, "updated");
      assert.deepEqual(entry!.properties.changed_fields, ["name", "description", "privacy_url"]);
    });

    it("writes nothing for a body that changes nothing (200 with the project as it is)", async () => {
      const project = await createProjectVia(client, { name: "Same" });
      const before = await snapshot(owner.teamId);
      const res = await patch(client, `/v1/projects/${project.id}`, { name: "Same", handle: project.handle, status: "active" });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, project);
      assert.deepEqual(await snapshot(owner.teamId), before);
    });

    it("archives (project.archived, archived_at set) and restores (project.restored), each with its entry", async () => {
      const project = await createProjectVia(client);
      const archived = (await patch(client, `/v1/projects/${project.id}`, { status: "archived" })).body.data;
      assert.equal(archived.status, "archived");
      assert.ok(archived.archived_at);
      const listed = (await client.get("/v1/projects?per_page=100")).body.data.find((p: { id: string }) => p.id === project.id);
      assert.equal(listed.status, "archived", "archived projects are still listed");
      const restored = (await patch(client, `/v1/projects/${project.id}`, { status: "active" })).body.data;
      assert.equal(restored.status, "active");
      assert.equal(restored.archived_at, null);
      assert.equal(restored.handle, project.handle, "archiving keeps the handle");
      assert.deepEqual(
        (await projectEvents(owner.teamId, "project.archived", project.id)).map((e) => e.data.project),
        [archived],
      );
      assert.deepEqual(
        (await projectEvents(owner.teamId, "project.restored", project.id)).map((e) => e.data.project),
        [restored],
      );
      assert.deepEqual(await projectEvents(owner.teamId, "project.updated", project.id), [], "a status change alone is not project.updated");
      assert.equal((await projectActivity(owner.teamId, project.id, "archived")).length, 1);
      assert.equal((await projectActivity(owner.teamId, project.id, "restored")).length, 1);
    });

    it("writes project.updated and project.archived when one body does both", async () => {
      const project = await createProjectVia(client, { name: "Both" });
      await patch(client, `/v1/projects/${project.id}`, { name: "Both, archived", status: "archived" });
      assert.equal((await projectEvents(owner.teamId, "project.updated", project.id)).length, 1);
      assert.equal((await projectEvents(owner.teamId, "project.archived", project.id)).length, 1);
    });

    it("refuses an empty body, an unknown status or field, a blank name, a bad link or handle (422 naming it), writing nothing", async () => {
      const project = await createProjectVia(client);
      const cases: [unknown, string][] = [
        [{}, "body"],
        [{ status: "deleted" }, "status"],
        [{ name: " " }, "name"],
        [{ terms_url: "ftp://example.com" }, "terms_url"],
        [{ handle: "no" }, "handle"],
        [{ handle: "support" }, "handle"],
        [{ team_id: owner.teamId }, "team_id"],
      ];
      for (const [body, field] of cases) {
        const before = await snapshot(owner.teamId);
        const error = expectError(await patch(client, `/v1/projects/${project.id}`, body), 422, "VALIDATION_FAILED");
        assert.deepEqual(Object.keys(error.fields), [field], JSON.stringify(body));
        assert.deepEqual(await snapshot(owner.teamId), before, `nothing written for ${JSON.stringify(body)}`);
      }
    });

    it("answers 404 for another team's project and one outside the allow-list, changing nothing", async () => {
      const mine = await createProjectVia(client, { name: "Untouched" });
      const stranger = await createTestCreator({ label: "projects-changes-stranger", projects: 0 });
      expectError(await patch(new ApiClient(api.url, stranger.token), `/v1/projects/${mine.id}`, { name: "Taken over" }), 404, "RESOURCE_NOT_FOUND");
      const elsewhere = await createProjectVia(client);
      const restricted = await tokenFor(owner, ["project:update"], [elsewhere.id]);
      expectError(await patch(new ApiClient(api.url, restricted.token), `/v1/projects/${mine.id}`, { name: "Taken over" }), 404, "TENANT_MISMATCH");
      assert.equal((await client.get(`/v1/projects/${mine.id}`)).body.data.name, "Untouched");
    });
  });

  describe("delete_project", () => {
    it("deletes the project and everything in it (204), writes project.deleted and its entry, and keeps its handle reserved", async () => {
      const wanted = handle("gone");
      const project = await createProjectVia(client, { handle: wanted });
      await fillProject(owner, project.id, { plans: 2, resources: 2, members: 2 });
      const res = await client.delete(`/v1/projects/${project.id}`);
      assert.equal(res.status, 204);
      const { db } = await testDatabase();
      for (const table of ["projects", "plans", "resources", "members", "connector_installations"]) {
        const column = table === "projects" ? "id" : "project_id";
        assert.equal((await db(table).where({ [column]: project.id })).length, 0, `${table} rows are gone`);
      }
      expectError(await client.get(`/v1/projects/${project.id}`), 404, "RESOURCE_NOT_FOUND");
      const [event] = await projectEvents(owner.teamId, "project.deleted", project.id);
      assert.deepEqual(event!.data, { project });
      assert.equal((await projectActivity(owner.teamId, project.id, "deleted")).length, 1);
      // The activity of a deleted project stays readable (its access-codes payment method came with it).
      const log = await client.get(`/v1/activity?subject_type=project&subject_id=${project.id}`);
      assert.deepEqual(
        log.body.data.map((e: { event: string }) => e.event),
        ["deleted", "payment_method_created", "created"],
      );
      const again = await client.post("/v1/projects", { name: "Impostor", handle: wanted });
      assert.deepEqual(Object.keys(expectError(again, 422, "VALIDATION_FAILED").fields), ["handle"]);
    });

    it("leaves a token whose allow-list named the project reaching nothing", async () => {
      const project = await createProjectVia(client);
      const restricted = await tokenFor(owner, ["project:view-any", "project:view"], [project.id]);
      const as = new ApiClient(api.url, restricted.token);
      assert.equal((await as.get("/v1/projects")).body.meta.total, 1);
      assert.equal((await client.delete(`/v1/projects/${project.id}`)).status, 204);
      const after = await as.get("/v1/projects");
      assert.equal(after.status, 200);
      assert.deepEqual(after.body.data, []);
      expectError(await as.get(`/v1/projects/${project.id}`), 404, "RESOURCE_NOT_FOUND");
    });

    it("answers 404 for another team's project and one outside the allow-list, deleting nothing", async () => {
      const mine = await createProjectVia(client);
      const stranger = await createTestCreator({ label: "projects-delete-stranger", projects: 0 });
      expectError(await new ApiClient(api.url, stranger.token).delete(`/v1/projects/${mine.id}`), 404, "RESOURCE_NOT_FOUND");
      const elsewhere = await createProjectVia(client);
      const restricted = await tokenFor(owner, ["project:delete"], [elsewhere.id]);
      expectError(await new ApiClient(api.url, restricted.token).delete(`/v1/projects/${mine.id}`), 404, "TENANT_MISMATCH");
      assert.equal((await client.get(`/v1/projects/${mine.id}`)).status, 200);
    });
  });
});
