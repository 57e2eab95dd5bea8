import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient } from "../helpers/http.ts";
import { createTestCreator } from "../helpers/fixtures.ts";

describe("smoke", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.close());

  it("serves the team of a fresh creator", async () => {
    const creator = await createTestCreator();
    const client = new ApiClient(api.url, creator.token);
    const res = await client.get("/v1/teams/current");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, creator.teamId);
    const list = await client.get("/v1/tokens");
    assert.equal(list.status, 200);
    const bad = await client.get("/v1/activity?subject_type=x&subject_id=y");
    assert.equal(bad.status, 422);
  });
});
