// What Node's HTTP parser refuses before any middleware runs still gets the error envelope and an
// X-Request-Id; a client that hangs up mid-body is logged as an aborted request, not a failure.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { createTestCreator, type TestCreator } from "../helpers/fixtures.ts";

interface RawExchange {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Writes bytes on a fresh connection and reads until the server closes it. */
function exchange(url: string, bytes: string | Buffer): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()] as [string, string]));
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
  });
}

function assertEnvelope(res: RawExchange, status: number, code: string) {
  assert.equal(res.status, status, res.body);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const error = JSON.parse(res.body).error;
  assert.equal(error.code, code);
  assert.equal(error.request_id, res.headers.get("x-request-id"));
  assert.ok(error.docs_url.endsWith(`#${code.toLowerCase()}`));
}

describe("requests refused by the HTTP parser", () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  let api: RunningApi;
  let creator: TestCreator;
  before(async () => {
    api = await startApi({ logger: pino({ level: "info" }, sink) });
    creator = await createTestCreator();
  });
  after(() => api.close());

  it("answers raw non-ASCII in the request target with 400 MALFORMED_REQUEST", async () => {
    const res = await exchange(
      api.url,
      Buffer.concat([Buffer.from("GET /v1/tokens/"), Buffer.from([0xc3, 0xa9]), Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n")]),
    );
    assertEnvelope(res, 400, "MALFORMED_REQUEST");
  });

  it("answers bad framing with 400 MALFORMED_REQUEST", async () => {
    const res = await exchange(api.url, "POST /v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    assertEnvelope(res, 400, "MALFORMED_REQUEST");
    assertEnvelope(await exchange(api.url, "GET /v1/ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"), 400, "MALFORMED_REQUEST");
  });

  it("answers headers over 16 KB with 431 REQUEST_HEADERS_TOO_LARGE", async () => {
    const res = await exchange(api.url, `GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Filler: ${"a".repeat(20_000)}\r\n\r\n`);
    assertEnvelope(res, 431, "REQUEST_HEADERS_TOO_LARGE");
  });

  it("logs a client that hangs up mid-body as an aborted request, not a server error", async () => {
    const { hostname, port } = new URL(api.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          "POST /v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n" +
            `Authorization: Bearer ${creator.token}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n\r\n{"name":`,
          () => setTimeout(() => socket.destroy(), 50),
        );
      });
      socket.on("close", () => resolve());
      socket.on("error", reject);
    });
    const deadline = Date.now() + 5000;
    let line: Record<string, unknown> | undefined;
    while (!(line = lines.find((l) => l.path === "/v1/tokens" && l.method === "POST")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(line, "the request was logged");
    assert.equal(line.status, 499);
    assert.equal(line.aborted, true);
    assert.equal(line.level, 30, "logged at info");
    assert.ok(!lines.some((l) => (l.level as number) >= 50), "no error line");
  });
});
