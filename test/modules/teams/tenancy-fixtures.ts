// Tenancy fixtures of the Teams area (see test/tenancy/types.ts). A token acts on its own team:
// another team's id answers 404 on every team route. Teams are not narrowed by a project
// allow-list (a token restricted to projects still acts on its team's roster and invitations),
// so the path fixtures have no `outside`.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, joinTeamWithToken, uniqueEmail } from "../../helpers/fixtures.ts";
import { expectReached } from "../../tenancy/callers.ts";
import type { AreaFixtures, FixtureScope, PathFixture } from "../../tenancy/types.ts";
import { mintTokenForCreator } from "../../../src/operator.ts";

const teamExists = async (teamId: string) => (await (await testDatabase()).db("teams").where({ id: teamId }).first("id")) !== undefined;

/** An operation whose only path parameter is {team}: the owner's own team. */
const ownTeam = (extra: Partial<PathFixture<"team">> = {}): PathFixture<"team"> => ({
  async create({ owner }) {
    return { team: owner.teamId };
  },
  outside: null,
  exists: (_scope, { team }) => teamExists(team),
  ...extra,
});

/** A second, non-personal team of the owner's, with a full token acting on it. */
async function secondTeam({ owner, rest }: FixtureScope) {
  const created = await rest.post("/v1/teams", { name: `second ${randomUUID()}` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const teamId = created.body.data.id as string;
  const { db } = await testDatabase();
  await db("users").where({ id: owner.userId }).update({ current_team_id: teamId });
  try {
    return { teamId, token: (await mintTokenForCreator(db, { email: owner.email, abilities: "all" }, new Date())).token };
  } finally {
    await db("users").where({ id: owner.userId }).update({ current_team_id: owner.teamId });
  }
}

/** A creator who joins the owner's team as admin. */
async function newMember({ owner }: FixtureScope) {
  const member = await createTestCreator({ label: "member" });
  await joinTeamWithToken(owner, member, ["team:view"], "admin");
  return { team: owner.teamId, member: member.userId };
}

const memberExists = async ({ owner }: FixtureScope, { member }: { member: string }) =>
  (await (await testDatabase()).db("team_members").where({ team_id: owner.teamId, user_id: member }).first("id")) !== undefined;

export const tenancyFixtures: AreaFixtures = {
  get_current_team: {
    // "Current" is the token's team: nothing names another team, so each token sees its own.
    async probe({ teamA, teamB, a, b, restricted }) {
      assert.equal(expectReached(await b.call("get_current_team")).data.id, teamB.teamId);
      assert.equal(expectReached(await a.call("get_current_team")).data.id, teamA.teamId);
      const r = await restricted(teamA, [teamA.projectIds[0]!]);
      assert.equal(expectReached(await r.call("get_current_team")).data.id, teamA.teamId);
    },
  },
  list_teams: {
    // The creator's teams: team B's token lists B's teams, never A's.
    async probe({ teamA, teamB, a, b }) {
      const idsOfB = expectReached(await b.call("list_teams", { query: { per_page: 100 } })).data.map((t: { id: string }) => t.id);
      assert.ok(idsOfB.includes(teamB.teamId));
      assert.ok(!idsOfB.includes(teamA.teamId), "team B's creator does not see team A");
      const idsOfA = expectReached(await a.call("list_teams", { query: { per_page: 100 } })).data.map((t: { id: string }) => t.id);
      assert.ok(idsOfA.includes(teamA.teamId) && !idsOfA.includes(teamB.teamId));
    },
  },
  create_team: {
    // A team is created for the calling creator only: nobody else sees it.
    async probe({ teamA, b, a }) {
      const created = expectReached(await b.call("create_team", { body: { name: "B's side project" } })).data;
      const idsOfA = expectReached(await a.call("list_teams", { query: { per_page: 100 } })).data.map((t: { id: string }) => t.id);
      assert.ok(!idsOfA.includes(created.id));
      assert.notEqual(created.owner_user_id, teamA.userId);
    },
  },
  get_team: ownTeam(),
  update_team: ownTeam({ body: () => ({ name: "Renamed by the tenancy matrix" }) }),
  // The owner's personal team cannot be deleted: the control deletes a second team of theirs.
  delete_team: ownTeam({
    async controlTarget(scope) {
      const second = await secondTeam(scope);
      return { params: { team: second.teamId }, token: second.token };
    },
  }),
  list_team_members: ownTeam(),
  list_team_invitations: ownTeam(),
  invite_team_member: ownTeam({ body: () => ({ email: uniqueEmail("invitee"), role: "member" }) }),
  get_team_member: { create: newMember, outside: null, exists: memberExists },
  remove_team_member: { create: newMember, outside: null, exists: memberExists },
  update_team_member_role: { create: newMember, outside: null, exists: memberExists, body: () => ({ role: "member" }) },
  withdraw_team_invitation: {
    async create({ owner, rest }) {
      const res = await rest.post(`/v1/teams/${owner.teamId}/members`, { email: uniqueEmail("invitee"), role: "member" });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { team: owner.teamId, invitation: res.body.data.id };
    },
    outside: null,
    async exists(_scope, { invitation }) {
      return (await (await testDatabase()).db("team_invitations").where({ id: invitation, status: "pending" }).first("id")) !== undefined;
    },
  },
};
