// The Node HTTP server every listener of the process runs on: bounds on slow clients and on
// connections (Node's defaults let a client take 60 s to send its headers and 300 s its request,
// with no cap on connections), the parser's refusals in the error envelope, and a stop that lets
// the requests in flight finish while it turns every kept-alive connection away.
import { createServer, type Server } from "node:http";
import type Koa from "koa";
import type { Logger } from "pino";
import { answerParserErrorsInEnvelope } from "./parser-errors.ts";

export interface HttpLimits {
  /** A client has this long to send its request line and headers (HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** ... and its whole request, body included (HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** A kept-alive connection with no request is closed after this long (HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** Connections one listener holds at once; more are closed as they arrive (HTTP_MAX_CONNECTIONS). */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

/** How often Node checks the header and request timeouts (its default, 30 s, would let a 10 s bound run to 40 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export function createHttpServer(app: Koa, limits: HttpLimits, options: { docsUrl: string; logger: Logger }): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, limits.headersTimeoutMs),
    },
    app.callback(),
  );
  server.maxConnections = limits.maxConnections;
  answerParserErrorsInEnvelope(server, options);
  return server;
}

/**
 * Serves `app` on `server` from now on in place of the app it was created with (a starting
 * process's placeholder): requests already being answered finish with the app that took them.
 */
export function replaceApp(server: Server, app: Koa): void {
  server.removeAllListeners("request");
  server.on("request", app.callback());
}

/** Listens on host:port; resolves once listening, rejects with the listen error (EADDRINUSE, ...). */
export function listen(server: Server, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/** How often a stopping server closes the connections whose last answer has gone out. */
const IDLE_SWEEP_MS = 100;

/**
 * Stops taking connections and resolves once every connection has closed: requests in flight are
 * answered, kept-alive connections are closed as soon as they are idle (they would otherwise hold
 * the stop until their keep-alive timeout), and a request that still arrives on one is answered
 * with `Connection: close`.
 */
export function stopServer(server: Server): Promise<void> {
  server.prependListener("request", (_req, res) => res.setHeader("Connection", "close"));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweep.unref();
  server.closeIdleConnections();
  return closed.finally(() => clearInterval(sweep));
}
