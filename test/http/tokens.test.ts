// The Tokens API: minting grants only held abilities (never token:create, never the retired
// webhook-endpoint:manage), scope entries under `scopes`, listing and deletion of one's own tokens.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient, expectError } from "../helpers/http.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { createTestCreator, joinTeamWithToken, tokenFor } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";

describe("tokens API", () => {
  const suite = useApiWithCreator({ creator: { projects: 2 } });

  it("mints a working token and shows its secret once", async () => {
    const res = await suite.client.post("/v1/tokens", { name: "CI reporter", abilities: ["token:view-any", "team:view"] });
    assert.equal(res.status, 201);
    const { data, token } = res.body;
    assert.match(token, new RegExp(`^sbt_live_${data.id}_[A-Za-z0-9]{40}$`));
    assert.deepEqual(data.abilities, ["team:view", "token:view-any"]);
    assert.deepEqual(data.scopes, [`scope:team:${suite.creator.teamId}`]);
    assert.equal(data.kind, "personal");
    assert.equal(data.last_used_at, null);
    const minted = new ApiClient(suite.api.url, token);
    assert.equal((await minted.get("/v1/teams/current")).status, 200);
    const listed = (await minted.get("/v1/tokens?per_page=100")).body.data;
    assert.ok(listed.some((t: { id: string }) => t.id === data.id));
    assert.ok(!JSON.stringify(listed).includes(token.split("_").pop()), "lists never include a secret");
  });

  it("grants only abilities the calling token holds (403 naming the first missing one)", async () => {
    const narrow = new ApiClient(suite.api.url, (await tokenFor(suite.creator, ["token:create", "team:view"])).token);
    const res = await narrow.post("/v1/tokens", { name: "wider", abilities: ["team:view", "project:view", "activity:read"] });
    const error = expectError(res, 403, "TOKEN_MISSING_ABILITY");
    assert.deepEqual(error.context, { required_ability: "activity:read", missing_abilities: ["activity:read", "project:view"] });
    assert.equal((await narrow.post("/v1/tokens", { name: "same", abilities: ["team:view"] })).status, 201);
  });

  it("counts abilities held through the catalog's satisfies relations", async () => {
    const planViewer = new ApiClient(suite.api.url, (await tokenFor(suite.creator, ["token:create", "project-subscription-plan:view-any"])).token);
    const res = await planViewer.post("/v1/tokens", { name: "passes", abilities: ["pass-window:view-any"] });
    assert.equal(res.status, 201);
  });

  it("never passes on token:create, even from a token that holds it", async () => {
    const error = expectError(await suite.client.post("/v1/tokens", { name: "minter", abilities: ["token:create"] }), 422, "VALIDATION_FAILED");
    assert.deepEqual(error.fields, { "abilities.0": ["token:create can never be granted through the API"] });
  });

  it("refuses the retired webhook-endpoint:manage on mint", async () => {
    const error = expectError(
      await suite.client.post("/v1/tokens", { name: "legacy", abilities: ["webhook-endpoint:manage"] }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(error.fields, { "abilities.0": ["webhook-endpoint:manage is retired and refused on new tokens"] });
  });

  it("validates name, abilities, project_ids and expires_at", async () => {
    const cases: [unknown, string][] = [
      [{ abilities: ["team:view"] }, "name"],
      [{ name: "x".repeat(256), abilities: ["team:view"] }, "name"],
      [{ name: "x", abilities: [] }, "abilities"],
      [{ name: "x" }, "abilities"],
      [{ name: "x", abilities: ["mcp:full"] }, "abilities.0"],
      [{ name: "x", abilities: ["team:view"], project_ids: [suite.creator.projectIds[0], suite.creator.projectIds[0]] }, "project_ids"],
      [{ name: "x", abilities: ["team:view"], project_ids: [] }, "project_ids"],
      [{ name: "x", abilities: ["team:view"], expires_at: "tomorrow" }, "expires_at"],
      [{ name: "x", abilities: ["team:view"], expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at"],
      [{ name: "x", abilities: ["team:view"], team_id: suite.creator.teamId }, "team_id"],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await suite.client.post("/v1/tokens", body), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), [field], JSON.stringify(body));
    }
  });

  it("never holds an empty project allow-list: scopes always say what the token can reach", async () => {
    const { db } = await testDatabase();
    const error = expectError(
      await suite.client.post("/v1/tokens", { name: "nothing", abilities: ["team:view"], project_ids: [] }),
      422,
      "VALIDATION_FAILED",
    );
    assert.deepEqual(Object.keys(error.fields), ["project_ids"]);
    // The database refuses it too, whatever code path writes a token.
    await assert.rejects(
      db("personal_access_tokens").insert({
        user_id: suite.creator.userId,
        team_id: suite.creator.teamId,
        name: "empty allow-list",
        secret_hash: "x",
        abilities: JSON.stringify(["team:view"]),
        project_ids: JSON.stringify([]),
        created_at: new Date(),
      }),
      /pat_project_ids_not_empty/,
    );
  });

  it("names the refused entry of a long list of allowed values", async () => {
    const error = expectError(await suite.client.post("/v1/tokens", { name: "x", abilities: ["team:view", "mcp:full"] }), 422, "VALIDATION_FAILED");
    assert.deepEqual(error.fields, { "abilities.1": ['"mcp:full" is not one of the 105 allowed values'] });
  });

  it("restricts a token to project_ids and reports them as scope entries", async () => {
    const res = await suite.client.post("/v1/tokens", {
      name: "one project",
      abilities: ["activity:read"],
      project_ids: [suite.creator.projectIds[1], suite.creator.projectIds[0]],
    });
    assert.equal(res.status, 201);
    const sorted = [...suite.creator.projectIds].sort();
    assert.deepEqual(res.body.data.scopes, [`scope:team:${suite.creator.teamId}`, ...sorted.map((id) => `scope:project:${id}`)]);
    expectError(
      await suite.client.post("/v1/tokens", { name: "ghost", abilities: ["activity:read"], project_ids: [randomUUID()] }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("lists and deletes only the calling creator's tokens on this team", async () => {
    const member = await createTestCreator({ label: "member" });
    const memberToken = await joinTeamWithToken(suite.creator, member, ["team:view"]);
    const ids = (await suite.client.get("/v1/tokens?per_page=100")).body.data.map((t: { id: string }) => t.id);
    assert.ok(!ids.includes(memberToken.id), "another member's token is not listed");
    expectError(await suite.client.delete(`/v1/tokens/${memberToken.id}`), 404, "RESOURCE_NOT_FOUND");
    assert.equal((await new ApiClient(suite.api.url, memberToken.token).get("/v1/teams/current")).status, 200);
    const ownOnOtherTeam = (await new ApiClient(suite.api.url, member.token).get("/v1/tokens?per_page=100")).body.data.map(
      (t: { id: string }) => t.id,
    );
    assert.ok(!ownOnOtherTeam.includes(memberToken.id), "a creator's tokens are listed per team");
  });

  it("deletes a token (204), after which it answers 401, and 404s ids that name nothing", async () => {
    const victim = await suite.client.post("/v1/tokens", { name: "to delete", abilities: ["team:view"] });
    assert.equal((await suite.client.delete(`/v1/tokens/${victim.body.data.id}`)).status, 204);
    expectError(await new ApiClient(suite.api.url, victim.body.token).get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    expectError(await suite.client.delete(`/v1/tokens/${victim.body.data.id}`), 404, "RESOURCE_NOT_FOUND");
    for (const id of ["0", "abc", "99999999999", "1e3", "-1"]) {
      expectError(await suite.client.delete(`/v1/tokens/${id}`), 404, "RESOURCE_NOT_FOUND");
    }
    const { db } = await testDatabase();
    const entry = await db("activity_log").where({ subject_type: "token", subject_id: victim.body.data.id, event: "deleted" }).first();
    assert.equal(entry.actor_kind, "api_token");
  });
});
