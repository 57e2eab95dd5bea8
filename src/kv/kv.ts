// Short-lived shared state: rate-limit counters, idempotency locks, cached responses and credentials,
// and sessions nobody has signed in to yet (a passkey challenge, a password awaiting its second factor).
// REDIS_URL set -> Redis (shared by every process); unset -> in-process (correct for one process).
// Durable things never live here.

/**
 * The KV store cannot be reached now (Redis down, restarting, or the connection dropped): the
 * command failed at once, or was cut off with its outcome unknown. Each use decides what an outage
 * means for it (docs/decisions.md, "Redis outage"); a request it reaches answers SERVICE_BUSY.
 */
export class KvUnavailableError extends Error {
  override readonly name = "KvUnavailableError";
}

export interface CounterState {
  value: number;
  /** Milliseconds until the counter expires. */
  ttlMs: number;
}

/**
 * A counter to count in a batch: incremented (a new one lives ttlMs), or with `peek` only read (0
 * when absent; nothing is created), as a sliding-window budget reads the previous window.
 */
export interface CounterSpec {
  key: string;
  ttlMs: number;
  peek?: boolean;
}

export interface Kv {
  get(key: string): Promise<string | null>;
  /** Sets key with a time-to-live; with onlyIfAbsent, returns false (and writes nothing) when the key exists. */
  set(key: string, value: string, options: { ttlMs: number; onlyIfAbsent?: boolean }): Promise<boolean>;
  /** Replaces key only while it still holds `expected`; returns whether it did. */
  compareAndSet(key: string, expected: string, value: string, ttlMs: number): Promise<boolean>;
  /** Deletes key only while it still holds `expected`. */
  compareAndDelete(key: string, expected: string): Promise<boolean>;
  /** Atomically increments a counter; a new counter lives ttlMs. */
  increment(key: string, ttlMs: number): Promise<CounterState>;
  /** Counts several counters in one round trip (each as `increment` would, or read when peeked). */
  incrementAll(counters: readonly CounterSpec[]): Promise<CounterState[]>;
  /**
   * Reads `key` and, only when its value starts with `prefix`, increments `counters` - one atomic
   * round trip. `counts` is null when nothing was incremented.
   */
  incrementIfPrefixed(
    key: string,
    prefix: string,
    counters: readonly CounterSpec[],
  ): Promise<{ value: string | null; counts: CounterState[] | null }>;
  /** Milliseconds the key has left to live; null when it does not exist. */
  ttlMs(key: string): Promise<number | null>;
  close(): Promise<void>;
}
