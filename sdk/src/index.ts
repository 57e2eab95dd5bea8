// @subbridge/sdk: a typed client for the SubBridge REST API, its errors, and webhook verification.
// Connector manifest validation lives in @subbridge/sdk/connector.
export { createClient, type ClientOptions, type SubBridgeClient } from "./client.js";
export type { ClientPaths, ListEnvelope, ListItem, ListPage, ListPath, PerCallOptions, ResponseData } from "./client-types.js";
export type { components, operations, paths } from "./generated/openapi.js";
export {
  AbortedError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  DomainError,
  IdempotencyError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  SubBridgeError,
  TimeoutError,
  UpstreamError,
  ValidationError,
  type ClientErrorCode,
  type ErrorBody,
  type ErrorCode,
  type SubBridgeErrorCode,
} from "./errors.js";
export { ERROR_FAMILY_BY_CODE, type ErrorFamily } from "./error-families.js";
export { createRetryingFetch, type Fetch, type RetryOptions } from "./retrying-fetch.js";
export {
  createMemoryDeduplicator,
  isWebhookEventType,
  signWebhookPayload,
  verifyWebhook,
  WEBHOOK_EVENT_TYPES,
  WebhookVerificationError,
  type MemoryDeduplicator,
  type MemoryDeduplicatorOptions,
  type UnknownWebhookEvent,
  fetchSigningKeyDirectory,
  verifyWebhookMessageSignature,
  MESSAGE_SIGNATURE_TAG,
  SIGNING_KEY_DIRECTORY_PATH,
  type DirectoryKey,
  type FetchSigningKeyDirectoryOptions,
  type MessageSignatureRequest,
  type SigningKeyDirectory,
  type VerifiedMessageSignature,
  type VerifyMessageSignatureOptions,
  type VerifyWebhookOptions,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventSchemas,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookVerificationFailure,
} from "./webhooks.js";
