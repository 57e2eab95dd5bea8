// Cancellation for the retrying fetch: the caller's signal and an attempt's timeout joined in one
// signal, a race that does not depend on the fetch (or sleep) honouring its signal, and a sleep
// that the caller's signal cuts short.

/** setTimeout's largest delay (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A signal that aborts when any of `signals` does, with that signal's reason. */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  // AbortSignal.any (Node 20.3+, current browsers) leaves no listener on a long-lived caller signal.
  return typeof AbortSignal.any === "function" ? AbortSignal.any(signals) : linkedSignal(signals);
}

/**
 * AbortSignal.any for runtimes without it (Node 20.0 to 20.2, which the package allows; Safari
 * before 17.4). Its listeners go when the result aborts, not before: fine for the retrying fetch,
 * whose sources are each request's own signal, not one long-lived signal.
 */
export function linkedSignal(signals: AbortSignal[]): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true, signal: controller.signal });
  }
  return controller.signal;
}

export interface AttemptTimer {
  /** Aborts, with a "TimeoutError" DOMException, once the time is up. */
  signal: AbortSignal;
  /** Stops the timer: the response has arrived, and reading its body must not be cut off. */
  clear(): void;
}

/**
 * A timer for one attempt; `ms` Infinity never fires. Not AbortSignal.timeout: that cannot be
 * stopped, so it would abort the body being read and keep a timer per request alive.
 */
export function attemptTimer(ms: number): AttemptTimer {
  const controller = new AbortController();
  if (ms > MAX_TIMER_MS) return { signal: controller.signal, clear: () => {} };
  const timer = setTimeout(() => controller.abort(new DOMException(`No response within ${ms} ms`, "TimeoutError")), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * Settles as `promise` does, or rejects with the signal's reason as soon as it aborts: a fetch or a
 * sleep that ignores its signal cannot hold the call.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Waits `ms`; the signal ends the wait early (rejecting with its reason) and clears the timer. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
