// The HTTP server every listener runs on (src/http/server.ts): a client that sends its request
// too slowly is cut off (Node's defaults let it hold the connection for up to 300 s), connections
// past the cap are closed as they arrive, and a stop answers the requests in flight while it
// closes kept-alive connections and takes no new one.
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { connect, type Socket } from "node:net";
import Koa from "koa";
import { createHttpServer, DEFAULT_HTTP_LIMITS, listen, stopServer, type HttpLimits } from "../../src/http/server.ts";
import { DOCS_URL, testLogger } from "../helpers/server.ts";

const REQUEST = "GET / HTTP/1.1\r\nHost: limits.test\r\n\r\n";

interface RawConnection {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

function open(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(port, "127.0.0.1");
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    const closed = new Promise<void>((done) => socket.on("close", () => done()));
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.on("error", () => undefined);
      resolve({ socket, received: () => received, closed });
    });
  });
}

/** Resolves once the connection has received an HTTP answer (or closed). */
async function answered(connection: RawConnection): Promise<string> {
  while (!/\r\n\r\n/.test(connection.received())) {
    const more = await Promise.race([
      new Promise<boolean>((r) => connection.socket.once("data", () => r(true))),
      connection.closed.then(() => false),
    ]);
    if (!more) break;
  }
  return connection.received();
}

describe("HTTP server limits", function () {
  this.timeout(60_000);
  let server: Server | null = null;
  let port: number;
  let release: (() => void) | null = null;

  async function start(limits: Partial<HttpLimits>, app?: Koa) {
    const koa = app ?? new Koa().use((ctx) => (ctx.body = { ok: true }));
    server = createHttpServer(koa, { ...DEFAULT_HTTP_LIMITS, ...limits }, { docsUrl: DOCS_URL, logger: testLogger });
    await listen(server, 0, "127.0.0.1");
    port = (server.address() as { port: number }).port;
    return server;
  }
  afterEach(async () => {
    release?.();
    if (!server) return;
    server.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = null;
  });

  it("defaults to bounds a slow client cannot stretch to minutes", () => {
    assert.ok(DEFAULT_HTTP_LIMITS.headersTimeoutMs <= 10_000);
    assert.ok(DEFAULT_HTTP_LIMITS.requestTimeoutMs <= 30_000);
    assert.ok(DEFAULT_HTTP_LIMITS.maxConnections > 0 && Number.isFinite(DEFAULT_HTTP_LIMITS.maxConnections));
  });

  it("cuts off a client that sends its headers slowly, answering 408 REQUEST_TIMEOUT in the envelope", async () => {
    await start({ headersTimeoutMs: 500, requestTimeoutMs: 500 });
    const slow = await open(port);
    slow.socket.write("GET / HTTP/1.1\r\nHost: limits.test\r\nX-Slow: ");
    // One byte of a header value every 50 ms: the client is never idle, only slow.
    const trickle = setInterval(() => slow.socket.writable && slow.socket.write("a"), 50);
    try {
      await slow.closed;
    } finally {
      clearInterval(trickle);
    }
    assert.match(slow.received(), /^HTTP\/1\.1 408 /);
    assert.match(slow.received(), /"code":"REQUEST_TIMEOUT"/);
  });

  it("closes connections past the cap as they arrive, and serves again once one has closed", async () => {
    await start({ maxConnections: 2, keepAliveTimeoutMs: 30_000 });
    const held = [await open(port), await open(port)];
    for (const c of held) {
      c.socket.write(REQUEST);
      assert.match(await answered(c), /^HTTP\/1\.1 200 /, "kept alive after its answer");
    }
    const extra = await open(port);
    extra.socket.write(REQUEST);
    await extra.closed;
    assert.equal(extra.received(), "", "the connection past the cap is closed unanswered");
    held[0]!.socket.destroy();
    await held[0]!.closed;
    // The server counts the closed connection out as it sees it close: ask until it has.
    let again = "";
    for (let attempt = 0; attempt < 100 && !again.startsWith("HTTP/1.1 200"); attempt++) {
      const next = await open(port);
      next.socket.write(REQUEST);
      again = await answered(next);
      next.socket.destroy();
    }
    assert.match(again, /^HTTP\/1\.1 200 /);
  });

  it("on stop answers the request in flight then closes its connection, closes idle kept-alive connections and refuses new ones", async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    const app = new Koa().use(async (ctx) => {
      if (ctx.path === "/slow") {
        arrived();
        await new Promise<void>((r) => (release = r));
      }
      ctx.body = { path: ctx.path };
    });
    await start({ keepAliveTimeoutMs: 30_000 }, app);
    const idle = await open(port);
    idle.socket.write(REQUEST);
    await answered(idle);
    const busy = await open(port);
    busy.socket.write("GET /slow HTTP/1.1\r\nHost: limits.test\r\n\r\n");
    await inFlight;

    const stopped = stopServer(server!);
    await idle.closed;
    await assert.rejects(open(port), /ECONNREFUSED/);
    release!();
    const answer = await answered(busy);
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /"path":"\/slow"/);
    await busy.closed;
    await stopped;
  });
});
