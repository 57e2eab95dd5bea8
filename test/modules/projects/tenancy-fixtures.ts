// Tenancy fixtures of the Projects area (see test/tenancy/types.ts). A project is narrowed by the
// allow-list through its own id: a token restricted to P1 reaches P1 and no other project. The
// read and change fixtures use the team's own P1 and P2 (nothing is created that could pile up
// against the tier's project limit); the delete fixture makes a fresh project for every call.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { expectReached, expectRefused } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";

const handle = () => `tenancy-${randomBytes(5).toString("hex")}`;

async function freshProject({ rest }: FixtureScope) {
  const res = await rest.post("/v1/projects", { name: "Tenancy project" });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { project: res.body.data.id as string };
}

async function exists({ owner }: FixtureScope, { project }: { project: string }) {
  return (await (await testDatabase()).db("projects").where({ id: project, team_id: owner.teamId }).first("id")) !== undefined;
}

/** P2 for the other team and as the project outside [P1]; P1 inside it. */
const existingProject = (extra: Partial<PathFixture<"project">> = {}): PathFixture<"project"> => ({
  async create({ owner }, within) {
    return { project: within ? within[0]! : owner.projectIds[1]! };
  },
  async outside({ owner }, allowList) {
    return owner.projectIds.filter((id) => !allowList.includes(id)).map((project) => ({ project }));
  },
  exists,
  ...extra,
});

export const tenancyFixtures: AreaFixtures = {
  get_project: existingProject(),
  update_project: existingProject({ body: () => ({ description: "Changed by the tenancy matrix" }) }),
  delete_project: {
    create: freshProject,
    async outside(scope) {
      return [await freshProject(scope)];
    },
    async insideControl(scope) {
      const params = await freshProject(scope);
      return { params, allowList: [params.project] };
    },
    exists,
  },
  list_projects: {
    async probe({ teamA, teamB, a, b, restricted }) {
      const ids = (result: Parameters<typeof expectReached>[0]) => expectReached(result).data.map((p: { id: string }) => p.id) as string[];
      const seenByA = ids(await a.call("list_projects", { query: { per_page: 100 } }));
      // Every project of team A (other areas' fixtures add some), and only those.
      const ofA = (await (await testDatabase()).db("projects").where({ team_id: teamA.teamId }).pluck("id")) as string[];
      assert.deepEqual([...seenByA].sort(), [...ofA].sort(), "team A sees its own projects");
      const seenByB = ids(await b.call("list_projects", { query: { per_page: 100 } }));
      assert.ok(!seenByB.some((id) => teamA.projectIds.includes(id)), "team B sees none of team A's projects");
      assert.ok(
        teamB.projectIds.every((id) => seenByB.includes(id)),
        "team B sees its own",
      );
      const r = await restricted(teamA, [teamA.projectIds[0]!]);
      assert.deepEqual(
        ids(await r.call("list_projects", { query: { per_page: 100 } })),
        [teamA.projectIds[0]],
        "a token restricted to P1 lists P1 only",
      );
    },
  },
  create_project: {
    // Handles are unique across the service (B cannot take A's); a project B creates is B's alone;
    // a token restricted to a project allow-list cannot create one. The probe deletes what it made.
    async probe({ teamA, a, b, restricted }) {
      const taken = handle();
      const ofA = expectReached(await a.call("create_project", { body: { name: "A's probe", handle: taken } })).data;
      const refused = await b.call("create_project", { body: { name: "B's probe", handle: taken } });
      assert.equal(refused.ok, false, "team B cannot take team A's handle");
      const ofB = expectReached(await b.call("create_project", { body: { name: "B's probe" } })).data;
      assert.equal(ofB.team_id !== teamA.teamId && ofA.team_id === teamA.teamId, true);
      const seenByA = expectReached(await a.call("list_projects", { query: { per_page: 100 } })).data.map((p: { id: string }) => p.id);
      assert.ok(!seenByA.includes(ofB.id), "team A does not see team B's new project");
      const r = await restricted(teamA, [teamA.projectIds[0]!]);
      expectRefused(await r.call("create_project", { body: { name: "Restricted probe" } }), ["TENANT_MISMATCH"]);
      expectReached(await a.call("delete_project", { path: { project: ofA.id } }));
      expectReached(await b.call("delete_project", { path: { project: ofB.id } }));
    },
  },
};
