// The fetch the client hands to openapi-fetch: it gives every write an Idempotency-Key (kept
// across retries, so a retried write runs at most once on the server) and retries what is safe to
// repeat - network failures, 425, 429 and 5xx of GET/HEAD/OPTIONS or of a request carrying an
// Idempotency-Key - honouring Retry-After, otherwise with jittered exponential backoff.
import { ConnectionError, retryAfterSeconds } from "./errors.js";

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (default 2). 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff ceiling in milliseconds, doubled per retry (default 500). */
  initialDelayMs?: number;
  /** Largest backoff in milliseconds (default 8000). */
  maxDelayMs?: number;
  /**
   * A Retry-After longer than this (default 60 s) is not waited for: the error is thrown at once
   * and its `retryAfter` says when to come back.
   */
  maxRetryAfterSeconds?: number;
}

export interface RetryingFetchOptions extends RetryOptions {
  fetch?: Fetch;
  /** How to wait; tests inject one that records the delay instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for jitter (default Math.random). */
  random?: () => number;
  /** A fresh Idempotency-Key (default crypto.randomUUID()). */
  createIdempotencyKey?: () => string;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export function isRetryableStatus(status: number): boolean {
  return status === 425 || status === 429 || status >= 500;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRetryingFetch(options: RetryingFetchOptions = {}): Fetch {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const createKey = options.createIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const maxRetries = Math.max(0, options.maxRetries ?? 2);
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 60) * 1000;

  /** Equal jitter: half the exponential ceiling, plus a random share of the other half. */
  const backoff = (retry: number) => {
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** retry);
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  };

  return async (request) => {
    if (WRITES.has(request.method) && !request.headers.has("idempotency-key")) request.headers.set("Idempotency-Key", createKey());
    const repeatable = SAFE.has(request.method) || request.headers.has("idempotency-key");

    for (let retry = 0; ; retry++) {
      request.signal.throwIfAborted();
      const mayRetry = repeatable && retry < maxRetries;
      let response: Response;
      try {
        // A clone per attempt keeps the body readable for the next one; the last goes as it is.
        response = await send(mayRetry ? request.clone() : request);
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (!mayRetry) throw new ConnectionError(error);
        await sleep(backoff(retry));
        continue;
      }
      if (!mayRetry || !isRetryableStatus(response.status)) return response;
      const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      const delay = retryAfter === null ? backoff(retry) : retryAfter * 1000;
      if (delay > maxRetryAfterMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
