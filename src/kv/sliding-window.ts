// Sliding-window counters in the KV store: a fixed window's counter plus the previous window's,
// weighted by how much of it the sliding window still covers (a fixed window alone admits twice its
// limit to a client that spends one window's budget at its end and the next one's at its start).
// The API's request budgets (src/pipeline/rate-limit.ts) and the Discord driver's count of invalid
// requests (its circuit breaker) both count this way.
import type { CounterSpec, CounterState } from "./kv.ts";

export interface Window {
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateState {
  /** The first window's limit (reported as X-RateLimit-Limit). */
  limit: number;
  /** Requests left before the first window to run out does. */
  remaining: number;
  /** Seconds until a request would be admitted again; set only when a window is spent. */
  retryAfter: number | null;
}

/** One window of a budget as the KV counts it: this fixed window's counter and a peek at the previous one's. */
export interface BudgetCounter {
  window: Window;
  /** When the current fixed window ends (ms since the epoch). */
  endsAt: number;
  current: CounterSpec;
  previous: CounterSpec;
}

/** The KV counters of `subject`'s windows; a counter lives two windows, as it is read as the previous one. */
export function budgetCounters(subject: string, budget: readonly Window[], nowMs: number): BudgetCounter[] {
  return budget.map((w) => {
    const index = Math.floor(nowMs / w.windowMs);
    const endsAt = (index + 1) * w.windowMs;
    const key = (i: number) => `rl:${subject}:${w.name}:${i}`;
    return {
      window: w,
      endsAt,
      current: { key: key(index), ttlMs: endsAt - nowMs + w.windowMs + 1_000 },
      previous: { key: key(index - 1), ttlMs: 0, peek: true },
    };
  });
}

/** What the KV is asked for `windows`, in the order rateStateOf reads the answers. */
export function kvCounters(windows: readonly BudgetCounter[]): CounterSpec[] {
  return windows.flatMap((w) => [w.current, w.previous]);
}

/** The counters of `windows` only read (nothing is counted), to judge the next request without counting it. */
export function peekCounters(windows: readonly BudgetCounter[]): CounterSpec[] {
  return kvCounters(windows.map((w) => ({ ...w, current: { ...w.current, peek: true } })));
}

/** The state of `windows` read by peekCounters: a read counts nothing, so the next request is judged as one more than what was read. */
export function peekedStateOf(windows: readonly BudgetCounter[], counts: readonly CounterState[], nowMs: number): RateState {
  return rateStateOf(
    windows,
    counts.map((c, i) => (i % 2 === 0 ? { ...c, value: c.value + 1 } : c)),
    nowMs,
  );
}

/**
 * The sliding estimate of a window: the current count plus the previous window's, weighted by the
 * share of it still inside the sliding window ending now.
 */
function estimate(previous: number, current: number, remainingMs: number, windowMs: number): number {
  return Math.floor((previous * remainingMs) / windowMs) + current;
}

/**
 * Milliseconds after which one more request fits the window, when nothing else is counted meanwhile
 * (it fits once the estimate before it is below the limit).
 */
function waitMs(previous: number, current: number, remainingMs: number, w: Window): number {
  // Before the boundary the previous count fades out; after it, the current count becomes the one that fades.
  if (current < w.limit) return remainingMs - ((w.limit - current) * w.windowMs) / previous;
  return remainingMs + w.windowMs * (1 - w.limit / current);
}

/** The budget's state once its counters were counted to `counts` (current, previous per window). */
export function rateStateOf(windows: readonly BudgetCounter[], counts: readonly CounterState[], nowMs: number): RateState {
  let remaining = Infinity;
  let retryAfter: number | null = null;
  windows.forEach(({ window: w, endsAt }, i) => {
    const current = counts[2 * i]!.value;
    const previous = counts[2 * i + 1]!.value;
    const remainingMs = endsAt - nowMs;
    const used = estimate(previous, current, remainingMs, w.windowMs);
    remaining = Math.min(remaining, Math.max(0, w.limit - used));
    if (used > w.limit) retryAfter = Math.max(retryAfter ?? 0, Math.floor(waitMs(previous, current, remainingMs, w) / 1000) + 1);
  });
  return { limit: windows[0]!.window.limit, remaining, retryAfter };
}
