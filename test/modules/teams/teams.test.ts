// Teams themselves: list the creator's, create one (with its built-in roles), rename, delete (the
// owner only, never the personal team; every token on it stops at once).
import assert from "node:assert/strict";
import { createTestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { mintTokenForCreator } from "../../../src/operator.ts";

describe("teams: the teams themselves", () => {
  const suite = useApiWithCreator();

  /** A token of the suite's creator acting on another of their teams. */
  async function tokenOn(teamId: string): Promise<string> {
    const { db } = await testDatabase();
    await db("users").where({ id: suite.creator.userId }).update({ current_team_id: teamId });
    try {
      return (await mintTokenForCreator(db, { email: suite.creator.email, abilities: "all" }, new Date())).token;
    } finally {
      await db("users").where({ id: suite.creator.userId }).update({ current_team_id: suite.creator.teamId });
    }
  }

  it("creates a team owned by the creator, with the built-in roles, listed among the creator's teams", async () => {
    const created = await suite.client.post("/v1/teams", { name: "Studio collective" });
    assert.equal(created.status, 201);
    const team = created.body.data;
    assert.equal(team.owner_user_id, suite.creator.userId);
    assert.equal(team.personal, false);
    const listed = (await suite.client.get("/v1/teams?per_page=100&sort_by=name&sort_direction=asc")).body.data.map((t: { id: string }) => t.id);
    assert.ok(listed.includes(team.id) && listed.includes(suite.creator.teamId));
    // The token keeps acting on its own team; the new one has its roles.
    assert.equal((await suite.client.get("/v1/teams/current")).body.data.id, suite.creator.teamId);
    const roles = (await new ApiClient(suite.api.url, await tokenOn(team.id)).get("/v1/roles")).body.data.map((r: { code: string }) => r.code).sort();
    assert.deepEqual(roles, ["admin", "member"]);
    const [event] = (await eventsOf(team.id, "team.created")).slice(-1);
    assertValidEvent(event!);
  });

  it("renames the token's team; any other team id answers 404", async () => {
    const renamed = await suite.client.request("PATCH", `/v1/teams/${suite.creator.teamId}`, { body: { name: "Ada's studio" } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.data.name, "Ada's studio");
    assert.equal((await suite.client.get(`/v1/teams/${suite.creator.teamId}`)).body.data.name, "Ada's studio");
    const [event] = (await eventsOf(suite.creator.teamId, "team.updated")).slice(-1);
    assertValidEvent(event!);
    const other = await createTestCreator({ label: "other" });
    expectError(await suite.client.get(`/v1/teams/${other.teamId}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("refuses to delete a personal team (422) and lets only the owner delete another", async () => {
    const personal = expectError(await suite.client.delete(`/v1/teams/${suite.creator.teamId}`), 422, "VALIDATION_FAILED");
    assert.equal(personal.fields, undefined, "a domain refusal carries no fields");

    const team = (await suite.client.post("/v1/teams", { name: "Short-lived" })).body.data;
    const ownerToken = await tokenOn(team.id);
    const admin = await createTestCreator({ label: "admin" });
    const { db } = await testDatabase();
    const adminRole = await db("roles").where({ team_id: team.id, code: "admin" }).first("id");
    await db("team_members").insert({
      id: crypto.randomUUID(),
      team_id: team.id,
      user_id: admin.userId,
      role_id: adminRole.id,
      created_at: new Date(),
    });
    const adminToken = (await joinTokenOn(admin, team.id)).token;
    expectError(await new ApiClient(suite.api.url, adminToken).delete(`/v1/teams/${team.id}`), 403, "TOKEN_MISSING_ABILITY");

    const asOwner = new ApiClient(suite.api.url, ownerToken);
    assert.equal((await asOwner.get("/v1/teams/current")).status, 200);
    assert.equal((await asOwner.delete(`/v1/teams/${team.id}`)).status, 204);
    expectError(await asOwner.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    expectError(await new ApiClient(suite.api.url, adminToken).get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    assert.equal(await db("teams").where({ id: team.id }).first(), undefined);
    const [event] = await eventsOf(team.id, "team.deleted");
    assertValidEvent(event!);
    assert.equal(event!.data.team.id, team.id, "team.deleted outlives its team in the outbox");
  });

  it("answers 403 FORBIDDEN to a member whose role lets them try to delete the team", async () => {
    const team = (await suite.client.post("/v1/teams", { name: "Guarded" })).body.data;
    const member = await createTestCreator({ label: "custom" });
    const ownerClient = new ApiClient(suite.api.url, await tokenOn(team.id));
    // A custom role cannot grant team:delete, so the only way a member holds it is a direct row.
    const { db } = await testDatabase();
    const role = await db("roles").where({ team_id: team.id, code: "admin" }).first("id");
    await db("roles")
      .where({ id: role.id })
      .update({ built_in: false, abilities: JSON.stringify(["team:delete", "team:view"]) });
    await db("team_members").insert({ id: crypto.randomUUID(), team_id: team.id, user_id: member.userId, role_id: role.id, created_at: new Date() });
    const memberClient = new ApiClient(suite.api.url, (await joinTokenOn(member, team.id)).token);
    expectError(await memberClient.delete(`/v1/teams/${team.id}`), 403, "FORBIDDEN");
    assert.equal((await ownerClient.get("/v1/teams/current")).status, 200, "the team still exists");
  });

  /** Mints a token of `creator` acting on `teamId` (they must already belong to it). */
  async function joinTokenOn(creator: { email: string; userId: string }, teamId: string) {
    const { db } = await testDatabase();
    await db("users").where({ id: creator.userId }).update({ current_team_id: teamId });
    return mintTokenForCreator(db, { email: creator.email, abilities: "all" }, new Date());
  }
});
