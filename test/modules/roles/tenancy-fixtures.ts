// Tenancy fixtures of the Roles area (see test/tenancy/types.ts). Roles belong to their team and
// are not narrowed by a project allow-list (no `outside`).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";

const code = () => `role-${randomBytes(4).toString("hex")}`;

async function customRole({ rest }: FixtureScope) {
  const res = await rest.post("/v1/roles", { code: code(), name: "Tenancy role", abilities: ["team:view"] });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { role: res.body.data.id as string };
}

const roleFixture = (extra: Partial<PathFixture<"role">> = {}): PathFixture<"role"> => ({
  create: customRole,
  outside: null,
  async exists({ owner }, { role }) {
    return (await (await testDatabase()).db("roles").where({ id: role, team_id: owner.teamId }).first("id")) !== undefined;
  },
  ...extra,
});

export const tenancyFixtures: AreaFixtures = {
  get_role: roleFixture(),
  update_role: roleFixture({ body: () => ({ name: "Renamed role" }) }),
  delete_role: roleFixture(),
  list_roles: {
    async probe({ a, b }) {
      const created = expectReached(await a.call("create_role", { body: { code: code(), name: "A's role", abilities: ["team:view"] } })).data;
      const seenByB = expectReached(await b.call("list_roles", { query: { per_page: 100 } })).data.map((r: { id: string }) => r.id);
      assert.ok(!seenByB.includes(created.id), "team B does not see team A's role");
      assert.ok(seenByB.length >= 2, "team B sees its own built-in roles");
    },
  },
  create_role: {
    // Codes are per team: B may use the code A uses, and the two stay apart.
    async probe({ a, b }) {
      const shared = code();
      const ofA = expectReached(await a.call("create_role", { body: { code: shared, name: "A", abilities: ["team:view"] } })).data;
      const ofB = expectReached(await b.call("create_role", { body: { code: shared, name: "B", abilities: ["team:view"] } })).data;
      assert.notEqual(ofA.id, ofB.id);
    },
  },
};
