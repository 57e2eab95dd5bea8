// How a request's method and path find their operation (src/apps/api/operation-table.ts): as the
// API's other routes match, letter case ignored in the fixed parts and a trailing slash optional; a
// parameter keeps its case and is never empty; a fixed segment wins over a parameter; a path that
// is not valid percent-encoding is refused as malformed.
import assert from "node:assert/strict";
import { request } from "node:http";
import { useApiWithCreator } from "../helpers/suite.ts";

/** The request exactly as written (fetch would normalise the path). */
function send(base: string, token: string, method: string, path: string): Promise<{ status: number; body: any; allow?: string; type?: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const type = res.headers["content-type"];
        resolve({
          status: res.statusCode!,
          body: text && type?.startsWith("application/json") ? JSON.parse(text) : text,
          allow: res.headers.allow,
          type,
        });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("operation routing", () => {
  const suite = useApiWithCreator();
  const get = (path: string) => send(suite.client.baseUrl, suite.client.token!, "GET", path);

  it("ignores letter case in the path's fixed parts and takes an optional trailing slash", async () => {
    for (const path of ["/V1/TOKENS", "/v1/Tokens/", "/v1/tokens?per_page=2", "/v1/teams/CURRENT/"]) {
      assert.equal((await get(path)).status, 200, path);
    }
  });

  it("hands a parameter to its operation as written: its case kept, any length", async () => {
    const mixed = await get("/v1/tokens/AbC");
    assert.equal(mixed.status, 404);
    assert.match(mixed.body.error.message, /"AbC"/);
    const long = await get(`/v1/tokens/${"7".repeat(300)}`);
    assert.equal(long.body.error.code, "RESOURCE_NOT_FOUND");
    assert.match(long.body.error.message, /names nothing/);
  });

  it("names no operation with an empty parameter", async () => {
    const res = await get("/v1/tokens//");
    assert.equal(res.status, 404);
    assert.match(res.body.error.message, /^No route GET/);
  });

  it("prefers a fixed segment to a parameter (members/export is not a member named export)", async () => {
    const project = (await suite.client.post("/v1/projects", { name: "Routing" })).body.data;
    const res = await send(suite.client.baseUrl, suite.client.token!, "GET", `/v1/projects/${project.id}/members/export`);
    assert.equal(res.status, 200, String(res.body));
    assert.match(String(res.type), /^text\/csv/);
  });

  it("refuses a path that is not valid percent-encoding with 400 MALFORMED_REQUEST", async () => {
    for (const path of ["/v1/tokens/%E0%A4%A", "/v1/tokens/%FF", "/v1/tokens/%zz", "/v1/tokens/1%"]) {
      const res = await get(path);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.code, "MALFORMED_REQUEST", path);
    }
    // A well-formed escape decodes: é names nothing, so the operation answers for it.
    const decoded = await get("/v1/tokens/%C3%A9");
    assert.equal(decoded.status, 404);
    assert.match(decoded.body.error.message, /"é"/);
  });

  it("answers HEAD wherever GET answers, and names both in a 405's Allow", async () => {
    assert.equal((await send(suite.client.baseUrl, suite.client.token!, "HEAD", "/v1/tokens")).status, 200);
    const put = await send(suite.client.baseUrl, suite.client.token!, "PUT", "/v1/tokens/");
    assert.equal(put.status, 405);
    assert.equal(put.allow, "GET, HEAD, POST");
  });
});
