// The base URL: the deployment's address as its start banner prints it (http://localhost:4000/v1)
// or without /v1, with or without a trailing slash; every request goes to <base>/v1/... once.
import assert from "node:assert/strict";
import { createClient } from "../../sdk/src/index.ts";
import { normaliseBaseUrl } from "../../sdk/src/base-url.ts";
import { jsonResponse, scriptedFetch } from "./scripted-fetch.ts";

const ping = { data: { status: "ok", release: "3.0.0" } };

/** The URL of the one request a client on `baseUrl` sends for `send`. */
async function urlSent(baseUrl: string, send: (client: ReturnType<typeof createClient>) => Promise<unknown> = (c) => c.GET("/v1/ping")) {
  const server = scriptedFetch([jsonResponse(200, ping)]);
  await send(createClient({ baseUrl, fetch: server.fetch }));
  assert.equal(server.requests.length, 1);
  return server.requests[0].url;
}

describe("sdk base URL", () => {
  it("accepts the address with or without /v1 and trailing slashes, as the start banner prints it", async () => {
    for (const baseUrl of [
      "http://localhost:4000/v1",
      "http://localhost:4000/v1/",
      "http://localhost:4000",
      "http://localhost:4000/",
      "http://localhost:4000//",
      " http://localhost:4000/v1\n",
    ]) {
      assert.equal(await urlSent(baseUrl), "http://localhost:4000/v1/ping", JSON.stringify(baseUrl));
    }
  });

  it("keeps a base path in front of /v1 and the query of the call", async () => {
    for (const baseUrl of ["https://gateway.example/subbridge/v1", "https://gateway.example/subbridge/", "https://gateway.example/subbridge"]) {
      assert.equal(
        await urlSent(baseUrl, (c) => c.GET("/v1/tokens", { params: { query: { per_page: 5 } } })),
        "https://gateway.example/subbridge/v1/tokens?per_page=5",
        baseUrl,
      );
    }
  });

  it("drops one trailing /v1 segment only, and never from the host", async () => {
    assert.equal(await urlSent("https://gateway.example/v1/v1"), "https://gateway.example/v1/v1/ping");
    assert.equal(await urlSent("https://gateway.example/apiv1"), "https://gateway.example/apiv1/v1/ping");
    assert.equal(await urlSent("http://v1"), "http://v1/v1/ping");
    assert.equal(await urlSent("http://v1:4000/v1/"), "http://v1:4000/v1/ping");
    assert.equal(normaliseBaseUrl("/api/v1/"), "/api", "a relative base (a browser app behind its own proxy)");
    assert.equal(normaliseBaseUrl(""), "");
  });

  it("applies to raw, pagination and a per-call baseUrl as well", async () => {
    assert.equal(await urlSent("http://localhost:4000/v1/", (c) => c.raw.GET("/v1/ping")), "http://localhost:4000/v1/ping");
    assert.equal(
      await urlSent("http://localhost:4000", (c) => c.GET("/v1/ping", { baseUrl: "https://other.example/v1/" })),
      "https://other.example/v1/ping",
    );
    const server = scriptedFetch([
      jsonResponse(200, { data: [], links: {}, meta: { current_page: 1, from: null, last_page: 1, per_page: 25, to: null, total: 0 } }),
    ]);
    for await (const token of createClient({ baseUrl: "http://localhost:4000/v1", fetch: server.fetch }).paginate("/v1/tokens")) void token;
    assert.equal(server.requests[0].url, "http://localhost:4000/v1/tokens?page=1");
  });
});
