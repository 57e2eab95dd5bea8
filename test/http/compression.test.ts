// The large public answers are compressed as the client accepts and validated by ETag: the JSON
// documents of the API and the reference site, Scalar's bundle (at an address carrying its hash,
// cached for a year) and the dashboard's hashed assets. The API's own answers keep their bytes.
import assert from "node:assert/strict";
import { request } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startSites, type RunningSites } from "../helpers/site.ts";
import { serveOnFreePort, testLogger } from "../helpers/server.ts";
import { createDashboardApp } from "../../src/apps/dashboard/dashboard-app.ts";
import { repositoryFile } from "../../src/repository-files.ts";

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, before any decoding. */
  body: Buffer;
}

/** A GET whose bytes are read as they come (fetch would decode them and hide Content-Encoding). */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

function decoded(res: Raw): Buffer {
  const encoding = res.headers["content-encoding"];
  if (encoding === "br") return brotliDecompressSync(res.body);
  if (encoding === "gzip") return gunzipSync(res.body);
  assert.equal(encoding, undefined, `unexpected encoding ${encoding}`);
  return res.body;
}

describe("compression and caching of the public documents and assets", function () {
  this.timeout(60_000);
  let sites: RunningSites;
  before(async function () {
    this.timeout(180_000); // three surfaces and a test database, on a loaded machine
    sites = await startSites();
  });
  after(() => sites?.close());

  for (const path of ["/openapi.json", "/mcp-tools.json", "/error-codes.json"]) {
    it(`API ${path}: brotli or gzip as accepted, identity otherwise, the same bytes decoded, an ETag answered 304`, async () => {
      const plain = await get(sites.api.url + path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers["content-encoding"], undefined, "no Accept-Encoding: identity");
      assert.equal(Number(plain.headers["content-length"]), plain.body.length);
      const etag = plain.headers.etag as string;
      assert.match(etag, /^W\/"[\w-]{16}"$/);
      for (const encoding of ["br", "gzip"]) {
        const res = await get(sites.api.url + path, { "accept-encoding": encoding });
        assert.equal(res.headers["content-encoding"], encoding, path);
        assert.match(String(res.headers.vary), /accept-encoding/i);
        assert.equal(res.headers.etag, etag, "the same ETag for every encoding (weak)");
        assert.equal(res.headers["cache-control"], "public, max-age=300");
        assert.ok(decoded(res).equals(plain.body), "decodes to the identity bytes");
        assert.ok(res.body.length < plain.body.length / 2, `${path} ${encoding}: ${res.body.length} of ${plain.body.length} bytes`);
      }
      const again = await get(sites.api.url + path, { "accept-encoding": "br", "if-none-match": etag });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      const changed = await get(sites.api.url + path, { "if-none-match": 'W/"something-else"' });
      assert.equal(changed.status, 200);
    });
  }

  it("reference site: Scalar's bundle at its hashed address, cached for a year, streamed compressed; its OpenAPI document compressed", async () => {
    const page = await (await fetch(`${sites.docs.url}/reference`)).text();
    const path = /<script src="(\/assets\/scalar-api-reference\.[\w-]{16}\.js)">/.exec(page)?.[1];
    assert.ok(path, "the page names the bundle by its hash");
    const file = readFileSync(repositoryFile("node_modules/@scalar/api-reference/dist/browser/standalone.js"));
    const res = await get(sites.docs.url + path, { "accept-encoding": "gzip" });
    assert.equal(res.status, 200);
    assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(res.headers["content-encoding"], "gzip");
    assert.ok(decoded(res).equals(file), "the file's bytes");
    assert.ok(res.body.length < file.length / 2, `${res.body.length} of ${file.length} bytes`);
    assert.notEqual((await get(`${sites.docs.url}/assets/scalar-api-reference.js`)).status, 200, "the unhashed address is gone");
    const doc = await get(`${sites.docs.url}/openapi.json`, { "accept-encoding": "br" });
    assert.equal(doc.headers["content-encoding"], "br");
    assert.match(String(doc.headers.etag), /^W\//);
    assert.deepEqual(JSON.parse(decoded(doc).toString()), await (await fetch(`${sites.api.url}/openapi.json`)).json());
  });

  it("dashboard: hashed assets compressed and cached for a year", async () => {
    const dist = mkdtempSync(join(tmpdir(), "dashboard-dist-"));
    try {
      mkdirSync(join(dist, "assets"));
      writeFileSync(join(dist, "index.html"), "<!doctype html><title>app</title>");
      const script = `console.log(${JSON.stringify("a dashboard script ".repeat(500))});`;
      writeFileSync(join(dist, "assets", "index-AbC123.js"), script);
      const deps = {
        release: "test",
        logger: testLogger,
        dashboardUrl: "http://127.0.0.1:4999",
        baseUrl: "http://127.0.0.1:4000",
        authUrl: "http://127.0.0.1:4002",
        portalUrl: "http://127.0.0.1:4005",
        docsUrl: "http://127.0.0.1:4004",
        mcpUrl: "http://127.0.0.1:4001",
        distDir: dist,
      };
      const running = await serveOnFreePort(() => createDashboardApp(deps));
      try {
        const res = await get(`${running.url}/assets/index-AbC123.js`, { "accept-encoding": "gzip, br" });
        assert.equal(res.status, 200);
        assert.equal(res.headers["content-encoding"], "br");
        assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
        assert.equal(decoded(res).toString(), script);
      } finally {
        await running.close();
      }
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
