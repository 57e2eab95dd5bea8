// The fetch the client hands to openapi-fetch: it gives every write an Idempotency-Key (kept
// across retries, so a retried write runs at most once on the server) and retries what is safe to
// repeat - network failures, timed-out attempts, 408, 425, 429 and 5xx of GET/HEAD/OPTIONS or of a
// request carrying an Idempotency-Key - honouring Retry-After, otherwise with jittered exponential
// backoff. Whatever ends a request without a response is thrown as a SubBridgeError: the caller's
// abort (AbortedError, never retried), a timeout (TimeoutError), anything else (ConnectionError).
import { abortableSleep, anySignal, attemptTimer, raceAbort } from "./abort.js";
import { AbortedError, ConnectionError, retryAfterSeconds, TimeoutError } from "./errors.js";

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (default 2). 0 turns retrying off. */
  maxRetries?: number | undefined;
  /** First backoff ceiling in milliseconds, doubled per retry (default 500). */
  initialDelayMs?: number | undefined;
  /** Largest backoff in milliseconds (default 8000). */
  maxDelayMs?: number | undefined;
  /**
   * A Retry-After longer than this (default 60 s) is not waited for: the error is thrown at once
   * and its `retryAfter` says when to come back.
   */
  maxRetryAfterSeconds?: number | undefined;
}

export interface RetryingFetchOptions extends RetryOptions {
  fetch?: Fetch | undefined;
  /**
   * How long one attempt may wait for the response (its status and headers), in milliseconds
   * (default 60 000). A timed-out attempt is retried like a network failure when the request is
   * safe to repeat; the last one throws TimeoutError. 0 or Infinity: no time limit.
   */
  timeoutMs?: number | undefined;
  /**
   * How to wait between attempts; tests inject one that records the delay instead of sleeping.
   * It gets the caller's signal; the wait ends when that aborts whether or not the sleep heeds it.
   */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** A number in [0, 1) for jitter (default Math.random). */
  random?: (() => number) | undefined;
  /** A fresh Idempotency-Key (default crypto.randomUUID()). */
  createIdempotencyKey?: (() => string) | undefined;
}

/** Long enough for any answer of this API, short enough that a lost connection does not hang a job. */
export const DEFAULT_TIMEOUT_MS = 60_000;

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** The time limit of one attempt in milliseconds, Infinity for none (0 or Infinity given). */
function attemptLimit(timeoutMs: number): number {
  if (timeoutMs === 0 || timeoutMs === Infinity) return Infinity;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0))
    throw new RangeError(`timeoutMs must be a number of milliseconds above 0, or 0 or Infinity for no limit (it is ${String(timeoutMs)})`);
  return timeoutMs;
}

export function createRetryingFetch(options: RetryingFetchOptions = {}): Fetch {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const createKey = options.createIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const maxRetries = Math.max(0, options.maxRetries ?? 2);
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 60) * 1000;
  const timeoutMs = attemptLimit(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  /** Equal jitter: half the exponential ceiling, plus a random share of the other half. */
  const backoff = (retry: number) => {
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** retry);
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  };

  /** Waits between attempts; the caller aborting ends the wait with AbortedError. */
  const pause = async (ms: number, caller: AbortSignal) => {
    try {
      await raceAbort(sleep(ms, caller), caller);
    } catch (error) {
      throw caller.aborted ? new AbortedError(caller.reason) : error;
    }
  };

  /** One attempt: the response (status and headers), or the SubBridgeError saying why none came. */
  const attempt = async (request: Request, copy: boolean): Promise<Response> => {
    const caller = request.signal;
    const timer = attemptTimer(timeoutMs);
    let pending: Promise<Response> | undefined;
    try {
      // The attempt's own signal: the caller's and the timer's. After the timer is cleared it still
      // carries the caller's abort to the body being read.
      const signal = anySignal([caller, timer.signal]);
      // A clone per attempt keeps the body readable for the next one; the last goes as it is.
      pending = send(new Request(copy ? request.clone() : request, { signal }));
      return await raceAbort(pending, signal);
    } catch (error) {
      // A fetch that ignored the signal may still answer: that late response is not read.
      void pending?.then(
        (late) => late.body?.cancel().catch(() => {}),
        () => {},
      );
      if (caller.aborted) throw new AbortedError(caller.reason);
      if (timer.signal.aborted) throw new TimeoutError(timeoutMs, error);
      throw new ConnectionError(error);
    } finally {
      timer.clear();
    }
  };

  return async (request) => {
    if (WRITES.has(request.method) && !request.headers.has("idempotency-key")) request.headers.set("Idempotency-Key", createKey());
    const repeatable = SAFE.has(request.method) || request.headers.has("idempotency-key");

    for (let retry = 0; ; retry++) {
      if (request.signal.aborted) throw new AbortedError(request.signal.reason);
      const mayRetry = repeatable && retry < maxRetries;
      let response: Response;
      try {
        response = await attempt(request, mayRetry);
      } catch (error) {
        if (!mayRetry || error instanceof AbortedError) throw error;
        await pause(backoff(retry), request.signal);
        continue;
      }
      if (!mayRetry || !isRetryableStatus(response.status)) return response;
      const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      const delay = retryAfter === null ? backoff(retry) : retryAfter * 1000;
      if (delay > maxRetryAfterMs) return response;
      await response.body?.cancel();
      await pause(delay, request.signal);
    }
  };
}
