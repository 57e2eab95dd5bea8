// paginate / pages walk a list operation page by page against a fake server that answers the list
// envelope for ?page=N, and stop at the last page.
import assert from "node:assert/strict";
import { createClient } from "../../sdk/src/index.ts";
import { iteratePages, nextPageNumber } from "../../sdk/src/pagination.ts";
import { jsonResponse, scriptedFetch, type RecordedRequest } from "./scripted-fetch.ts";

const tokens = Array.from({ length: 7 }, (_, i) => ({ id: String(i + 1), name: `token ${i + 1}` }));

/** The list envelope the API answers for this request's page and per_page. */
function listPage(request: RecordedRequest): Response {
  const url = new URL(request.url);
  const page = Number(url.searchParams.get("page") ?? 1);
  const perPage = Number(url.searchParams.get("per_page") ?? 25);
  const lastPage = Math.max(1, Math.ceil(tokens.length / perPage));
  const rows = tokens.slice((page - 1) * perPage, page * perPage);
  const at = (n: number) => `${url.origin}${url.pathname}?per_page=${perPage}&page=${n}`;
  return jsonResponse(200, {
    data: rows,
    links: { first: at(1), last: at(lastPage), prev: page > 1 ? at(page - 1) : null, next: page < lastPage ? at(page + 1) : null },
    meta: {
      current_page: page,
      from: rows.length ? (page - 1) * perPage + 1 : null,
      last_page: lastPage,
      per_page: perPage,
      to: rows.length ? (page - 1) * perPage + rows.length : null,
      total: tokens.length,
    },
  });
}

function fakeListServer() {
  const server = scriptedFetch(Array.from({ length: 20 }, () => listPage));
  return { client: createClient({ baseUrl: "https://api.test", token: "t", fetch: server.fetch }), requests: server.requests };
}

describe("sdk pagination", () => {
  it("yields every item of every page, in order, fetching each page once", async () => {
    const { client, requests } = fakeListServer();
    const names: string[] = [];
    for await (const token of client.paginate("/v1/tokens", { params: { query: { per_page: 3, sort_direction: "asc" } } })) names.push(token.name);
    assert.deepEqual(
      names,
      tokens.map((t) => t.name),
    );
    assert.deepEqual(
      requests.map((r) => new URL(r.url).search),
      ["?per_page=3&sort_direction=asc&page=1", "?per_page=3&sort_direction=asc&page=2", "?per_page=3&sort_direction=asc&page=3"],
    );
  });

  it("yields whole pages with pages(), starting at the page asked for", async () => {
    const { client } = fakeListServer();
    const seen: number[] = [];
    for await (const page of client.pages("/v1/tokens", { params: { query: { per_page: 2, page: 2 } } })) seen.push(page.meta.current_page);
    assert.deepEqual(seen, [2, 3, 4]);
  });

  it("fetches nothing more when the loop stops early", async () => {
    const { client, requests } = fakeListServer();
    for await (const token of client.paginate("/v1/tokens", { params: { query: { per_page: 3 } } })) if (token.id === "2") break;
    assert.equal(requests.length, 1);
  });

  it("follows links.next when meta is absent, and stops at an empty page or a page that does not advance", async () => {
    const envelopes = [
      { data: [1, 2], links: { next: "https://api.test/v1/x?page=2" } },
      { data: [3], links: { next: "https://api.test/v1/x?page=3" } },
      { data: [], links: { next: "https://api.test/v1/x?page=4" } },
    ];
    const asked: number[] = [];
    const pages = iteratePages(async (page) => {
      asked.push(page);
      return envelopes[page - 1] as never;
    });
    const items: unknown[] = [];
    for await (const page of pages) items.push(...(page as { data: unknown[] }).data);
    assert.deepEqual(items, [1, 2, 3]);
    assert.deepEqual(asked, [1, 2, 3]);
    assert.equal(nextPageNumber({ data: [1], meta: { current_page: 3, last_page: 3 } } as never), null);
    assert.equal(nextPageNumber({ data: [1], links: { next: "https://api.test/v1/x?page=1" } } as never), 1);
    const looping: number[] = [];
    for await (const page of iteratePages(async (n) => ({ data: [n], links: { next: "https://api.test/v1/x?page=1" } }) as never))
      looping.push(...(page as { data: number[] }).data);
    assert.deepEqual(looping, [1], "a next link back to the same page ends the walk");
  });
});
