// Handles and their history: a superseded handle stays reserved (for everyone but the project
// that held it, which may take it back), the portal finds a project by its current handle only,
// and changing a handle is a custom handle (Growth).
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { createTestCreator, expectGrowthRequired, type TestCreator } from "../../helpers/fixtures.ts";
import type { RunningApi } from "../../helpers/server.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { handleFromName, handleProblem, projectByPortalHandle } from "../../../src/modules/projects/handles.ts";
import { createProjectVia, handle, patch, projectEvents, snapshot } from "./support.ts";

async function portal(h: string) {
  return projectByPortalHandle((await testDatabase()).db, h);
}

async function history(projectId: string) {
  const { db } = await testDatabase();
  return (await db("project_handles").where({ project_id: projectId }).orderBy("created_at").select("handle", "retired_at")) as {
    handle: string;
    retired_at: Date | null;
  }[];
}

describe("projects: handles and their history", () => {
  const suite = useApiWithCreator({ creator: { label: "projects-handles", projects: 0 } });
  let api: RunningApi;
  let owner: TestCreator;
  let client: ApiClient;
  before(() => ({ api, creator: owner, client } = suite));

  it("moves a project to a new handle: the portal finds it there, and answers nothing for the old one", async () => {
    const first = handle("first");
    const second = handle("second");
    const project = await createProjectVia(client, { handle: first });
    assert.equal((await portal(first))?.id, project.id);
    const res = await patch(client, `/v1/projects/${project.id}`, { handle: second });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.handle, second);
    assert.equal(await portal(first), null, "a superseded handle opens nothing");
    assert.deepEqual(await portal(second), {
      id: project.id,
      team_id: owner.teamId,
      name: project.name,
      handle: second,
      description: project.description,
      terms_url: null,
      privacy_url: null,
      status: "active",
    });
    const rows = await history(project.id);
    assert.deepEqual(
      rows.map((r) => [r.handle, r.retired_at !== null]),
      [
        [first, true],
        [second, false],
      ],
    );
    const [event] = await projectEvents(owner.teamId, "project.updated", project.id);
    assert.deepEqual(event!.data.changed_fields, ["handle"]);
    assert.deepEqual(event!.data.previous, { handle: first });
  });

  it("keeps a superseded handle from every other project, of the same team or another (422 naming handle)", async () => {
    const old = handle("old");
    const project = await createProjectVia(client, { handle: old });
    await patch(client, `/v1/projects/${project.id}`, { handle: handle("new") });
    const sibling = await createProjectVia(client);
    const before = await snapshot(owner.teamId);
    const refused = expectError(await patch(client, `/v1/projects/${sibling.id}`, { handle: old }), 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(refused.fields), ["handle"]);
    expectError(await client.post("/v1/projects", { name: "Sibling", handle: old }), 422, "VALIDATION_FAILED");
    assert.deepEqual(await snapshot(owner.teamId), before, "nothing written");
    const other = await createTestCreator({ label: "projects-handles-other", projects: 0 });
    expectError(await new ApiClient(api.url, other.token).post("/v1/projects", { name: "Other", handle: old }), 422, "VALIDATION_FAILED");
    // Another project's current handle is taken too.
    expectError(await patch(client, `/v1/projects/${sibling.id}`, { handle: (await history(project.id))[1]!.handle }), 422, "VALIDATION_FAILED");
  });

  it("lets a project take back a handle it held itself", async () => {
    const original = handle("back");
    const interim = handle("interim");
    const project = await createProjectVia(client, { handle: original });
    await patch(client, `/v1/projects/${project.id}`, { handle: interim });
    const back = await patch(client, `/v1/projects/${project.id}`, { handle: original });
    assert.equal(back.status, 200);
    assert.equal(back.body.data.handle, original);
    assert.equal((await portal(original))?.id, project.id);
    assert.equal(await portal(interim), null);
    const rows = Object.fromEntries((await history(project.id)).map((r) => [r.handle, r.retired_at !== null]));
    assert.deepEqual(rows, { [original]: false, [interim]: true });
  });

  it("refuses a handle change below Growth (403 TEAM_TIER_REQUIRED), changing nothing; other fields are not gated", async () => {
    for (const tier of ["free", "starter"] as const) {
      const creator = await createTestCreator({ tier, label: `projects-handles-${tier}`, projects: 1 });
      const as = new ApiClient(api.url, creator.token);
      const id = creator.projectIds[0]!;
      const before = await snapshot(creator.teamId);
      expectGrowthRequired(await patch(as, `/v1/projects/${id}`, { name: "Renamed", handle: handle() }), tier);
      assert.deepEqual(await snapshot(creator.teamId), before, "nothing changed, the name included");
      const current = (await as.get(`/v1/projects/${id}`)).body.data.handle;
      const same = await patch(as, `/v1/projects/${id}`, { name: "Renamed", handle: current });
      assert.equal(same.status, 200, "sending the current handle is no custom handle");
      assert.equal(same.body.data.name, "Renamed");
    }
  });

  it("finds no project for an unknown handle or a deleted project's; an archived project is found with its status", async () => {
    assert.equal(await portal(handle("never")), null);
    assert.equal(await portal("x"), null);
    const project = await createProjectVia(client);
    await patch(client, `/v1/projects/${project.id}`, { status: "archived" });
    assert.equal((await portal(project.handle))?.status, "archived");
    await client.delete(`/v1/projects/${project.id}`);
    assert.equal(await portal(project.handle), null);
    assert.equal((await history(project.id))[0]?.retired_at !== null, true, "a deleted project's handle stays reserved");
  });

  it("makes handles from names that follow the rules, and names the rule a handle breaks", () => {
    for (const name of ["Night Owls", "", "Ünïcödé Çafé", "x".repeat(300), "--a--", "日本語"]) {
      const made = handleFromName(name);
      assert.equal(handleProblem(made), null, `${JSON.stringify(name)} -> ${made}`);
    }
    assert.match(handleFromName("Night Owls"), /^night-owls-[a-z0-9]{6}$/);
    assert.match(handleProblem("abcd")!, /5 to 64/);
    assert.match(handleProblem("Abcde")!, /lower-case/);
    assert.match(handleProblem("abcde-")!, /start and end/);
    assert.match(handleProblem("portal")!, /reserved/);
    assert.equal(handleProblem("night-owls"), null);
  });
});
