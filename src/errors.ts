// The one error type domain and platform code throws. Its status comes from the error catalog
// (spec/errors.yaml), never from the call site; the HTTP and MCP layers render it once.
import { errorCatalog, type ErrorCode } from "../generated/catalog.ts";
import { isDatabaseTimeout } from "./db/timeouts.ts";
import { isDatabaseUnreachable } from "./db/outage.ts";
import { KvUnavailableError } from "./kv/kv.ts";

export type FieldErrors = Record<string, string[]>;

/**
 * An empty field-error map. Keys are whatever a client sent (a body key may be `__proto__` or
 * `constructor`), so the map has no prototype: a key never resolves to an inherited member.
 */
export function emptyFieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

/** Adds messages to a field, once each. */
export function addFieldError(fields: FieldErrors, key: string, ...messages: string[]): void {
  const list = Object.hasOwn(fields, key) ? fields[key]! : (fields[key] = []);
  for (const m of messages) if (!list.includes(m)) list.push(m);
}

/** Every field and message of `source` added to `target`. */
export function mergeFieldErrors(target: FieldErrors, source: FieldErrors): FieldErrors {
  for (const [key, messages] of Object.entries(source)) addFieldError(target, key, ...messages);
  return target;
}

export interface ApiErrorOptions {
  fields?: FieldErrors;
  context?: Record<string, unknown>;
  /** Overrides the catalog's remediation when the situation allows a more precise one. */
  remediation?: string;
  /** Response headers that belong to this error (Allow, Retry-After, ...). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields?: FieldErrors;
  readonly context?: Record<string, unknown>;
  readonly remediation: string;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = errorCatalog[code].status;
    if (options.fields) this.fields = options.fields;
    if (options.context) this.context = options.context;
    this.remediation = options.remediation ?? errorCatalog[code].remediation;
    this.headers = options.headers ?? {};
  }
}

export function validationFailed(fields: FieldErrors, message = "The request has invalid fields."): ApiError {
  return new ApiError("VALIDATION_FAILED", message, { fields: mergeFieldErrors(emptyFieldErrors(), fields) });
}

/** A domain rule refused the request: VALIDATION_FAILED with a message and no fields. */
export function domainRefusal(message: string, context?: Record<string, unknown>): ApiError {
  return new ApiError("VALIDATION_FAILED", message, context ? { context } : {});
}

export function notFound(what = "resource"): ApiError {
  return new ApiError("RESOURCE_NOT_FOUND", `No ${what} with that id is visible to this token.`);
}

export const internalError = () => new ApiError("INTERNAL_SERVER_ERROR", "Something went wrong on our side.");

/** A bounded wait ran out (src/db/timeouts.ts); the transaction it was in has rolled back. */
export const serviceBusy = () =>
  new ApiError("SERVICE_BUSY", "The service could not finish this request in time; nothing was changed.", { headers: { "Retry-After": "1" } });

/** The database or the KV store is down, restarting or failing over (src/db/outage.ts, KvUnavailableError). */
export const backendUnavailable = () =>
  new ApiError("SERVICE_BUSY", "The service cannot reach its database or cache just now; try again in a moment.", {
    headers: { "Retry-After": "1" },
  });

/**
 * What a client is told of anything thrown: an ApiError as it is, a database wait past its bound or
 * an outage of the database or the KV store as SERVICE_BUSY, anything else as the opaque
 * INTERNAL_SERVER_ERROR (the cause stays in the log).
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isDatabaseTimeout(err)) return serviceBusy();
  if (isDatabaseUnreachable(err) || err instanceof KvUnavailableError) return backendUnavailable();
  return internalError();
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    docs_url: string;
    remediation: string;
    request_id: string;
    fields?: FieldErrors;
    context?: Record<string, unknown>;
  };
}

/** The error envelope of the service description; `docsUrl` is the docs surface's base URL. */
export function errorEnvelope(err: ApiError, requestId: string, docsUrl: string): ErrorEnvelope {
  return {
    error: {
      code: err.code,
      message: err.message,
      docs_url: `${docsUrl}/errors#${err.code.toLowerCase()}`,
      remediation: err.remediation,
      request_id: requestId,
      ...(err.fields ? { fields: err.fields } : {}),
      ...(err.context ? { context: err.context } : {}),
    },
  };
}
