// The SDK against the real API in-process: typed calls, automatic Idempotency-Keys (and replay
// with a given key), typed errors with the envelope's facts, and pagination across pages.
import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { AuthenticationError, createClient, NotFoundError, PermissionError, ValidationError, type SubBridgeClient } from "../../sdk/src/index.ts";

describe("sdk against the live API", () => {
  let api: RunningApi;
  let creator: TestCreator;
  let client: SubBridgeClient;
  /** Headers of every request the client sent. */
  const sent: Headers[] = [];

  before(async () => {
    api = await startApi();
    creator = await createTestCreator({ label: "sdk" });
    const recordingFetch = (request: Request) => {
      sent.push(new Headers(request.headers));
      return fetch(request);
    };
    client = createClient({ baseUrl: api.url, token: creator.token, fetch: recordingFetch });
  });
  after(() => api.close());
  beforeEach(() => void sent.splice(0));

  it("answers a public route without a token", async () => {
    const ping = await createClient({ baseUrl: api.url }).GET("/v1/ping");
    assert.equal(ping.data.status, "ok");
  });

  it("takes the REST address as the start banner prints it, /v1 included (not /v1/v1/ping)", async () => {
    for (const baseUrl of [`${api.url}/v1`, `${api.url}/v1/`]) {
      const ping = await createClient({ baseUrl }).GET("/v1/ping");
      assert.equal(ping.data.status, "ok", baseUrl);
    }
  });

  it("lists the creator's tokens", async () => {
    const page = await client.GET("/v1/tokens");
    assert.ok(page.data.some((token) => token.id === creator.tokenId));
    assert.equal(page.meta.current_page, 1);
  });

  it("mints a token with an Idempotency-Key it generated", async () => {
    const minted = await client.POST("/v1/tokens", { body: { name: "sdk minted", abilities: ["team:view"] } });
    assert.match(minted.token, /^sbt_live_/);
    assert.deepEqual(minted.data.abilities, ["team:view"]);
    assert.match(sent[0].get("idempotency-key") ?? "", /^[0-9a-f-]{36}$/);
    const team = await createClient({ baseUrl: api.url, token: minted.token }).GET("/v1/teams/current");
    assert.equal(team.data.id, creator.teamId);
  });

  it("replays a write sent again with the same key: the same token, marked Idempotent-Replay", async () => {
    const key = crypto.randomUUID();
    const body = { name: "sdk replayed", abilities: ["team:view" as const] };
    const first = await client.POST("/v1/tokens", { body, params: { header: { "Idempotency-Key": key } } });
    const again = await client.raw.POST("/v1/tokens", { body, params: { header: { "Idempotency-Key": key } } });
    assert.equal(again.response.headers.get("idempotent-replay"), "true");
    assert.equal(again.data?.data.id, first.data.id);
    assert.equal(again.data?.token, first.token);
    assert.deepEqual(
      sent.map((h) => h.get("idempotency-key")),
      [key, key],
    );
  });

  it("throws NotFoundError for a token that does not exist", async () => {
    const error = await client.DELETE("/v1/tokens/{token_id}", { params: { path: { token_id: "987654321" } } }).catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError, String(error));
    assert.equal(error.code, "RESOURCE_NOT_FOUND");
    assert.equal(error.status, 404);
    assert.equal(error.requestId, error.headers?.get("x-request-id"));
  });

  it("throws PermissionError naming the required ability", async () => {
    const narrow = await tokenFor(creator, ["team:view"]);
    const error = await createClient({ baseUrl: api.url, token: narrow.token })
      .GET("/v1/tokens")
      .catch((e: unknown) => e);
    assert.ok(error instanceof PermissionError, String(error));
    assert.equal(error.code, "TOKEN_MISSING_ABILITY");
    assert.equal(error.requiredAbility, "token:view-any");
    assert.deepEqual(error.context, { required_ability: "token:view-any" });
    assert.match(error.docsUrl ?? "", /#token_missing_ability$/);
    assert.ok(error.remediation && error.remediation.length > 10);
  });

  it("throws AuthenticationError for an unknown token and ValidationError with fields for a bad body", async () => {
    const unknown = await createClient({ baseUrl: api.url, token: "sbt_live_1_nope" })
      .GET("/v1/teams/current")
      .catch((e: unknown) => e);
    assert.ok(unknown instanceof AuthenticationError, String(unknown));
    const invalid = await client.POST("/v1/tokens", { body: { name: "", abilities: ["team:view"] } }).catch((e: unknown) => e);
    assert.ok(invalid instanceof ValidationError, String(invalid));
    assert.deepEqual(Object.keys(invalid.fields ?? {}), ["name"]);
  });

  it("paginates over more than two pages of tokens", async () => {
    const owner = await createTestCreator({ label: "sdk-pages" });
    for (let i = 0; i < 6; i++) await tokenFor(owner, ["team:view"]);
    const ownerClient = createClient({ baseUrl: api.url, token: owner.token });
    const everything = await ownerClient.GET("/v1/tokens", { params: { query: { per_page: 100 } } });
    assert.equal(everything.meta.total, 7);

    const pageNumbers: number[] = [];
    for await (const page of ownerClient.pages("/v1/tokens", { params: { query: { per_page: 2 } } })) pageNumbers.push(page.meta.current_page);
    assert.deepEqual(pageNumbers, [1, 2, 3, 4]);

    const ids: string[] = [];
    for await (const token of ownerClient.paginate("/v1/tokens", { params: { query: { per_page: 2 } } })) ids.push(token.id);
    assert.deepEqual(
      ids,
      everything.data.map((t) => t.id),
    );
  });
});
