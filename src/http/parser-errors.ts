// Node's HTTP parser refuses some requests before any middleware runs: bad framing, raw non-ASCII
// in the request target, headers over the 16 KB limit, a client too slow to send its request.
// By default Node answers those with a bare status line; here they get the error envelope and an
// X-Request-Id like every other answer, and a log line.
import { randomUUID } from "node:crypto";
import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { ApiError, errorEnvelope } from "../errors.ts";

interface ParserError extends Error {
  code?: string;
  /** llhttp's own words for what was wrong ("Invalid header value char", ...). */
  reason?: string;
}

function asApiError(err: ParserError): ApiError {
  if (err.code === "HPE_HEADER_OVERFLOW") return new ApiError("REQUEST_HEADERS_TOO_LARGE", "The request line and headers exceed 16 KB.");
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return new ApiError("REQUEST_TIMEOUT", "The request was not received in time.");
  const detail = err.reason ?? err.code ?? "unreadable request";
  return new ApiError("MALFORMED_REQUEST", `The request could not be parsed as HTTP/1.1: ${detail}.`);
}

export function answerParserErrorsInEnvelope(server: Server, options: { docsUrl: string; logger: Logger }): void {
  server.on("clientError", (err: ParserError, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // A reset connection, or one already answering a previous request, cannot take an answer.
    if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const apiError = asApiError(err);
    const requestId = randomUUID();
    const body = JSON.stringify(errorEnvelope(apiError, requestId, options.docsUrl));
    socket.end(
      [
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
        "Content-Type: application/json; charset=utf-8",
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${requestId}`,
        "X-Content-Type-Options: nosniff",
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
    options.logger.info({ request_id: requestId, status: apiError.status, reason: err.code }, "request refused by the HTTP parser");
  });
}
