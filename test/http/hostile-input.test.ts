// Nothing a client can send produces a 500: every odd request gets a 4xx error envelope.
import assert from "node:assert/strict";
import { request } from "node:http";
import { useApiWithCreator } from "../helpers/suite.ts";
import { testDatabase } from "../helpers/backends.ts";
import { ENVELOPE_META, startMcp, type RunningMcp } from "../helpers/mcp.ts";
import { MCP_PROTOCOL_VERSION } from "../../src/apps/mcp/mcp-server.ts";
import {
  ITEMS_MESSAGE,
  MAX_INPUT_DEPTH,
  MAX_INPUT_ITEMS,
  NESTING_MESSAGE,
  NON_FINITE_MESSAGE,
  SURROGATE_MESSAGE,
} from "../../src/pipeline/input-safety.ts";

export interface RawResponse {
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
    ["unknown method", () => ["PROPFIND", "/v1/tokens", auth()]],
    ["path traversal", () => ["GET", "/v1/../../etc/passwd", auth()]],
  ];

  /** Requests a server may accept (unknown query keys are ignored). */
  const acceptable = new Set(["bracketed query keys"]);

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

  it("answers OPTIONS as a CORS preflight (204, no body) on any path, never a 500", async () => {
    for (const path of ["/v1/tokens", "/v1/nothing-here", "/v1/../../etc/passwd"]) {
      const res = await raw(suite.api.url, "OPTIONS", path, {});
      assert.equal(res.status, 204, path);
      assert.equal(res.body, "");
    }
  });

  it("answers HEAD on a read like GET, without a body", async () => {
    const res = await raw(suite.api.url, "HEAD", "/v1/teams/current", auth());
    assert.equal(res.status, 200);
    assert.equal(res.body, "");
  });

  describe("regressions: each answered 500 or read without bound before", () => {
    const token = (body: string | Buffer, headers: Record<string, string> = {}) =>
      raw(suite.api.url, "POST", "/v1/tokens", { ...write(), ...headers }, body);
    const fieldsOf = (res: RawResponse) => {
      assert.equal(res.status, 422, res.body.slice(0, 300));
      return JSON.parse(res.body).error.fields as Record<string, string[]>;
    };
    const countTokens = async () => Number((await (await testDatabase()).db("personal_access_tokens").count({ n: "*" }).first())!.n);

    for (const key of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      it(`names a body key called ${key} as unknown`, async () => {
        const fields = fieldsOf(await token(`{"name":"x","abilities":["team:view"],${JSON.stringify(key)}:1}`));
        assert.deepEqual(fields, { [key]: ["is not a known field"] });
      });
    }

    it(`refuses a body nesting deeper than ${MAX_INPUT_DEPTH} levels, at the root or inside a field`, async () => {
      const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
      assert.deepEqual(fieldsOf(await token(deep(10_000))), { body: [NESTING_MESSAGE] });
      assert.deepEqual(fieldsOf(await token(`{"name":"x","abilities":${deep(10_000)}}`)), { body: [NESTING_MESSAGE] });
      // At the limit the schema decides (an array of arrays is not a list of abilities).
      assert.ok(fieldsOf(await token(`{"name":"x","abilities":${deep(MAX_INPUT_DEPTH - 1)}}`))["abilities.0"]);
    });

    it(`refuses an array of more than ${MAX_INPUT_ITEMS} items before validating its items, naming its field`, async () => {
      const before = await countTokens();
      const items = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `item-${i}`));
      // Every item is wrong: validated one by one, each would add its own message (and the work grows with n squared).
      assert.deepEqual(fieldsOf(await token(`{"name":"x","abilities":${items(50_000)}}`)), { abilities: [ITEMS_MESSAGE] });
      assert.deepEqual(fieldsOf(await token(items(MAX_INPUT_ITEMS + 1))), { body: [ITEMS_MESSAGE] });
      assert.deepEqual(fieldsOf(await token(`{"name":"x","abilities":["team:view"],"extra":{"list":${items(MAX_INPUT_ITEMS + 1)}}}`)), {
        "extra.list": [ITEMS_MESSAGE],
      });
      // At the limit the schema decides: its own maxItems, and a message per wrong item.
      const atLimit = fieldsOf(await token(`{"name":"x","abilities":${items(MAX_INPUT_ITEMS)}}`));
      assert.deepEqual(atLimit.abilities, ["must have at most 200 items"]);
      assert.ok(atLimit["abilities.999"]);
      assert.equal(await countTokens(), before, "nothing was written");
    });

    it("names a string holding an unpaired UTF-16 surrogate, in a value or a key", async () => {
      const before = await countTokens();
      assert.deepEqual(fieldsOf(await token('{"name":"a\\ud800b","abilities":["team:view"]}')), { name: [SURROGATE_MESSAGE] });
      assert.deepEqual(fieldsOf(await token('{"name":"\\udfff","abilities":["team:view"]}')), { name: [SURROGATE_MESSAGE] });
      const key = fieldsOf(await token('{"name":"x","abilities":["team:view"],"k\\ud800":1}'));
      assert.deepEqual(Object.values(key).flat().sort(), ["is not a known field", `key ${SURROGATE_MESSAGE}`].sort());
      assert.equal(await countTokens(), before, "nothing was written");
    });

    it("refuses a body that is not valid UTF-8 instead of repairing it", async () => {
      const before = await countTokens();
      for (const bytes of [
        [0xff, 0xfe],
        [0xc0, 0xaf],
        [0xe2, 0x82],
        [0xed, 0xa0, 0x80],
      ]) {
        const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('","abilities":["team:view"]}')]);
        assert.deepEqual(fieldsOf(await token(body)), { body: ["is not valid UTF-8"] }, `bytes ${bytes.map((b) => b.toString(16))}`);
      }
      assert.equal(await countTokens(), before, "nothing was written");
    });

    for (const [query, field] of [
      ["per_page=-Infinity", "per_page"],
      ["per_page=Infinity", "per_page"],
      ["per_page=1e309", "per_page"],
      ["per_page=-1e309", "per_page"],
      ["limit=-Infinity", "per_page"],
      ["page=-Infinity", "page"],
      ["page=Infinity", "page"],
      ["page=NaN", "page"],
    ] as const) {
      it(`refuses ${query} on a list (422 naming ${field}), never an unbounded page`, async () => {
        const fields = fieldsOf(await raw(suite.api.url, "GET", `/v1/tokens?${query}`, auth()));
        assert.ok(fields[field], JSON.stringify(fields));
      });
    }

    for (const limit of ["Infinity", "-Infinity", "1e309", "NaN"]) {
      it(`refuses limit=${limit} on the activity log`, async () => {
        const path = `/v1/activity?subject_type=team&subject_id=${suite.creator.teamId}&limit=${limit}`;
        const fields = fieldsOf(await raw(suite.api.url, "GET", path, auth()));
        assert.ok(fields.limit, JSON.stringify(fields));
        if (limit.endsWith("Infinity") || limit === "1e309") assert.ok(fields.limit!.includes(NON_FINITE_MESSAGE));
      });
    }

    it("keeps a clamped page finite: per_page=1e20 answers 100 rows at most with finite links", async () => {
      const res = await raw(suite.api.url, "GET", "/v1/tokens?per_page=1e20&page=1e20", auth());
      assert.equal(res.status, 200);
      const body = JSON.parse(res.body);
      assert.equal(body.meta.per_page, 100);
      assert.ok(!/Infinity|NaN|e\+/.test(JSON.stringify(body.links)), JSON.stringify(body.links));
    });

    it("ignores query parameters an operation does not declare, whatever they hold", async () => {
      for (const query of ["%00=1", "__proto__=1", "x=%FF", "%ED%A0%80=2"]) {
        const res = await raw(suite.api.url, "GET", `/v1/teams/current?${query}`, auth());
        assert.equal(res.status, 200, `${query}: ${res.body.slice(0, 200)}`);
      }
    });

    it("refuses a declared query value whose percent-encoding is not UTF-8 instead of repairing it", async () => {
      for (const value of ["%FF", "%ED%A0%80", "%C0%AF"]) {
        const fields = fieldsOf(await raw(suite.api.url, "GET", `/v1/tokens?sort_by=${value}`, auth()));
        assert.deepEqual(fields, { sort_by: ["is not valid UTF-8 once percent-decoded"] });
      }
    });

    it("reads a body sent to an operation that takes none only for its size, never parsing it", async () => {
      const headers = { ...write(), "content-type": "text/plain", "content-length": "5" };
      const res = await raw(suite.api.url, "DELETE", "/v1/tokens/999999999", headers, "hello");
      assert.equal(res.status, 404, res.body.slice(0, 200));
    });

    it("refuses a JSON body declared in another charset", async () => {
      for (const charset of ["latin1", "utf-16", "ISO-8859-1"]) {
        const fields = fieldsOf(await token('{"name":"x","abilities":["team:view"]}', { "content-type": `application/json; charset=${charset}` }));
        assert.deepEqual(fields, { body: [`must be UTF-8 JSON (charset=${charset.toLowerCase()} is not accepted)`] });
      }
      const utf8 = await token('{"name":"x","abilities":["team:view"]}', { "content-type": "application/json; charset=UTF-8" });
      assert.equal(utf8.status, 201);
    });

    it("answers a request target naming a malformed host with 400 MALFORMED_REQUEST in the envelope, on every surface", async () => {
      for (const target of ["http://[::1/v1/ping", "http://[::1/v1/tokens", "http://[/"]) {
        const res = await raw(suite.api.url, "GET", target, auth());
        assert.equal(res.status, 400, `${target}: ${res.body.slice(0, 200)}`);
        assert.equal(JSON.parse(res.body).error.code, "MALFORMED_REQUEST");
      }
      const mcp = await startMcp();
      try {
        const res = await raw(mcp.url, "GET", "http://[::1/up", {});
        assert.equal(res.status, 400, res.body.slice(0, 200));
        assert.equal(JSON.parse(res.body).error.code, "MALFORMED_REQUEST");
      } finally {
        await mcp.close();
      }
    });

    it("answers an absolute-form request line on the MCP endpoint as the same call on its own address", async () => {
      const mcp: RunningMcp = await startMcp();
      try {
        const res = await raw(
          mcp.url,
          "POST",
          "http://evil.example/",
          {
            ...auth(),
            host: new URL(mcp.url).host,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": MCP_PROTOCOL_VERSION,
            "mcp-method": "tools/list",
          },
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE_META } }),
        );
        assert.equal(res.status, 200, res.body.slice(0, 300));
        assert.ok(Array.isArray(JSON.parse(res.body).result.tools));
      } finally {
        await mcp.close();
      }
    });

    it("answers an absolute-form request line on the configured base URL, never the named host", async () => {
      const res = await raw(suite.api.url, "GET", "http://evil.example/v1/tokens?per_page=1", auth());
      assert.equal(res.status, 200, res.body.slice(0, 300));
      const { links } = JSON.parse(res.body);
      for (const link of [links.first, links.last]) assert.ok(link.startsWith(`${suite.api.url}/v1/tokens?`), link);
    });
  });
});
