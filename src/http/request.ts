// The first middleware of every surface: a request id (X-Request-Id), the headers every answer
// carries (nosniff, HSTS on https), the error envelope for anything thrown below, and one
// structured log line per request.
import { randomUUID } from "node:crypto";
import type Koa from "koa";
import type { Logger } from "pino";
import { ApiError, errorEnvelope, toApiError } from "../errors.ts";
import { recordRequest, secondsSince } from "../observability/metrics.ts";
import { clientNetwork, socketAddress, type ClientIpResolver } from "./client-ip.ts";

export interface RequestState {
  requestId: string;
  /** Set once a credential is resolved, for the log line. */
  credentialId?: string;
  /** The client's address: the socket's, or as trusted proxies report it (TRUST_PROXY). */
  clientIp: string;
  /** What the request ran, for the log line and the metrics: a REST operationId or an MCP method (a bounded set). */
  operation?: string;
  /** The MCP tool a tools/call named, for the log line. */
  tool?: string;
  /** What per-IP budgets count, once one asked (clientNetworkOf). */
  clientNetwork?: string;
}

/**
 * What this request's per-IP budgets count: the IPv4 address or the IPv6 /64 of its client
 * (clientNetwork), worked out when a budget first asks; most requests count none.
 */
export function clientNetworkOf(ctx: Koa.Context): string {
  const state = ctx.state as RequestState;
  return (state.clientNetwork ??= clientNetwork(state.clientIp));
}

/**
 * Whether the client went away mid-request (it closed the connection while its body was being
 * read). Nothing can be answered; it is logged as aborted, not as a server failure.
 */
function clientAborted(ctx: Koa.Context, err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  if (ctx.req.destroyed && !ctx.req.complete) return true;
  // The client's own connection: a database connection reset mid-request throws the same code,
  // and that request is answered (SERVICE_BUSY), never left without an answer.
  return (code === "ECONNRESET" || code === "ECONNABORTED") && ctx.req.socket.destroyed;
}

/** Errors thrown by Koa or the router (http-errors) become catalog errors; the rest as toApiError says. */
function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const status = (err as { status?: number; expose?: boolean })?.status;
  if (status === 404) return new ApiError("RESOURCE_NOT_FOUND", "Nothing exists at this address.");
  if (status === 405) return new ApiError("METHOD_NOT_ALLOWED", "This route does not accept this method.");
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new ApiError("VALIDATION_FAILED", "The request could not be read.", { fields: { request: [(err as Error).message || "is malformed"] } });
  }
  return toApiError(err);
}

/**
 * The request target's path, or null when it cannot be parsed: Node accepts an absolute-form
 * target naming a malformed host (GET http://[::1/v1/ping), which Koa's ctx.path throws on.
 */
function pathOf(ctx: Koa.Context): string | null {
  try {
    return ctx.path;
  } catch {
    return null;
  }
}

/** The metrics label of a request no operation claimed: the route's pattern (a bounded set), never the raw path. */
function routeOf(ctx: Koa.Context): string {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof route === "string" ? route : "unmatched";
}

/** How much of an unparseable target the log line keeps. */
const LOGGED_TARGET_LENGTH = 200;

export interface RequestContextOptions {
  logger: Logger;
  docsUrl: string;
  surface: string;
  /** How to find the client's address (config.trustProxy); the socket's when omitted. */
  clientIp?: ClientIpResolver;
  /** The surface's public address: when it is https, every answer carries Strict-Transport-Security. */
  publicUrl?: string;
}

/** A year (RFC 6797): browsers that met the surface over https keep to https for that long. */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

export function requestContext(options: RequestContextOptions): Koa.Middleware {
  const clientIp = options.clientIp ?? socketAddress;
  // Read from the public address, not the connection: TLS ends at a proxy in front.
  const https = options.publicUrl !== undefined && new URL(options.publicUrl).protocol === "https:";
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const state = ctx.state as RequestState;
    state.requestId = randomUUID();
    state.clientIp = clientIp(ctx.req);
    let aborted = false;
    ctx.set("X-Request-Id", state.requestId);
    ctx.set("X-Content-Type-Options", "nosniff");
    if (https) ctx.set("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
    const path = pathOf(ctx);
    try {
      if (path === null) throw new ApiError("MALFORMED_REQUEST", "The request target could not be parsed as a URL.");
      await next();
    } catch (err) {
      if (clientAborted(ctx, err)) {
        aborted = true;
        ctx.respond = false;
        return;
      }
      const apiError = asApiError(err);
      if (apiError.code === "SERVICE_BUSY") options.logger.warn({ request_id: state.requestId, err }, "request gave up waiting");
      else if (apiError.status >= 500) options.logger.error({ request_id: state.requestId, err }, "request failed");
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
      ctx.status = apiError.status;
      ctx.type = "application/json";
      ctx.body = errorEnvelope(apiError, state.requestId, options.docsUrl);
    } finally {
      const status = aborted ? 499 : ctx.status;
      recordRequest(options.surface, state.operation ?? routeOf(ctx), status, secondsSince(started));
      options.logger.info({
        surface: options.surface,
        request_id: state.requestId,
        method: ctx.method,
        path: path ?? (ctx.url ?? "").slice(0, LOGGED_TARGET_LENGTH),
        // 499: nginx's "client closed request"; only in the log, nothing was answered.
        status,
        ...(aborted ? { aborted: true } : {}),
        ...(state.operation ? { operation: state.operation } : {}),
        ...(state.tool ? { tool: state.tool } : {}),
        duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        ...(state.credentialId ? { credential_id: state.credentialId } : {}),
      });
    }
  };
}
