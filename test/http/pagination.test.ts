// The description's pagination table, row by row, on a list operation (GET /v1/tokens).
import assert from "node:assert/strict";
import { expectError } from "../helpers/http.ts";
import { useApiWithCreator } from "../helpers/suite.ts";

describe("pagination", () => {
  const suite = useApiWithCreator();
  /** Every visible token id, oldest first. */
  let ids: string[];
  before(async () => {
    for (const name of ["golf", "alpha", "echo", "charlie", "bravo", "foxtrot", "delta"]) {
      assert.equal((await suite.client.post("/v1/tokens", { name, abilities: ["team:view"] })).status, 201);
    }
    ids = [
      suite.creator.tokenId,
      ...(await suite.client.get("/v1/tokens?per_page=100&sort_direction=asc")).body.data.slice(1).map((t: { id: string }) => t.id),
    ];
  });

  const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((t) => t.name);

  it("answers the list envelope with absolute links, default 25 per page, newest first", async () => {
    const res = await suite.client.get("/v1/tokens");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { current_page: 1, from: 1, last_page: 1, per_page: 25, to: 8, total: 8 });
    assert.equal(res.body.links.first, `${suite.api.url}/v1/tokens?per_page=25&page=1`);
    assert.equal(res.body.links.last, `${suite.api.url}/v1/tokens?per_page=25&page=1`);
    assert.equal(res.body.links.prev, null);
    assert.equal(res.body.links.next, null);
    assert.deepEqual(
      res.body.data.map((t: { id: string }) => t.id),
      [...ids].reverse(),
    );
  });

  it("walks pages with from/to, last_page and prev/next links", async () => {
    const first = await suite.client.get("/v1/tokens?per_page=3&sort_by=name&sort_direction=asc");
    assert.deepEqual(names(first), ["alpha", "bravo", "charlie"]);
    assert.deepEqual(first.body.meta, { current_page: 1, from: 1, last_page: 3, per_page: 3, to: 3, total: 8 });
    assert.equal(first.body.links.next, `${suite.api.url}/v1/tokens?per_page=3&sort_by=name&sort_direction=asc&page=2`);
    const next = await suite.client.get(new URL(first.body.links.next).pathname + new URL(first.body.links.next).search);
    assert.deepEqual(names(next), ["delta", "echo", "foxtrot"]);
    const last = await suite.client.get("/v1/tokens?per_page=3&sort_by=name&sort_direction=asc&page=3");
    assert.deepEqual(names(last), ["golf", "Operator token"], "names sort case-insensitively");
    assert.deepEqual(last.body.meta, { current_page: 3, from: 7, last_page: 3, per_page: 3, to: 8, total: 8 });
    assert.equal(last.body.links.next, null);
    assert.equal(last.body.links.prev, `${suite.api.url}/v1/tokens?per_page=3&sort_by=name&sort_direction=asc&page=2`);
  });

  it("answers a page past the last with empty data and meta.total filled", async () => {
    const res = await suite.client.get("/v1/tokens?per_page=3&page=9");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, []);
    assert.deepEqual(res.body.meta, { current_page: 9, from: null, last_page: 3, per_page: 3, to: null, total: 8 });
    assert.equal(res.body.links.prev, `${suite.api.url}/v1/tokens?per_page=3&page=3`);
    assert.equal(res.body.links.next, null);
  });

  it("answers any page past the last with empty data, however far", async () => {
    for (const page of ["1000000", "100000000000000000000"]) {
      const res = await suite.client.get(`/v1/tokens?page=${page}`);
      assert.equal(res.status, 200, page);
      assert.deepEqual(res.body.data, []);
      assert.equal(res.body.meta.total, 8);
    }
  });

  it("clamps per_page above 100 silently", async () => {
    const res = await suite.client.get("/v1/tokens?per_page=500");
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.per_page, 100);
    assert.equal(res.body.links.first, `${suite.api.url}/v1/tokens?per_page=100&page=1`);
  });

  it("accepts limit as an alias of per_page (per_page wins when both are sent)", async () => {
    const alias = await suite.client.get("/v1/tokens?limit=2");
    assert.equal(alias.body.meta.per_page, 2);
    assert.equal(alias.body.data.length, 2);
    assert.equal(alias.body.links.next, `${suite.api.url}/v1/tokens?per_page=2&page=2`);
    assert.equal((await suite.client.get("/v1/tokens?limit=2&per_page=4")).body.meta.per_page, 4);
    assert.equal((await suite.client.get("/v1/tokens?limit=900")).body.meta.per_page, 100);
  });

  it("sorts by an offered column in either direction, and falls back to created_at for any other", async () => {
    assert.deepEqual(names(await suite.client.get("/v1/tokens?sort_by=name&sort_direction=desc&per_page=3")), ["Operator token", "golf", "foxtrot"]);
    const fallback = await suite.client.get("/v1/tokens?sort_by=secret_hash&per_page=200");
    assert.equal(fallback.status, 200);
    assert.equal(
      fallback.body.links.first,
      `${suite.api.url}/v1/tokens?sort_by=created_at&per_page=100&page=1`,
      "links name the effective sort and page size",
    );
    assert.deepEqual(
      fallback.body.data.map((t: { id: string }) => t.id),
      [...ids].reverse(),
    );
    const oldestFirst = await suite.client.get("/v1/tokens?sort_by=nope&sort_direction=asc");
    assert.deepEqual(
      oldestFirst.body.data.map((t: { id: string }) => t.id),
      ids,
    );
  });

  it("refuses invalid paging values with 422 naming the field", async () => {
    const cases: Record<string, string> = {
      "page=0": "page",
      "page=-2": "page",
      "page=abc": "page",
      "per_page=0": "per_page",
      "per_page=2.5": "per_page",
      "limit=0": "per_page",
      "sort_direction=up": "sort_direction",
    };
    for (const [query, field] of Object.entries(cases)) {
      const error = expectError(await suite.client.get(`/v1/tokens?${query}`), 422, "VALIDATION_FAILED");
      assert.deepEqual(Object.keys(error.fields), [field], query);
    }
  });
});
