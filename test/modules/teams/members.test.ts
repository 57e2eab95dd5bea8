// The roster and memberships: owner first and not a membership, email only with team-member:view,
// removal (revoking the member's tokens) and role changes taking effect on the member's tokens at once, with their events.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createTestCreator, joinTeamWithToken, tokenFor, type TestCreator } from "../../helpers/fixtures.ts";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { assertValidEvent, eventsOf } from "../../helpers/events.ts";
import { connectMcp, startMcp, type RunningMcp } from "../../helpers/mcp.ts";

describe("teams: roster and memberships", () => {
  const suite = useApiWithCreator();
  let mcp: RunningMcp;
  let owner: TestCreator;
  let grace: TestCreator;
  let alan: TestCreator;
  let graceToken: string;
  before(async () => {
    mcp = await startMcp({ baseUrl: suite.api.url });
    owner = suite.creator;
    grace = await createTestCreator({ label: "grace" });
    alan = await createTestCreator({ label: "alan" });
    graceToken = (await joinTeamWithToken(owner, grace, ["team:view", "team-member:view-any", "team-member:invite"], "admin")).token;
    await joinTeamWithToken(owner, alan, ["team:view"], "member");
  });
  after(() => mcp?.close());

  const roster = (token = owner.token) => new ApiClient(suite.api.url, token).get(`/v1/teams/${owner.teamId}/members`);

  it("lists the owner first (no role, is_owner), then members by join date, not paginated", async () => {
    const res = await roster();
    assert.equal(res.status, 200);
    const rows = res.body.data as Record<string, unknown>[];
    assert.deepEqual(
      rows.map((r) => [r.user_id, r.is_owner, r.role]),
      [
        [owner.userId, true, null],
        [grace.userId, false, "admin"],
        [alan.userId, false, "member"],
      ],
    );
    assert.equal(rows[0]!.role_id, null);
    assert.equal(rows[0]!.email, owner.email);
    assert.ok(!("links" in res.body) && !("meta" in res.body), "not paginated");
  });

  it("leaves the email key out (not null) without team-member:view, over REST and MCP", async () => {
    const narrow = await tokenFor(owner, ["team-member:view-any"]);
    const rows = (await roster(narrow.token)).body.data as Record<string, unknown>[];
    assert.equal(rows.length, 3);
    for (const row of rows) assert.ok(!("email" in row), JSON.stringify(row));
    const client = await connectMcp(mcp, narrow.token);
    try {
      const result = await client.callTool({ name: "list_team_members", arguments: { team: owner.teamId } });
      for (const row of (result.structuredContent as { data: Record<string, unknown>[] }).data) assert.ok(!("email" in row));
    } finally {
      await client.close();
    }
    const withView = await tokenFor(owner, ["team-member:view-any", "team-member:view"]);
    for (const row of (await roster(withView.token)).body.data as Record<string, unknown>[]) assert.equal(typeof row.email, "string");
  });

  it("shows one membership with its email; the owner and strangers answer 404", async () => {
    const res = await suite.client.get(`/v1/teams/${owner.teamId}/members/${grace.userId}`);
    assert.deepEqual(
      { ...res.body.data, joined_at: "t" },
      { user_id: grace.userId, email: grace.email, role_id: res.body.data.role_id, role: "admin", is_owner: false, joined_at: "t" },
    );
    expectError(await suite.client.get(`/v1/teams/${owner.teamId}/members/${owner.userId}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("changes a role (Growth): the member's tokens act with the new role from their next request", async () => {
    const asGrace = new ApiClient(suite.api.url, graceToken);
    const invite = (email: string) => asGrace.post(`/v1/teams/${owner.teamId}/members`, { email, role: "member" });
    // As admin, Grace may invite (twice: the second answer comes from the credential cache).
    assert.equal((await invite(`first-${Date.now()}@example.test`)).status, 201);
    assert.equal((await invite(`second-${Date.now()}@example.test`)).status, 201);

    const changed = await suite.client.request("PATCH", `/v1/teams/${owner.teamId}/members/${grace.userId}/role`, { body: { role: "member" } });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.data.role, "member");
    // The member role grants no team-member:invite: refused at once, though the token carries it.
    expectError(await invite(`third-${Date.now()}@example.test`), 403, "TOKEN_MISSING_ABILITY");
    expectError(await invite(`fourth-${Date.now()}@example.test`), 403, "TOKEN_MISSING_ABILITY");
    // Reading is still granted by member.
    assert.equal((await asGrace.get("/v1/teams/current")).status, 200);

    const [event] = (await eventsOf(owner.teamId, "team.member.role_changed")).slice(-1);
    assertValidEvent(event!);
    assert.deepEqual(event!.data.member, { user_id: grace.userId, email: grace.email, role: "member" });
    assert.equal(event!.data.previous_role, "admin");
    assert.equal(event!.project_id, null);

    await suite.client.request("PATCH", `/v1/teams/${owner.teamId}/members/${grace.userId}/role`, { body: { role: "admin" } });
    assert.equal((await invite(`fifth-${Date.now()}@example.test`)).status, 201, "admin again: allowed again");
  });

  it("removes a member: their access ends at once, team.member.removed is emitted, activity recorded", async () => {
    const member = await createTestCreator({ label: "leaving" });
    const { token } = await joinTeamWithToken(owner, member, ["team:view"], "member");
    const asMember = new ApiClient(suite.api.url, token);
    assert.equal((await asMember.get("/v1/teams/current")).status, 200);
    assert.equal((await asMember.get("/v1/teams/current")).status, 200);
    assert.equal((await suite.client.delete(`/v1/teams/${owner.teamId}/members/${member.userId}`)).status, 204);
    expectError(await asMember.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");

    const [event] = (await eventsOf(owner.teamId, "team.member.removed")).slice(-1);
    assertValidEvent(event!);
    assert.deepEqual(event!.data.member, { user_id: member.userId, email: member.email, role: "member" });
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ team_id: owner.teamId, event: "member_removed" }).orderBy("seq", "desc").first();
    assert.equal(entry.actor_kind, "api_token");
    assert.equal(entry.causer_id, owner.userId);
    expectError(await suite.client.delete(`/v1/teams/${owner.teamId}/members/${member.userId}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("revokes a removed member's tokens and OAuth connections on the team: rejoining does not bring them back", async () => {
    const member = await createTestCreator({ label: "rejoining" });
    const { token } = await joinTeamWithToken(owner, member, ["team:view"], "member");
    const own = await tokenFor(member, ["team:view"]);
    const { db } = await testDatabase();
    const familyId = randomUUID();
    const oauth = { client_id: `sbc_test_${familyId}`, user_id: member.userId, team_id: owner.teamId, family_id: familyId, scope: "mcp:use" };
    const later = new Date(Date.now() + 3_600_000);
    await db("oauth_clients").insert({
      client_id: oauth.client_id,
      client_name: "Test",
      redirect_uris: JSON.stringify(["http://127.0.0.1/cb"]),
      created_at: new Date(),
    });
    await db("oauth_access_tokens").insert({ ...oauth, secret_hash: randomUUID(), expires_at: later, created_at: new Date() });
    await db("oauth_refresh_tokens").insert({ ...oauth, token_hash: randomUUID(), expires_at: later, created_at: new Date() });

    assert.equal((await suite.client.delete(`/v1/teams/${owner.teamId}/members/${member.userId}`)).status, 204);
    const role = await db("roles").where({ team_id: owner.teamId, code: "member" }).first("id");
    await db("team_members").insert({ id: randomUUID(), team_id: owner.teamId, user_id: member.userId, role_id: role.id, created_at: new Date() });

    expectError(await new ApiClient(suite.api.url, token).get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    assert.notEqual((await db("personal_access_tokens").where({ user_id: member.userId, team_id: owner.teamId }).first()).revoked_at, null);
    assert.notEqual((await db("oauth_access_tokens").where({ family_id: familyId }).first()).revoked_at, null);
    assert.equal((await db("oauth_refresh_tokens").where({ family_id: familyId }).first()).status, "revoked");
    assert.equal((await new ApiClient(suite.api.url, own.token).get("/v1/teams/current")).status, 200, "the member's own team keeps its tokens");
  });
});
