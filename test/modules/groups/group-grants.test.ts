// What a group grants: its abilities on its projects to its members, bounded by what their tokens
// carry (through the domain and the pipeline's admission and authorization, as no project-scoped
// route exists yet).
import assert from "node:assert/strict";
import { ApiClient } from "../../helpers/http.ts";
import { createTestCreator, joinTeamWithToken, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import type { RunningApi } from "../../helpers/server.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { createDomainContext } from "../../../src/db/tenant.ts";
import { admitBearer, principalOf } from "../../../src/pipeline/authenticate.ts";
import { REST_BUDGET } from "../../../src/pipeline/rate-limit.ts";
import { mintToken } from "../../../src/modules/tokens/tokens.ts";
import { authorizes, patch, projectMap, refusesWith, resolve, sorted, useGroupsTeam, type Group } from "./support.ts";

describe("groups: what a group grants", () => {
  const team = useGroupsTeam();
  let api: RunningApi;
  let owner: TestCreator;
  let client: ApiClient;
  let member: TestCreator;
  let p1: string;
  let p2: string;
  before(() => ({ api, owner, client, member, p1, p2 } = team));
  const createGroup = (fields: Partial<Omit<Group, "id">> = {}, as?: ApiClient) => team.createGroup(fields, as);

  /** A second token of `holder` on the owner's team, restricted to `projectIds`. */
  async function memberToken(holder: TestCreator, abilities: string[], projectIds: string[] | null) {
    const { db } = await testDatabase();
    const actor = { userId: holder.userId, teamId: owner.teamId, projectIds: null, kind: "system" as const, credentialKind: null, requestId: null };
    return (
      await db.transaction((trx) => mintToken(createDomainContext(trx, actor, new Date()), { name: "group test", abilities, projectIds }, null))
    ).token;
  }

  it("its abilities on its projects, on top of the member role, never beyond what the token carries", async () => {
    const holder = await createTestCreator({ label: "groups-holder" });
    const carried = ["team:view", "project:view", "project:update", "project-resource:view-any"];
    const token = (await joinTeamWithToken(owner, holder, carried, "member")).token;
    // Before any group: the built-in member role reads, it does not update.
    const bare = await resolve(token);
    assert.deepEqual(sorted([...bare.abilities]), ["project-resource:view-any", "project:view", "team:view"]);
    assert.deepEqual(projectMap(bare), {});
    refusesWith(principalOf(bare), "project:update", p1, "TOKEN_MISSING_ABILITY");

    const group = await createGroup({ abilities: ["project:update", "project-resource:create"], project_ids: [p1], member_ids: [holder.userId] });
    const resolved = await resolve(token);
    assert.deepEqual(sorted([...resolved.abilities]), ["project-resource:view-any", "project:view", "team:view"], "team-wide: bounded by the role");
    // P1 only; project-resource:create is granted by the group but not carried by the token.
    assert.deepEqual(projectMap(resolved), { [p1]: ["project:update"] });

    const principal = principalOf(resolved);
    authorizes(principal, "project:update", p1);
    const error = refusesWith(principal, "project:update", p2, "TOKEN_MISSING_ABILITY");
    assert.deepEqual(error.context, { required_ability: "project:update" });
    assert.equal(error.status, 403);
    refusesWith(principal, "project-resource:create", p1, "TOKEN_MISSING_ABILITY");
    refusesWith(principal, "project:update", undefined, "TOKEN_MISSING_ABILITY");
    authorizes(principal, "project:view", p2);

    // What the group granted ends with the group.
    assert.equal((await client.delete(`/v1/groups/${group.id}`)).status, 204);
    assert.deepEqual(projectMap(await resolve(token)), {});
  });

  it("a group does not widen a token's project allow-list (404 TENANT_MISMATCH outside it)", async () => {
    const holder = await createTestCreator({ label: "groups-restricted" });
    await joinTeamWithToken(owner, holder, ["team:view"], "member");
    await createGroup({ abilities: ["project:update"], project_ids: [p1, p2], member_ids: [holder.userId] });
    const principal = principalOf(await resolve(await memberToken(holder, ["team:view", "project:update"], [p2])));
    authorizes(principal, "project:update", p2);
    refusesWith(principal, "project:update", p1, "TENANT_MISMATCH");
  });

  it("reaches the member's cached credential from the next request: added, changed, removed", async () => {
    const holder = await createTestCreator({ label: "groups-cached" });
    const token = (await joinTeamWithToken(owner, holder, ["team:view", "project:update", "project:delete"], "member")).token;
    const { db } = await testDatabase();
    const admit = async () => (await admitBearer(db, api.deps.kv, `Bearer ${token}`, REST_BUDGET, "rest", new Date())).principal;
    const asHolder = new ApiClient(api.url, token);
    // Resolved and cached by a real request, then read from the cache.
    assert.equal((await asHolder.get("/v1/teams/current")).status, 200);
    refusesWith(await admit(), "project:update", p1, "TOKEN_MISSING_ABILITY");
    refusesWith(await admit(), "project:update", p1, "TOKEN_MISSING_ABILITY");

    const group = await createGroup({ abilities: ["project:update"], project_ids: [p1], member_ids: [holder.userId] });
    for (let i = 0; i < 2; i++) {
      const principal = await admit();
      authorizes(principal, "project:update", p1);
      refusesWith(principal, "project:update", p2, "TOKEN_MISSING_ABILITY");
    }
    assert.equal((await patch(client, `/v1/groups/${group.id}`, { abilities: ["project:delete"] })).status, 200);
    for (let i = 0; i < 2; i++) {
      const principal = await admit();
      authorizes(principal, "project:delete", p1);
      refusesWith(principal, "project:update", p1, "TOKEN_MISSING_ABILITY");
    }
    assert.equal((await patch(client, `/v1/groups/${group.id}`, { member_ids: [] })).status, 200);
    for (let i = 0; i < 2; i++) refusesWith(await admit(), "project:delete", p1, "TOKEN_MISSING_ABILITY");
    assert.equal((await patch(client, `/v1/groups/${group.id}`, { member_ids: [holder.userId] })).status, 200);
    authorizes(await admit(), "project:delete", p1);
    assert.equal((await client.delete(`/v1/groups/${group.id}`)).status, 204);
    for (let i = 0; i < 2; i++) refusesWith(await admit(), "project:delete", p1, "TOKEN_MISSING_ABILITY");
  });

  it("ends when the member leaves the team: they are no longer among the group's members", async () => {
    const leaver = await createTestCreator({ label: "groups-leaver" });
    await joinTeamWithToken(owner, leaver, ["team:view"], "member");
    const group = await createGroup({ member_ids: [member.userId, leaver.userId] });
    assert.equal((await client.delete(`/v1/teams/${owner.teamId}/members/${leaver.userId}`)).status, 204);
    const after = (await client.get(`/v1/groups/${group.id}`)).body.data as Group;
    assert.deepEqual(after.member_ids, [member.userId], "member_ids lists the team's members only");
    // The group stays editable as read: sending its own member_ids back is not refused.
    assert.equal((await patch(client, `/v1/groups/${group.id}`, { name: "Renamed", member_ids: after.member_ids })).status, 200);
    // Joining the team again does not silently restore what the group granted.
    await joinTeamWithToken(owner, leaver, ["team:view", "project:update"], "member");
    const { db } = await testDatabase();
    const rows = await db("groups").where({ id: group.id }).first("member_user_ids");
    assert.ok(!rows.member_user_ids.includes(leaver.userId));
  });

  it("grants the owner nothing more: the owner's token acts with everything it carries", async () => {
    const ownerToken = (await tokenFor(owner, ["team:view", "project:update"])).token;
    const resolved = await resolve(ownerToken);
    assert.deepEqual(sorted([...resolved.abilities]), ["project:update", "team:view"]);
    authorizes(principalOf(resolved), "project:update", p2);
  });
});
