// Tenancy fixtures of the Tokens area (see test/tenancy/types.ts). Token visibility: a creator
// sees only their own tokens on the token's team; a token restricted to a project allow-list sees
// only tokens whose allow-list lies inside its own.
import assert from "node:assert/strict";
import { testDatabase } from "../../helpers/backends.ts";
import { tokenFor } from "../../helpers/fixtures.ts";
import { expectReached, expectRefused } from "../../tenancy/callers.ts";
import type { AreaFixtures, PathFixture } from "../../tenancy/types.ts";

type TokenRow = { id: string; scopes: string[] };

const tokenFixture: PathFixture<"token_id"> = {
  async create({ owner }, within) {
    return { token_id: (await tokenFor(owner, ["team:view"], within ? [...within] : undefined)).id };
  },
  // Outside an allow-list: a token restricted to another project, a team-wide token, and one
  // restricted to the allow-list plus another project.
  async outside({ owner }, allowList) {
    const other = owner.projectIds.filter((id) => !allowList.includes(id));
    assert.ok(other.length > 0, "the owner has a project outside the allow-list");
    const shapes = [other, undefined, [...allowList, ...other]];
    return Promise.all(shapes.map(async (projects) => ({ token_id: (await tokenFor(owner, ["team:view"], projects)).id })));
  },
  async exists({ owner }, { token_id: id }) {
    const { db } = await testDatabase();
    const row = await db("personal_access_tokens").where({ id, user_id: owner.userId, team_id: owner.teamId }).whereNull("revoked_at").first("id");
    return row !== undefined;
  },
};

export const tenancyFixtures: AreaFixtures = {
  delete_token: tokenFixture,
  get_token: tokenFixture,

  list_tokens: {
    async probe({ teamA, teamB, a, b, restricted }) {
      const seenByB = expectReached(await b.call("list_tokens", { query: { per_page: 100 } }), "team B lists its tokens");
      assert.equal(seenByB.data.length, seenByB.meta.total, "team B's whole list is on the page");
      const idsOfB = seenByB.data.map((t: TokenRow) => t.id);
      assert.ok(idsOfB.includes(teamB.tokenId), "team B sees its own token (the list is not empty by accident)");
      assert.ok(!idsOfB.includes(teamA.tokenId), "team B never sees team A's token");
      for (const t of seenByB.data as TokenRow[]) assert.equal(t.scopes[0], `scope:team:${teamB.teamId}`);

      const [p1, p2] = teamA.projectIds as [string, string];
      const inside = await tokenFor(teamA, ["team:view"], [p1]);
      const outside = [
        await tokenFor(teamA, ["team:view"], [p2]),
        await tokenFor(teamA, ["team:view"]),
        await tokenFor(teamA, ["team:view"], [p1, p2]),
      ];
      const seenByP1 = expectReached(await (await restricted(teamA, [p1])).call("list_tokens", { query: { per_page: 100 } }));
      const idsOfP1 = seenByP1.data.map((t: TokenRow) => t.id);
      assert.ok(idsOfP1.includes(inside.id), "a token restricted to P1 sees a token restricted to P1");
      for (const { id } of outside) assert.ok(!idsOfP1.includes(id), `a token restricted to P1 does not see token ${id} (outside P1)`);
      for (const t of seenByP1.data as TokenRow[]) assert.deepEqual(t.scopes, [`scope:team:${teamA.teamId}`, `scope:project:${p1}`]);

      // Control: team A's full token sees all of them (the newest, so on the first page).
      const idsOfA = expectReached(await a.call("list_tokens", { query: { per_page: 100 } })).data.map((t: TokenRow) => t.id);
      for (const { id } of [inside, ...outside]) assert.ok(idsOfA.includes(id), `team A's full token sees token ${id}`);
    },
  },

  create_token: {
    async probe({ teamA, teamB, a, b, restricted }) {
      const [p1, p2] = teamA.projectIds as [string, string];
      const mint = (project_ids?: string[]) => ({
        name: "tenancy probe",
        abilities: ["team:view" as const],
        ...(project_ids ? { project_ids } : {}),
      });

      expectRefused(await b.call("create_token", { body: mint([p1]) }), ["RESOURCE_NOT_FOUND"]);
      expectRefused(await b.call("create_token", { body: mint([teamB.projectIds[0]!, p1]) }), ["RESOURCE_NOT_FOUND"]);
      const ownByB = expectReached(await b.call("create_token", { body: mint() }), "team B mints on its own team");
      assert.deepEqual(ownByB.data.scopes, [`scope:team:${teamB.teamId}`]);
      const ownByA = expectReached(await a.call("create_token", { body: mint([p1]) }), "team A mints for its own project");
      assert.deepEqual(ownByA.data.scopes, [`scope:team:${teamA.teamId}`, `scope:project:${p1}`]);

      const r = await restricted(teamA, [p1]);
      expectRefused(await r.call("create_token", { body: mint([p2]) }), ["TENANT_MISMATCH"]);
      expectRefused(await r.call("create_token", { body: mint([p1, p2]) }), ["TENANT_MISMATCH"]);
      const inherited = expectReached(await r.call("create_token", { body: mint() }), "a restricted token passes its allow-list on");
      assert.deepEqual(inherited.data.scopes, [`scope:team:${teamA.teamId}`, `scope:project:${p1}`]);
      const explicit = expectReached(await r.call("create_token", { body: mint([p1]) }), "a restricted token mints inside its allow-list");
      assert.deepEqual(explicit.data.scopes, [`scope:team:${teamA.teamId}`, `scope:project:${p1}`]);
    },
  },
};
