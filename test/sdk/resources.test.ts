// The resource methods over a scripted fetch: the request each sends (method, URL, path parameters
// in order, body or query), Idempotency-Keys (given, generated, kept across retries; DELETE too),
// per-call options, 204 as undefined, typed errors, the PagePromise of lists, and the User-Agent.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createClient, NotFoundError, SDK_VERSION, ValidationError } from "../../sdk/src/index.ts";
import { userAgent } from "../../sdk/src/user-agent.ts";
import { errorResponse, jsonResponse, minted, recordingSleep, scriptedFetch, team, type RecordedRequest, type ScriptStep } from "./scripted-fetch.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROJECT = "0b7a4a52-3c1d-4e8f-9a6b-1c2d3e4f5a6b";
const PLAN = "1c8b5b63-4d2e-4f9a-8b7c-2d3e4f5a6b7c";

const plan = {
  id: PLAN,
  project_id: PROJECT,
  name: "Monthly",
  status: "draft",
};

function clientWith(script: ScriptStep[], options: { maxRetries?: number; headers?: Record<string, string> } = {}) {
  const server = scriptedFetch(script);
  const clock = recordingSleep();
  const client = createClient({ baseUrl: "https://api.test/v1", token: "sbt_live_1_secret", fetch: server.fetch, sleep: clock.sleep, ...options });
  return { client, requests: server.requests, delays: clock.delays, remaining: server.remaining };
}

/** A list page of `total` numbered items, `perPage` a page, as the API answers ?page=N. */
function listAnswer(total: number) {
  return (request: RecordedRequest): Response => {
    const url = new URL(request.url);
    const page = Number(url.searchParams.get("page") ?? 1);
    const perPage = Number(url.searchParams.get("per_page") ?? 25);
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const data = Array.from({ length: Math.max(0, Math.min(perPage, total - (page - 1) * perPage)) }, (_, i) => ({
      id: String((page - 1) * perPage + i + 1),
    }));
    return jsonResponse(200, {
      data,
      links: { first: "f", last: "l", prev: null, next: page < lastPage ? `${url.origin}${url.pathname}?page=${page + 1}` : null },
      meta: { current_page: page, from: null, last_page: lastPage, per_page: perPage, to: null, total },
    });
  };
}

describe("sdk resource methods", () => {
  it("sends path parameters in order, the body as JSON with a fresh Idempotency-Key, and resolves to the body", async () => {
    const { client, requests } = clientWith([jsonResponse(201, { data: plan })]);
    const body = { name: "Monthly", price: { amount: 900, currency: "EUR" }, billing_cycle: "month" as const, resources: [] };
    const created = await client.plans.create(PROJECT, body);
    assert.deepEqual(created, { data: plan });
    assert.equal(requests[0]!.method, "POST");
    assert.equal(requests[0]!.url, `https://api.test/v1/projects/${PROJECT}/plans`);
    assert.deepEqual(JSON.parse(requests[0]!.body), body);
    assert.equal(requests[0]!.headers.get("content-type"), "application/json");
    assert.equal(requests[0]!.headers.get("authorization"), "Bearer sbt_live_1_secret");
    assert.match(requests[0]!.headers.get("idempotency-key") ?? "", UUID);
  });

  it("sends the caller's idempotencyKey on writes, DELETE included, and a fresh key per call otherwise", async () => {
    const { client, requests } = clientWith([jsonResponse(201, minted), jsonResponse(204, null), jsonResponse(204, null), jsonResponse(204, null)]);
    await client.tokens.create({ name: "x", abilities: [] }, { idempotencyKey: "order-42" });
    assert.equal(await client.tokens.delete("5", { idempotencyKey: "delete-5" }), undefined, "204 resolves to undefined");
    await client.plans.delete(PROJECT, PLAN);
    await client.plans.delete(PROJECT, PLAN);
    const keys = requests.map((r) => r.headers.get("idempotency-key"));
    assert.deepEqual(keys.slice(0, 2), ["order-42", "delete-5"]);
    assert.match(keys[2] ?? "", UUID);
    assert.match(keys[3] ?? "", UUID);
    assert.notEqual(keys[2], keys[3]);
    assert.equal(requests[1]!.method, "DELETE");
    assert.equal(requests[1]!.url, "https://api.test/v1/tokens/5");
    assert.equal(requests[2]!.url, `https://api.test/v1/projects/${PROJECT}/plans/${PLAN}`);
  });

  it("keeps one key across a write's retries, the given one and the generated one", async () => {
    const { client, requests } = clientWith([
      errorResponse(503, "INTERNAL_SERVER_ERROR"),
      jsonResponse(200, { data: plan }),
      new TypeError("fetch failed"),
      jsonResponse(200, { data: plan }),
    ]);
    await client.plans.publish(PROJECT, PLAN, { idempotencyKey: "publish-1" });
    await client.plans.archive(PROJECT, PLAN);
    const keys = requests.map((r) => r.headers.get("idempotency-key"));
    assert.deepEqual(keys.slice(0, 2), ["publish-1", "publish-1"]);
    assert.match(keys[2] ?? "", UUID);
    assert.equal(keys[3], keys[2]);
  });

  it("sends a body the caller may leave out as {}, and no body where the operation has none", async () => {
    const { client, requests } = clientWith([jsonResponse(200, { data: {} }), jsonResponse(200, { data: plan })]);
    await client.members.ban(PROJECT, "m-1");
    await client.plans.publish(PROJECT, PLAN);
    assert.equal(requests[0]!.url, `https://api.test/v1/projects/${PROJECT}/members/m-1/ban`);
    assert.equal(requests[0]!.body, "{}");
    assert.equal(requests[1]!.body, "");
  });

  it("sends the query object with the API's names, no key on a read, and per-call headers", async () => {
    const { client, requests } = clientWith([listAnswer(3), jsonResponse(200, team)]);
    await client.projects.list({ per_page: 50, sort_direction: "asc" });
    await client.teams.retrieveCurrent({ headers: { "X-Trace": "t-1" } });
    assert.equal(requests[0]!.url, "https://api.test/v1/projects?per_page=50&sort_direction=asc&page=1");
    assert.equal(requests[0]!.headers.get("idempotency-key"), null);
    assert.equal(requests[1]!.url, "https://api.test/v1/teams/current");
    assert.equal(requests[1]!.headers.get("x-trace"), "t-1");
  });

  it("encodes path parameters and refuses a missing one before sending", async () => {
    const { client, requests } = clientWith([jsonResponse(200, { data: plan })]);
    await client.plans.retrieve("a/b c", PLAN);
    assert.equal(requests[0]!.url, `https://api.test/v1/projects/a%2Fb%20c/plans/${PLAN}`);
    // Refused as a rejection, like any failure (a .catch() sees it), and a list's when awaited or iterated.
    await assert.rejects(client.plans.retrieve(PROJECT, undefined as unknown as string), {
      name: "TypeError",
      message: "plans.retrieve: argument 2 (plan) must be a non-empty string, not undefined",
    });
    const list = client.plans.list(42 as unknown as string);
    await assert.rejects(Promise.resolve(list), {
      name: "TypeError",
      message: "plans.list: argument 1 (project) must be a non-empty string, not number",
    });
    await assert.rejects(list.toArray({ limit: 1 }), { name: "TypeError" });
    assert.equal(requests.length, 1);
  });

  it("throws the typed error of a failure", async () => {
    const { client } = clientWith([
      errorResponse(422, "VALIDATION_FAILED", { fields: { name: ["must not be empty"] } }),
      errorResponse(404, "RESOURCE_NOT_FOUND"),
    ]);
    const invalid = await client.projects.create({ name: "" }).catch((e: unknown) => e);
    assert.ok(invalid instanceof ValidationError, String(invalid));
    assert.deepEqual(invalid.fields, { name: ["must not be empty"] });
    const missing = await client.plans.retrieve(PROJECT, PLAN).catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError, String(missing));
    assert.equal(missing.requestId, "req-123");
  });

  it("takes maxRetries and timeoutMs per call", async () => {
    const { client, requests } = clientWith([errorResponse(503, "INTERNAL_SERVER_ERROR"), jsonResponse(200, team)], { maxRetries: 3 });
    const error = await client.teams.retrieveCurrent({ maxRetries: 0 }).catch((e: unknown) => e);
    assert.equal((error as Error).name, "InternalServerError");
    assert.equal(requests.length, 1, "no retry with maxRetries 0");
    await assert.rejects(client.teams.retrieveCurrent({ timeoutMs: -1 }), RangeError);
  });

  describe("lists (PagePromise)", () => {
    it("sends nothing until awaited, and awaits to the first page's envelope", async () => {
      const { client, requests } = clientWith([listAnswer(7)]);
      const list = client.plans.list(PROJECT, { per_page: 3 });
      assert.equal(requests.length, 0);
      const page = await list;
      assert.deepEqual(
        page.data.map((p) => p.id),
        ["1", "2", "3"],
      );
      assert.equal(page.meta.last_page, 3);
      assert.equal(requests[0]!.url, `https://api.test/v1/projects/${PROJECT}/plans?per_page=3&page=1`);
    });

    it("iterates every item across pages with for await", async () => {
      const { client, requests } = clientWith([listAnswer(7), listAnswer(7), listAnswer(7)]);
      const ids: string[] = [];
      for await (const item of client.plans.list(PROJECT, { per_page: 3 })) ids.push(item.id);
      assert.deepEqual(ids, ["1", "2", "3", "4", "5", "6", "7"]);
      assert.deepEqual(
        requests.map((r) => new URL(r.url).searchParams.get("page")),
        ["1", "2", "3"],
      );
    });

    it("toArray({ limit }) stops fetching once it has limit items", async () => {
      const { client, requests, remaining } = clientWith([listAnswer(7), listAnswer(7), listAnswer(7)]);
      const items = await client.projects.list({ per_page: 3 }).toArray({ limit: 4 });
      assert.deepEqual(
        items.map((p) => p.id),
        ["1", "2", "3", "4"],
      );
      assert.equal(requests.length, 2, "the third page is never asked for");
      assert.equal(remaining(), 1);
      const all = await clientWith([listAnswer(2)])
        .client.projects.list()
        .toArray({ limit: 100 });
      assert.equal(all.length, 2);
      for (const limit of [0, -1, 1.5, undefined])
        await assert.rejects(client.projects.list().toArray({ limit } as { limit: number }), RangeError, String(limit));
    });

    it("pages() yields each envelope from the page asked for, and an awaited first page is not fetched again", async () => {
      const { client, requests } = clientWith([listAnswer(7), listAnswer(7), listAnswer(7)]);
      const list = client.tokens.list({ per_page: 3, page: 2 });
      const first = await list;
      assert.equal(first.meta.current_page, 2);
      const seen: number[] = [];
      for await (const page of list.pages()) seen.push(page.meta.current_page);
      assert.deepEqual(seen, [2, 3]);
      assert.equal(requests.length, 2);
    });

    it("rejects the await and the loop with the typed error", async () => {
      const { client } = clientWith([errorResponse(404, "RESOURCE_NOT_FOUND")]);
      const list = client.plans.list(PROJECT);
      await assert.rejects(list, NotFoundError);
      await assert.rejects(async () => {
        for await (const item of list) void item;
      }, NotFoundError);
    });
  });

  describe("User-Agent", () => {
    it("names the SDK, its version and the runtime on every request; a header of the client's replaces it", async () => {
      const { client, requests } = clientWith([jsonResponse(200, team), jsonResponse(200, team)]);
      await client.teams.retrieveCurrent();
      await client.GET("/v1/teams/current");
      const expected = `subbridge-sdk-typescript/${SDK_VERSION} (node ${process.version}; ${process.platform} ${process.arch})`;
      assert.equal(userAgent(), expected);
      for (const request of requests) assert.equal(request.headers.get("user-agent"), expected);
      const own = clientWith([jsonResponse(200, team)], { headers: { "User-Agent": "my-app/1.0" } });
      await own.client.teams.retrieveCurrent();
      assert.equal(own.requests[0]!.headers.get("user-agent"), "my-app/1.0");
    });

    it("carries the package's version, and sends none from a browser", () => {
      const sdkPackage = JSON.parse(readFileSync(new URL("../../sdk/package.json", import.meta.url), "utf8")) as { version: string };
      assert.equal(SDK_VERSION, sdkPackage.version);
      const scope = globalThis as { document?: unknown };
      scope.document = {};
      try {
        assert.equal(userAgent(), null);
      } finally {
        delete scope.document;
      }
    });
  });
});
