// GET /v1/tokens/{token_id} (token:view, REST only): one token as the list shows it; whatever the list
// would not show answers 404.
import assert from "node:assert/strict";
import { ApiClient, expectError } from "../../helpers/http.ts";
import { useApiWithCreator } from "../../helpers/suite.ts";
import { createTestCreator, joinTeamWithToken, tokenFor } from "../../helpers/fixtures.ts";
import { expectCredentialRefusals } from "../subscriptions/commerce.ts";

describe("get_token", () => {
  const suite = useApiWithCreator({ creator: { label: "get-token", projects: 2 } });

  it("answers one token exactly as the list shows it, never its secret", async () => {
    const minted = await suite.client.post("/v1/tokens", { name: "Reader", abilities: ["team:view"], project_ids: [suite.creator.projectIds[0]] });
    assert.equal(minted.status, 201);
    const res = await suite.client.get(`/v1/tokens/${minted.body.data.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: minted.body.data });
    const listed = (await suite.client.get("/v1/tokens?per_page=100")).body.data.find((t: { id: string }) => t.id === minted.body.data.id);
    assert.deepEqual(res.body.data, listed);
    assert.ok(!JSON.stringify(res.body).includes(minted.body.token.split("_").pop()), "the secret never comes back");
  });

  it("404s another member's token, another team's, a revoked one, one outside the caller's allow-list, and ids naming nothing", async () => {
    const member = await createTestCreator({ label: "get-token-member" });
    const memberToken = await joinTeamWithToken(suite.creator, member, ["team:view"]);
    expectError(await suite.client.get(`/v1/tokens/${memberToken.id}`), 404, "RESOURCE_NOT_FOUND");
    const stranger = await createTestCreator({ label: "get-token-stranger" });
    expectError(await suite.client.get(`/v1/tokens/${stranger.tokenId}`), 404, "RESOURCE_NOT_FOUND");

    const revoked = await suite.client.post("/v1/tokens", { name: "gone", abilities: ["team:view"] });
    assert.equal((await suite.client.delete(`/v1/tokens/${revoked.body.data.id}`)).status, 204);
    expectError(await suite.client.get(`/v1/tokens/${revoked.body.data.id}`), 404, "RESOURCE_NOT_FOUND");

    const [p1, p2] = suite.creator.projectIds as [string, string];
    const restricted = new ApiClient(suite.api.url, (await tokenFor(suite.creator, ["token:view"], [p1])).token);
    const inside = await tokenFor(suite.creator, ["team:view"], [p1]);
    assert.equal((await restricted.get(`/v1/tokens/${inside.id}`)).status, 200);
    for (const projects of [[p2], undefined, [p1, p2]]) {
      const outside = await tokenFor(suite.creator, ["team:view"], projects);
      expectError(await restricted.get(`/v1/tokens/${outside.id}`), 404, "RESOURCE_NOT_FOUND");
    }
    for (const id of ["0", "abc", "99999999999", "-1"]) expectError(await suite.client.get(`/v1/tokens/${id}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("needs a credential and the ability token:view", async () => {
    const { id } = await tokenFor(suite.creator, ["team:view"]);
    await expectCredentialRefusals(suite.client, suite.creator, { method: "GET", path: `/v1/tokens/${id}`, ability: "token:view" });
  });
});
