// The errors the client throws: one class per family of API error codes (see error-families.ts),
// all subclasses of SubBridgeError, plus the client's own when no response arrived at all:
// ConnectionError (and its TimeoutError) and AbortedError.
import type { components } from "./generated/openapi.js";
import { errorFamilyOf, type ClientErrorCode, type ErrorCode, type ErrorFamily } from "./error-families.js";

export type { ClientErrorCode, ErrorCode } from "./error-families.js";

/** The `error` object of the API's error envelope. */
export type ErrorBody = components["schemas"]["Error"]["error"];

/**
 * A code of the API's catalog, or one this SDK version does not know yet (codes may be added
 * within /v1), or HTTP_<status> when the response carried no error envelope (a proxy's page), or
 * the client's own code when no response arrived (CONNECTION_ERROR, RESPONSE_TIMEOUT, REQUEST_ABORTED).
 */
export type SubBridgeErrorCode = ErrorCode | ClientErrorCode | (string & {});

export interface SubBridgeErrorInit {
  code: SubBridgeErrorCode;
  status: number;
  message: string;
  requestId?: string | null;
  fields?: Record<string, string[]>;
  context?: Record<string, unknown>;
  docsUrl?: string | null;
  remediation?: string | null;
  headers?: Headers | null;
  cause?: unknown;
}

export class SubBridgeError extends Error {
  override name = "SubBridgeError";
  /** Match on this; the message may change. */
  readonly code: SubBridgeErrorCode;
  /** HTTP status; 0 when no response arrived (ConnectionError, TimeoutError, AbortedError). */
  readonly status: number;
  /** Quote it when reporting a problem; equals the X-Request-Id response header. */
  readonly requestId: string | null;
  /** VALIDATION_FAILED only: each offending field (dotted for nested body fields) and its messages. */
  readonly fields: Record<string, string[]> | undefined;
  /** Extra facts, e.g. required_ability for TOKEN_MISSING_ABILITY. */
  readonly context: Record<string, unknown> | undefined;
  readonly docsUrl: string | null;
  /** What to do next, from the API. */
  readonly remediation: string | null;
  /** The response headers (Retry-After, Allow, X-Request-Id, ...); null without a response. */
  readonly headers: Headers | null;

  constructor(init: SubBridgeErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.fields = init.fields;
    this.context = init.context;
    this.docsUrl = init.docsUrl ?? null;
    this.remediation = init.remediation ?? null;
    this.headers = init.headers ?? null;
  }
}

/** 422 VALIDATION_FAILED (see `fields`) and CONNECTOR_UNAVAILABLE. */
export class ValidationError extends SubBridgeError {
  override name = "ValidationError";
}

/** 401 AUTHENTICATION_REQUIRED: no token, or a malformed, deleted or expired one. */
export class AuthenticationError extends SubBridgeError {
  override name = "AuthenticationError";
}

/** 403 TOKEN_MISSING_ABILITY, FORBIDDEN, TEAM_TIER_REQUIRED, CONNECTOR_TIER_REQUIRED. */
export class PermissionError extends SubBridgeError {
  override name = "PermissionError";
  /** TOKEN_MISSING_ABILITY: the ability the token lacks (error.context.required_ability). */
  get requiredAbility(): string | undefined {
    const ability = this.context?.required_ability;
    return typeof ability === "string" ? ability : undefined;
  }
}

/** 404 RESOURCE_NOT_FOUND, TENANT_MISMATCH, CONNECTOR_NOT_INSTALLED. */
export class NotFoundError extends SubBridgeError {
  override name = "NotFoundError";
}

/** 405 METHOD_NOT_ALLOWED; the Allow header lists the accepted methods. */
export class MethodNotAllowedError extends SubBridgeError {
  override name = "MethodNotAllowedError";
}

/** 400 refusals by a business rule: PLAN_*, ACCESS_CODE_*, SUBSCRIPTION_ALREADY_ACTIVE, PAYMENT_METHOD_NOT_CONFIGURED. */
export class DomainError extends SubBridgeError {
  override name = "DomainError";
}

/** 400 IDEMPOTENCY_KEY_MISSING, 409 IDEMPOTENCY_KEY_REUSED, 425 IDEMPOTENCY_REPLAY_IN_PROGRESS. */
export class IdempotencyError extends SubBridgeError {
  override name = "IdempotencyError";
}

/** 429 RATE_LIMITED. */
export class RateLimitError extends SubBridgeError {
  override name = "RateLimitError";
  /** Seconds to wait before trying again (Retry-After), when the API said. */
  get retryAfter(): number | null {
    return retryAfterSeconds(this.headers?.get("retry-after") ?? null);
  }
}

/** 502 WEBHOOK_ENDPOINT_UNREACHABLE: a target the API called could not be reached. */
export class UpstreamError extends SubBridgeError {
  override name = "UpstreamError";
}

/**
 * 400 MALFORMED_REQUEST, 408 REQUEST_TIMEOUT, 431 REQUEST_HEADERS_TOO_LARGE: the server could not
 * read the HTTP request itself, so no route ran and nothing changed. A 408 (the request arrived too
 * slowly) is retried when the request is safe to repeat.
 */
export class BadRequestError extends SubBridgeError {
  override name = "BadRequestError";
}

/** 500 INTERNAL_SERVER_ERROR and any other 5xx; quote requestId when reporting it. */
export class InternalServerError extends SubBridgeError {
  override name = "InternalServerError";
}

/** No response arrived (DNS, refused or reset connection, TLS, or a timeout) after every retry. */
export class ConnectionError extends SubBridgeError {
  override name = "ConnectionError";
  /** `as` lets a subclass name its own kind of missing response. */
  constructor(cause: unknown, as?: { code: ClientErrorCode; message: string }) {
    super({
      code: as?.code ?? "CONNECTION_ERROR",
      status: 0,
      message: as?.message ?? `Could not reach the SubBridge API: ${reasonOf(cause)}`,
      cause,
    });
  }
}

/**
 * The last attempt got no response within `timeoutMs`. A ConnectionError: a timeout is one way of
 * getting no response, and is retried like the others. `cause` is the DOMException
 * ("TimeoutError") that aborted that attempt.
 */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
  /** The time one attempt was allowed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number, cause: unknown) {
    super(cause, { code: "RESPONSE_TIMEOUT", message: `The SubBridge API did not answer within ${timeoutMs} ms` });
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The caller's `signal` aborted the request: before it was sent, while waiting for the answer or
 * its body, or between retries. Never retried. Not a ConnectionError: nothing went wrong with the
 * API or the network. `cause` is the signal's reason.
 */
export class AbortedError extends SubBridgeError {
  override name = "AbortedError";
  constructor(reason: unknown) {
    super({ code: "REQUEST_ABORTED", status: 0, message: `The request to the SubBridge API was aborted: ${reasonOf(reason)}`, cause: reason });
  }
}

function reasonOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

const FAMILY_CLASSES: Record<ErrorFamily, new (init: SubBridgeErrorInit) => SubBridgeError> = {
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  MethodNotAllowedError,
  DomainError,
  IdempotencyError,
  RateLimitError,
  UpstreamError,
  BadRequestError,
  InternalServerError,
};

/** Retry-After as seconds: a number of seconds, or an HTTP date (relative to `now`). */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" && value !== null && typeof (value as ErrorBody).code === "string" && typeof (value as ErrorBody).message === "string"
  );
}

/** The typed error for a failed response; `body` is the parsed JSON body, if any. */
export function errorFromResponse(response: Response, body: unknown): SubBridgeError {
  const envelope = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  const error = isErrorBody(envelope) ? envelope : null;
  const code = error?.code ?? `HTTP_${response.status}`;
  const family = errorFamilyOf(code, response.status);
  const ErrorClass = family === null ? SubBridgeError : FAMILY_CLASSES[family];
  return new ErrorClass({
    code,
    status: response.status,
    message: error?.message ?? `The SubBridge API answered ${response.status} ${response.statusText}`.trim(),
    requestId: error?.request_id ?? response.headers.get("x-request-id"),
    ...(error?.fields ? { fields: error.fields } : {}),
    ...(error?.context ? { context: error.context } : {}),
    docsUrl: error?.docs_url ?? null,
    remediation: error?.remediation ?? null,
    headers: response.headers,
  });
}
