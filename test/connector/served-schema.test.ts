// The API host serves spec/connector.schema.json at the path of its $id, so "$schema" in a
// connector.json resolves in editors.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ROOT } from "./manifest-files.ts";

describe("served connector schema", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.close());

  it("answers GET /schemas/connector.schema.json with the schema, its media type, CORS and caching", async () => {
    const file = readFileSync(join(ROOT, "spec/connector.schema.json"), "utf8");
    const id = new URL(JSON.parse(file).$id);
    const res = await fetch(`${api.url}${id.pathname}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/schema\+json/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("cache-control") ?? "", /public, max-age=\d+/);
    assert.equal(await res.text(), file);
  });
});
