// Routes that need no token: /v1/ping, /up, /openapi.json, /abilities.json, /error-codes.json.
import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient } from "../helpers/http.ts";
import { createTestCreator } from "../helpers/fixtures.ts";

describe("public routes and the team read", () => {
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.close());

  it("answers /v1/ping without a token", async () => {
    const res = await new ApiClient(api.url).get("/v1/ping");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "ok");
    assert.equal(res.body.data.release, "3.0.0");
  });

  it("answers /up with 200 while up", async () => {
    const res = await fetch(`${api.url}/up`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "up", release: "3.0.0" });
  });

  it("answers its root and /v1 with an index of where to go (the address the banner, the API catalog and the SDK name)", async () => {
    for (const path of ["/", "/v1"]) {
      const res = await fetch(`${api.url}${path}`);
      assert.equal(res.status, 200, path);
      const index = (await res.json()) as Record<string, unknown>;
      assert.equal(index.openapi, `${api.url}/openapi.json`);
      assert.equal(index.ping, `${api.url}/v1/ping`);
      assert.match(String(index.documentation), /\/guides\/rest-api$/);
    }
  });

  it("serves the OpenAPI document with this deployment as its server", async () => {
    const res = await fetch(`${api.url}/openapi.json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const doc = (await res.json()) as { openapi: string; servers: { url: string }[]; paths: Record<string, unknown> };
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(
      doc.servers.map((s) => s.url),
      [api.url],
    );
    assert.ok("/v1/tokens" in doc.paths && "/v1/activity" in doc.paths);
  });

  it("serves the ability catalog with value, category, status and notes", async () => {
    const doc = (await (await fetch(`${api.url}/abilities.json`)).json()) as {
      count: number;
      grantable_count: number;
      abilities: { value: string; category: string; status: string; note?: string; satisfies?: string[] }[];
    };
    assert.equal(doc.count, 107);
    assert.equal(doc.grantable_count, 106);
    const byValue = new Map(doc.abilities.map((a) => [a.value, a]));
    assert.equal(byValue.get("project:create")?.status, "rest_and_mcp");
    assert.equal(byValue.get("token:create")?.status, "rest_only");
    assert.equal(byValue.get("broadcast:send")?.status, "rest_and_mcp");
    assert.equal(byValue.get("payment:refund")?.status, "coming");
    assert.equal(byValue.get("billing:read")?.status, "no_api");
    const manage = byValue.get("webhook-endpoint:manage")!;
    assert.equal(manage.status, "retired");
    assert.match(manage.note!, /webhook-delivery:retry/);
    assert.deepEqual(byValue.get("project-subscription-plan:view-any")?.satisfies, ["pass-window:view-any"]);
    for (const a of doc.abilities) assert.ok(a.category && /^[a-z-]+:[a-z-]+$/.test(a.value), a.value);
  });

  it("serves the error catalog", async () => {
    const doc = (await (await fetch(`${api.url}/error-codes.json`)).json()) as { errors: { code: string; status: number }[] };
    assert.equal(doc.errors.find((e) => e.code === "IDEMPOTENCY_REPLAY_IN_PROGRESS")?.status, 425);
    assert.equal(doc.errors.length, 33);
    assert.equal(doc.errors.find((e) => e.code === "REQUEST_HEADERS_TOO_LARGE")?.status, 431);
    assert.equal(doc.errors.find((e) => e.code === "SERVICE_BUSY")?.status, 503);
  });

  it("answers GET /v1/teams/current with the token's team", async () => {
    const creator = await createTestCreator();
    const res = await new ApiClient(api.url, creator.token).get("/v1/teams/current");
    assert.deepEqual(Object.keys(res.body.data).sort(), ["created_at", "id", "name", "owner_user_id", "personal"]);
    assert.equal(res.body.data.owner_user_id, creator.userId);
    assert.equal(res.body.data.personal, true);
  });
});
