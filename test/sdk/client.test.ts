// The client's calls: typed paths, the token, JSON bodies, an Idempotency-Key on every write
// (a given one is kept), bodies returned directly, typed errors thrown, and `raw` for the response.
import assert from "node:assert/strict";
import { createClient, ValidationError, type components } from "../../sdk/src/index.ts";
import { errorResponse, jsonResponse, scriptedFetch } from "./scripted-fetch.ts";

type Token = components["schemas"]["Token"];
const token: Token = {
  id: "5",
  name: "x",
  kind: "personal",
  abilities: ["team:view"],
  scopes: [],
  last_used_at: null,
  expires_at: null,
  created_at: "2026-01-01T00:00:00.000Z",
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function clientAnswering(...responses: Response[]) {
  const server = scriptedFetch(responses);
  return {
    client: createClient({ baseUrl: "https://api.test/", token: "sbt_live_1_secret", fetch: server.fetch, sleep: async () => {} }),
    requests: server.requests,
  };
}

describe("sdk client", () => {
  it("sends the bearer token and query parameters, and resolves to the body", async () => {
    const page = {
      data: [token],
      links: { first: "f", last: "l", prev: null, next: null },
      meta: { current_page: 1, from: 1, last_page: 1, per_page: 10, to: 1, total: 1 },
    };
    const { client, requests } = clientAnswering(jsonResponse(200, page));
    const result = await client.GET("/v1/tokens", { params: { query: { per_page: 10, sort_direction: "asc" } } });
    assert.deepEqual(result, page);
    assert.equal(result.data[0].name, "x");
    assert.equal(requests[0].url, "https://api.test/v1/tokens?per_page=10&sort_direction=asc");
    assert.equal(requests[0].headers.get("authorization"), "Bearer sbt_live_1_secret");
    assert.equal(requests[0].headers.get("idempotency-key"), null, "reads carry no key");
  });

  it("gives every write its own fresh Idempotency-Key and sends the body as JSON", async () => {
    const { client, requests } = clientAnswering(
      jsonResponse(201, { data: token, token: "t1" }),
      jsonResponse(201, { data: token, token: "t2" }),
      jsonResponse(204, null),
    );
    const first = await client.POST("/v1/tokens", { body: { name: "x", abilities: ["team:view"] } });
    assert.equal(first.token, "t1");
    await client.POST("/v1/tokens", { body: { name: "x", abilities: ["team:view"] } });
    assert.equal(await client.DELETE("/v1/tokens/{token_id}", { params: { path: { token_id: "5" } } }), undefined);
    const keys = requests.map((r) => r.headers.get("idempotency-key"));
    assert.ok(
      keys.every((key) => key !== null && UUID.test(key)),
      String(keys),
    );
    assert.equal(new Set(keys).size, 3);
    assert.equal(requests[0].headers.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(requests[0].body), { name: "x", abilities: ["team:view"] });
    assert.equal(requests[2].url, "https://api.test/v1/tokens/5");
  });

  it("keeps an Idempotency-Key the caller gives, as a header parameter or a plain header", async () => {
    const { client, requests } = clientAnswering(jsonResponse(201, { data: token, token: "t" }), jsonResponse(204, null));
    await client.POST("/v1/tokens", { body: { name: "x", abilities: [] }, params: { header: { "Idempotency-Key": "order-42" } } });
    await client.DELETE("/v1/tokens/{token_id}", { params: { path: { token_id: "5" } }, headers: { "Idempotency-Key": "delete-5" } });
    assert.deepEqual(
      requests.map((r) => r.headers.get("idempotency-key")),
      ["order-42", "delete-5"],
    );
  });

  it("throws the typed error of a failure", async () => {
    const { client } = clientAnswering(errorResponse(422, "VALIDATION_FAILED", { fields: { name: ["must not be empty"] } }));
    const error = await client.POST("/v1/tokens", { body: { name: "", abilities: [] } }).catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.deepEqual(error.fields, { name: ["must not be empty"] });
    assert.equal(error.requestId, "req-123");
  });

  it("offers the openapi-fetch client as raw: {data, error, response}, no throw", async () => {
    const { client, requests } = clientAnswering(errorResponse(422, "VALIDATION_FAILED"));
    const { data, error, response } = await client.raw.POST("/v1/tokens", { body: { name: "", abilities: [] } });
    assert.equal(data, undefined);
    assert.equal(error?.error.code, "VALIDATION_FAILED");
    assert.equal(response.status, 422);
    assert.match(requests[0].headers.get("idempotency-key") ?? "", UUID, "raw writes are keyed too");
  });

  it("is typed from the spec: wrong paths, bodies and missing parameters do not compile", async () => {
    const { client } = clientAnswering(...Array.from({ length: 5 }, () => errorResponse(404, "RESOURCE_NOT_FOUND")));
    // The @ts-expect-error lines fail `tsc -p .` if the types stop refusing these calls.
    // @ts-expect-error not a path of the API
    await client.GET("/v1/nothing-here").catch(() => {});
    // @ts-expect-error the body is required
    await client.POST("/v1/tokens").catch(() => {});
    // @ts-expect-error name must be a string
    await client.POST("/v1/tokens", { body: { name: 1, abilities: [] } }).catch(() => {});
    // @ts-expect-error the path parameter is required
    await client.DELETE("/v1/tokens/{token_id}").catch(() => {});
    // @ts-expect-error not a list operation
    void client.paginate("/v1/teams/current");
  });
});
