// OAuth access tokens on the MCP server: issued by the authorization server, admitted through the
// shared resolver as credential kind oauth_access_token, acting as the creator on the team chosen
// at approval with what their role grants there, for one hour, counted against the 120/min MCP
// budget; refused by REST; a revoked connection or an expired token gets the 401 challenge.
import assert from "node:assert/strict";
import { startAuth } from "../helpers/auth.ts";
import { testDatabase } from "../helpers/backends.ts";
import { TestClock } from "../helpers/clock.ts";
import { createTestCreator, joinTeamWithToken, type TestCreator } from "../helpers/fixtures.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { connectOAuth, tokenRequest } from "../helpers/oauth.ts";
import { startApi, type RunningApi } from "../helpers/server.ts";

describe("OAuth access tokens on MCP", () => {
  const clock = new TestClock();
  let auth: { url: string; close(): Promise<void> };
  let mcp: RunningMcp;
  let api: RunningApi;
  let owner: TestCreator;
  before(async () => {
    auth = await startAuth({ now: clock.now });
    api = await startApi({ clock });
    mcp = await startMcp({ clock, baseUrl: api.url });
    owner = await createTestCreator({ label: "oauth-mcp" });
  });
  after(() => Promise.all([auth.close(), mcp.close(), api.close()]));

  const call = (token: string, name: string, args: Record<string, unknown> = {}) =>
    rawRpc(mcp, "tools/call", { token, params: { name, arguments: args } });
  const challenge = () => `Bearer resource_metadata="${mcp.url}/.well-known/oauth-protected-resource", scope="mcp:use"`;

  it("calls a tool as the creator on the approved team, recorded with credential kind oauth_access_token", async () => {
    const { tokens } = await connectOAuth(auth, owner, clock.now());
    const res = await call(tokens.access_token, "get_current_team");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.result.isError, undefined);
    assert.equal(res.body.result.structuredContent.data.id, owner.teamId);
    assert.equal(res.headers.get("x-ratelimit-limit"), "120");
    const remaining = Number(res.headers.get("x-ratelimit-remaining"));
    const next = await call(tokens.access_token, "list_projects");
    assert.equal(next.status, 200);
    assert.equal(next.body.result.structuredContent.data[0].id, owner.projectIds[0]);
    assert.equal(Number(next.headers.get("x-ratelimit-remaining")), remaining - 1, "counted against the token's MCP budget");

    await mcp.settled(); // a read's entry is written just after its answer
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ team_id: owner.teamId, event: "tool_invoked" }).orderBy("created_at", "desc").first();
    assert.equal(entry.credential_kind, "oauth_access_token");
    assert.equal(entry.causer_id, owner.userId);
  });

  it("acts with what the creator's role grants on that team, no more", async () => {
    const member = await createTestCreator({ label: "oauth-member" });
    await joinTeamWithToken(owner, member, ["team:view"], "member");
    const { tokens } = await connectOAuth(auth, { userId: member.userId, teamId: owner.teamId }, clock.now());
    const read = await call(tokens.access_token, "list_projects");
    assert.equal(read.body.result.isError, undefined, JSON.stringify(read.body));
    assert.equal(read.body.result.structuredContent.data[0].id, owner.projectIds[0]);
    const write = await call(tokens.access_token, "create_project", { name: "Not allowed" });
    assert.equal(write.body.result.isError, true);
    assert.equal(write.body.result.structuredContent.error.code, "TOKEN_MISSING_ABILITY");
    assert.equal(write.body.result.structuredContent.error.context.required_ability, "project:create");
  });

  it("is refused by the REST API (an MCP client's token; only the dashboard's first-party tokens work there) with a message saying they are for MCP", async () => {
    const { tokens } = await connectOAuth(auth, owner, clock.now());
    const res = await new ApiClient(api.url, tokens.access_token).get("/v1/projects");
    const error = expectError(res, 401, "AUTHENTICATION_REQUIRED");
    assert.match(error.message, /OAuth access tokens of MCP clients are for the MCP server only/);
  });

  it("expires after one hour, and stops at once when its connection is revoked (refresh token reuse)", async () => {
    const { clientId, tokens } = await connectOAuth(auth, owner, clock.now());
    clock.advance(3_599_000);
    assert.equal((await call(tokens.access_token, "get_current_team")).status, 200);
    clock.advance(1_000);
    const expired = await call(tokens.access_token, "get_current_team");
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.code, "AUTHENTICATION_REQUIRED");
    assert.equal(expired.headers.get("www-authenticate"), challenge());

    const renew = (refreshToken: string) => tokenRequest(auth, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
    const renewed = await renew(tokens.refresh_token);
    assert.equal(renewed.status, 200);
    assert.equal((await call(renewed.body.access_token, "get_current_team")).status, 200);
    assert.equal((await renew(tokens.refresh_token)).body.error, "invalid_grant");
    const revoked = await call(renewed.body.access_token, "get_current_team");
    assert.equal(revoked.status, 401);
    assert.equal(revoked.headers.get("www-authenticate"), challenge());
  });

  it("answers TENANT_MISMATCH once the creator left the team", async () => {
    const member = await createTestCreator({ label: "oauth-leaver" });
    await joinTeamWithToken(owner, member, ["team:view"], "admin");
    const { tokens } = await connectOAuth(auth, { userId: member.userId, teamId: owner.teamId }, clock.now());
    assert.equal((await call(tokens.access_token, "get_current_team")).body.result.isError, undefined);
    const { db } = await testDatabase();
    await db("team_members").where({ team_id: owner.teamId, user_id: member.userId }).delete();
    const res = await call(tokens.access_token, "get_current_team");
    const error = res.body.error ?? res.body.result?.structuredContent?.error;
    assert.equal(error?.code, "TENANT_MISMATCH", JSON.stringify(res.body));
  });
});
