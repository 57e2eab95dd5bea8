// Which error class each API error code is thrown as. `satisfies Record<ErrorCode, ...>` makes the
// SDK fail to compile when the spec gains a code that is not placed here, and
// test/sdk/error-families.test.ts checks every code's status (generated/error-codes.json) against
// the statuses its family may carry.
import type { components } from "./generated/openapi.js";

/** Every error code of the API (spec/errors.yaml). */
export type ErrorCode = components["schemas"]["ErrorCode"];

export type ErrorFamily =
  | "ValidationError"
  | "AuthenticationError"
  | "PermissionError"
  | "NotFoundError"
  | "MethodNotAllowedError"
  | "DomainError"
  | "IdempotencyError"
  | "RateLimitError"
  | "UpstreamError"
  | "BadRequestError"
  | "InternalServerError";

export const ERROR_FAMILY_BY_CODE = {
  VALIDATION_FAILED: "ValidationError",
  CONNECTOR_UNAVAILABLE: "ValidationError",
  AUTHENTICATION_REQUIRED: "AuthenticationError",
  TOKEN_MISSING_ABILITY: "PermissionError",
  FORBIDDEN: "PermissionError",
  TEAM_TIER_REQUIRED: "PermissionError",
  CONNECTOR_TIER_REQUIRED: "PermissionError",
  TENANT_MISMATCH: "NotFoundError",
  RESOURCE_NOT_FOUND: "NotFoundError",
  CONNECTOR_NOT_INSTALLED: "NotFoundError",
  METHOD_NOT_ALLOWED: "MethodNotAllowedError",
  PLAN_CURRENCY_MISMATCH: "DomainError",
  PLAN_PROVIDER_UNSUPPORTED: "DomainError",
  PAYMENT_METHOD_NOT_CONFIGURED: "DomainError",
  SUBSCRIPTION_ALREADY_ACTIVE: "DomainError",
  SUBSCRIPTION_PROVIDER_BILLED: "DomainError",
  ACCESS_CODE_INVALID: "DomainError",
  ACCESS_CODE_EXPIRED: "DomainError",
  ACCESS_CODE_ALREADY_REDEEMED: "DomainError",
  ACCESS_CODE_CAP_EXCEEDED: "DomainError",
  WEBHOOK_DELIVERY_IN_PROGRESS: "DomainError",
  PASS_WINDOW_FULL: "DomainError",
  IDEMPOTENCY_KEY_MISSING: "IdempotencyError",
  IDEMPOTENCY_KEY_REUSED: "IdempotencyError",
  IDEMPOTENCY_REPLAY_IN_PROGRESS: "IdempotencyError",
  RATE_LIMITED: "RateLimitError",
  WEBHOOK_ENDPOINT_UNREACHABLE: "UpstreamError",
  MALFORMED_REQUEST: "BadRequestError",
  PROVIDER_SIGNATURE_INVALID: "BadRequestError",
  REQUEST_HEADERS_TOO_LARGE: "BadRequestError",
  REQUEST_TIMEOUT: "BadRequestError",
  // A server-side condition like INTERNAL_SERVER_ERROR, but transient: the retrying fetch retries it.
  SERVICE_BUSY: "InternalServerError",
  INTERNAL_SERVER_ERROR: "InternalServerError",
} as const satisfies Record<ErrorCode, ErrorFamily>;

/** The HTTP statuses a family's codes answer with. */
export const FAMILY_STATUSES: Record<ErrorFamily, readonly number[]> = {
  ValidationError: [422],
  AuthenticationError: [401],
  PermissionError: [403],
  NotFoundError: [404],
  MethodNotAllowedError: [405],
  DomainError: [400, 409],
  IdempotencyError: [400, 409, 425],
  RateLimitError: [429],
  UpstreamError: [502],
  BadRequestError: [400, 408, 431],
  InternalServerError: [500, 503],
};

/** For a code this SDK version does not know (the API may add codes within /v1): the family of its status. */
const FAMILY_BY_STATUS: Record<number, ErrorFamily> = {
  400: "DomainError",
  401: "AuthenticationError",
  403: "PermissionError",
  404: "NotFoundError",
  405: "MethodNotAllowedError",
  408: "BadRequestError",
  409: "IdempotencyError",
  422: "ValidationError",
  425: "IdempotencyError",
  429: "RateLimitError",
  431: "BadRequestError",
};

/** null: no family fits; the error is thrown as the base SubBridgeError. */
export function errorFamilyOf(code: string, status: number): ErrorFamily | null {
  if (Object.hasOwn(ERROR_FAMILY_BY_CODE, code)) return ERROR_FAMILY_BY_CODE[code as ErrorCode];
  if (status >= 500) return "InternalServerError";
  return FAMILY_BY_STATUS[status] ?? null;
}

/**
 * The codes the client gives its own errors, when no response was received. `satisfies` makes
 * the SDK fail to compile if the API's catalog ever gains one of them (the API's 408 is
 * REQUEST_TIMEOUT: a timeout of the client is RESPONSE_TIMEOUT, so a code names one thing).
 */
export const CLIENT_ERROR_CLASS_BY_CODE = {
  CONNECTION_ERROR: "ConnectionError",
  RESPONSE_TIMEOUT: "TimeoutError",
  REQUEST_ABORTED: "AbortedError",
} as const satisfies Record<string, string> & { [Code in ErrorCode]?: never };

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CLASS_BY_CODE;
