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
  ACCESS_CODE_INVALID: "DomainError",
  ACCESS_CODE_EXPIRED: "DomainError",
  ACCESS_CODE_ALREADY_REDEEMED: "DomainError",
  ACCESS_CODE_CAP_EXCEEDED: "DomainError",
  IDEMPOTENCY_KEY_MISSING: "IdempotencyError",
  IDEMPOTENCY_KEY_REUSED: "IdempotencyError",
  IDEMPOTENCY_REPLAY_IN_PROGRESS: "IdempotencyError",
  RATE_LIMITED: "RateLimitError",
  WEBHOOK_ENDPOINT_UNREACHABLE: "UpstreamError",
  INTERNAL_SERVER_ERROR: "InternalServerError",
} as const satisfies Record<ErrorCode, ErrorFamily>;

/** The HTTP statuses a family's codes answer with. */
export const FAMILY_STATUSES: Record<ErrorFamily, readonly number[]> = {
  ValidationError: [422],
  AuthenticationError: [401],
  PermissionError: [403],
  NotFoundError: [404],
  MethodNotAllowedError: [405],
  DomainError: [400],
  IdempotencyError: [400, 409, 425],
  RateLimitError: [429],
  UpstreamError: [502],
  InternalServerError: [500],
};

/** For a code this SDK version does not know (the API may add codes within /v1): the family of its status. */
const FAMILY_BY_STATUS: Record<number, ErrorFamily> = {
  400: "DomainError",
  401: "AuthenticationError",
  403: "PermissionError",
  404: "NotFoundError",
  405: "MethodNotAllowedError",
  409: "IdempotencyError",
  422: "ValidationError",
  425: "IdempotencyError",
  429: "RateLimitError",
};

/** null: no family fits; the error is thrown as the base SubBridgeError. */
export function errorFamilyOf(code: string, status: number): ErrorFamily | null {
  if (Object.hasOwn(ERROR_FAMILY_BY_CODE, code)) return ERROR_FAMILY_BY_CODE[code as ErrorCode];
  if (status >= 500) return "InternalServerError";
  return FAMILY_BY_STATUS[status] ?? null;
}
