// Tenancy fixtures of the Groups area (see test/tenancy/types.ts). Groups are team settings, not
// narrowed by a project allow-list (no `outside`); the projects a group names must be the team's
// and inside the caller's allow-list.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { expectReached, expectRefused } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";

const code = () => `group-${randomBytes(4).toString("hex")}`;

async function group({ owner, rest }: FixtureScope) {
  const res = await rest.post("/v1/groups", {
    code: code(),
    name: "Tenancy group",
    abilities: ["team:view"],
    project_ids: [owner.projectIds[0]],
    member_ids: [],
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { group: res.body.data.id as string };
}

const groupFixture = (extra: Partial<PathFixture<"group">> = {}): PathFixture<"group"> => ({
  create: group,
  outside: null,
  async exists({ owner }, { group: id }) {
    return (await (await testDatabase()).db("groups").where({ id, team_id: owner.teamId }).first("id")) !== undefined;
  },
  ...extra,
});

export const tenancyFixtures: AreaFixtures = {
  get_group: groupFixture(),
  update_group: groupFixture({ body: () => ({ name: "Renamed group" }) }),
  delete_group: groupFixture(),
  list_groups: {
    async probe({ teamA, a, b }) {
      const created = expectReached(
        await a.call("create_group", {
          body: { code: code(), name: "A's group", abilities: ["team:view"], project_ids: [teamA.projectIds[0]!], member_ids: [] },
        }),
      ).data;
      const seenByB = expectReached(await b.call("list_groups", { query: { per_page: 100 } })).data.map((g: { id: string }) => g.id);
      assert.ok(!seenByB.includes(created.id), "team B does not see team A's group");
    },
  },
  create_group: {
    async probe({ teamA, teamB, b, a, restricted }) {
      const body = (projects: string[]) => ({
        code: code(),
        name: "probe",
        abilities: ["team:view" as const],
        project_ids: projects,
        member_ids: [],
      });
      expectRefused(await b.call("create_group", { body: body([teamA.projectIds[0]!]) }), ["RESOURCE_NOT_FOUND"]);
      expectReached(await b.call("create_group", { body: body([teamB.projectIds[0]!]) }), "team B groups its own project");
      const [p1, p2] = teamA.projectIds as [string, string];
      const r = await restricted(teamA, [p1]);
      expectRefused(await r.call("create_group", { body: body([p2]) }), ["TENANT_MISMATCH"]);
      expectReached(await a.call("create_group", { body: body([p1, p2]) }), "team A's full token groups both projects");
    },
  },
};
