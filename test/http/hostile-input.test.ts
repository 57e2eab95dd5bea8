// Nothing a client can send produces a 500: every odd request gets a 4xx error envelope.
import assert from "node:assert/strict";
import { request } from "node:http";
import { useApiWithCreator } from "../helpers/suite.ts";

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (fetch would normalise or refuse some of these). */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      let data = "";
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe("hostile input", () => {
  const suite = useApiWithCreator();

  const auth = () => ({ authorization: `Bearer ${suite.creator.token}` });
  const write = () => ({ ...auth(), "idempotency-key": crypto.randomUUID(), "content-type": "application/json" });

  const cases: [string, () => [string, string, Record<string, string>, (string | Buffer)?]][] = [
    ["bad percent-encoding in a path id", () => ["DELETE", "/v1/tokens/%E0%A4%A", write()]],
    ["percent-encoded slash in a path id", () => ["DELETE", "/v1/tokens/1%2F2", write()]],
    ["NUL in a path id", () => ["DELETE", "/v1/tokens/%00", write()]],
    ["huge path id", () => ["DELETE", `/v1/tokens/${"9".repeat(400)}`, write()]],
    ["bad percent-encoding in the query", () => ["GET", "/v1/tokens?page=%E0%A4%A", auth()]],
    ["repeated page", () => ["GET", "/v1/tokens?page=1&page=2", auth()]],
    ["bracketed query keys", () => ["GET", "/v1/tokens?page[gt]=1&per_page[]=3", auth()]],
    ["per_page overflow", () => ["GET", "/v1/tokens?per_page=1e400", auth()]],
    ["activity limit as text", () => ["GET", `/v1/activity?subject_type=project&subject_id=${suite.creator.projectIds[0]}&limit=ten`, auth()]],
    ["activity subject_id SQL", () => ["GET", "/v1/activity?subject_type=project&subject_id=1'%20OR%201=1--", auth()]],
    ["JSON null body", () => ["POST", "/v1/tokens", write(), "null"]],
    ["JSON array body", () => ["POST", "/v1/tokens", write(), "[1,2]"]],
    ["JSON string body", () => ["POST", "/v1/tokens", write(), '"hi"']],
    ["deeply nested body", () => ["POST", "/v1/tokens", write(), "[".repeat(5000) + "]".repeat(5000)]],
    ["invalid UTF-8 body", () => ["POST", "/v1/tokens", write(), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])]],
    ["name with NUL and emoji", () => ["POST", "/v1/tokens", write(), JSON.stringify({ name: "a\u0000b😀", abilities: ["team:view"] })]],
    ["NUL in a query value", () => ["GET", "/v1/tokens?sort_by=na%00me", auth()]],
    [
      "project_ids not uuids",
      () => ["POST", "/v1/tokens", write(), JSON.stringify({ name: "x", abilities: ["team:view"], project_ids: ["'; drop table users; --"] })],
    ],
    [
      "expires_at far future",
      () => ["POST", "/v1/tokens", write(), JSON.stringify({ name: "x", abilities: ["team:view"], expires_at: "99999-01-01T00:00:00Z" })],
    ],
    [
      "content-type with charset and params",
      () => ["POST", "/v1/tokens", { ...write(), "content-type": "application/json; charset=latin1; x=y" }, "{}"],
    ],
    ["huge Idempotency-Key", () => ["POST", "/v1/tokens", { ...write(), "idempotency-key": "k".repeat(5000) }, "{}"]],
    ["bearer of odd characters", () => ["GET", "/v1/teams/current", { authorization: "Bearer sbt_live_1_" + "é".repeat(50) }]],
    ["bearer with a 20-digit id", () => ["GET", "/v1/teams/current", { authorization: `Bearer sbt_live_${"9".repeat(20)}_${"a".repeat(40)}` }]],
    ["OPTIONS on a route", () => ["OPTIONS", "/v1/tokens", {}]],
    ["unknown method", () => ["PROPFIND", "/v1/tokens", auth()]],
    ["path traversal", () => ["GET", "/v1/../../etc/passwd", auth()]],
  ];

  /** Requests a server may accept (unknown query keys are ignored; a huge per_page is clamped). */
  const acceptable = new Set(["bracketed query keys", "per_page overflow"]);

  for (const [label, make] of cases) {
    it(`answers ${label} with ${acceptable.has(label) ? "a success" : "a 4xx envelope"}, never a 500`, async () => {
      const [method, path, headers, body] = make();
      const res = await raw(suite.api.url, method, path, headers, body);
      if (acceptable.has(label)) {
        assert.equal(res.status, 200, `${label}: ${res.body.slice(0, 300)}`);
        return;
      }
      assert.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status} ${res.body.slice(0, 300)}`);
      const parsed = JSON.parse(res.body);
      assert.equal(typeof parsed.error.code, "string");
      assert.equal(parsed.error.request_id, res.headers["x-request-id"]);
    });
  }

  it("names the field holding a NUL character", async () => {
    const res = await raw(suite.api.url, "POST", "/v1/tokens", write(), JSON.stringify({ name: "a\u0000b", abilities: ["team:view"] }));
    assert.equal(res.status, 422);
    assert.deepEqual(JSON.parse(res.body).error.fields, { name: ["must not contain the NUL character"] });
    const ok = await raw(suite.api.url, "POST", "/v1/tokens", write(), JSON.stringify({ name: "emoji 😀 ok", abilities: ["team:view"] }));
    assert.equal(ok.status, 201);
  });

  it("answers HEAD on a read like GET, without a body", async () => {
    const res = await raw(suite.api.url, "HEAD", "/v1/teams/current", auth());
    assert.equal(res.status, 200);
    assert.equal(res.body, "");
  });
});
