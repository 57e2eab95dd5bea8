// Request budgets in the KV store, so every process sharing Redis shares them. Each window is a
// sliding-window counter (the fixed window's count plus the previous window's, weighted by how much
// of it the sliding window still covers): a fixed window alone admits twice its limit to a client
// that spends one window's budget at its end and the next one's at its start.
// While the KV store is unreachable (docs/decisions.md, "Redis outage"), a budget spent by a
// credential the database has just verified fails open (counted as unavailable in the metrics), and
// every other budget (per IP, per address, per member: the anonymous ones) is counted in this
// process alone, so each process still holds a client to the budget.
import { KvUnavailableError, type CounterSpec, type CounterState, type Kv } from "../kv/kv.ts";
import { MemoryKv } from "../kv/memory.ts";
import { ApiError } from "../errors.ts";
import { countKvOutage } from "../observability/metrics.ts";

export interface Window {
  name: string;
  limit: number;
  windowMs: number;
}

/** The budgets that admit every request while the KV store is unreachable (the rest count in-process). */
const failingOpen = new WeakSet<readonly Window[]>();

/** `budget`, marked to fail open during a KV outage: only a budget of a credential verified in the database. */
export function failsOpen(budget: readonly Window[]): readonly Window[] {
  failingOpen.add(budget);
  return budget;
}

/** REST: 300 requests per minute and 10,000 per hour per token. */
export const REST_BUDGET: readonly Window[] = failsOpen([
  { name: "minute", limit: 300, windowMs: 60_000 },
  { name: "hour", limit: 10_000, windowMs: 3_600_000 },
]);

/** MCP: 120 requests per minute per token (personal or OAuth), counted apart from REST. */
export const MCP_BUDGET: readonly Window[] = failsOpen([{ name: "mcp-minute", limit: 120, windowMs: 60_000 }]);

/** Requests to the MCP endpoint without a valid credential: 5 per minute per IP. */
/** Discovery documents: 60 requests per minute per IP. */
export const DISCOVERY_BUDGET: readonly Window[] = [{ name: "discovery-minute", limit: 60, windowMs: 60_000 }];

export const UNAUTHENTICATED_MCP_BUDGET: readonly Window[] = [{ name: "mcp-anonymous-minute", limit: 5, windowMs: 60_000 }];

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

/** Where budgets that do not fail open are counted while the KV store is unreachable. */
const inProcess = new MemoryKv();

/** `counters` counted in the KV store, or during its outage as `budget`'s policy says (see the header). */
async function countBudget(kv: Kv, budget: readonly Window[], counters: readonly CounterSpec[]): Promise<CounterState[]> {
  try {
    return await kv.incrementAll(counters);
  } catch (err) {
    if (!(err instanceof KvUnavailableError)) throw err;
    if (failingOpen.has(budget)) {
      countKvOutage("rate_limit_open");
      return counters.map(() => ({ value: 0, ttlMs: 0 }));
    }
    countKvOutage("rate_limit_in_process");
    return inProcess.incrementAll(counters);
  }
}

/** Counts one request against every window of `budget` for `subject` (one KV round trip). */
export async function consumeBudget(kv: Kv, subject: string, budget: readonly Window[], nowMs: number): Promise<RateState> {
  const windows = budgetCounters(subject, budget, nowMs);
  return rateStateOf(windows, await countBudget(kv, budget, kvCounters(windows)), nowMs);
}

/** The budget's state without counting a request (the counters are only read). */
export async function peekBudget(kv: Kv, subject: string, budget: readonly Window[], nowMs: number): Promise<RateState> {
  const windows = budgetCounters(subject, budget, nowMs);
  const peeked = windows.map((w) => ({ ...w, current: { ...w.current, peek: true } }));
  // A read counts nothing, so the next request is judged as one more than what was read.
  const counts = (await countBudget(kv, budget, kvCounters(peeked))).map((c, i) => (i % 2 === 0 ? { ...c, value: c.value + 1 } : c));
  return rateStateOf(windows, counts, nowMs);
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

export function rateLimitHeaders(state: RateState): Record<string, string> {
  return { "X-RateLimit-Limit": String(state.limit), "X-RateLimit-Remaining": String(state.remaining) };
}

export function rateLimited(state: RateState): ApiError {
  return new ApiError("RATE_LIMITED", `Rate limit exceeded; retry in ${state.retryAfter} seconds.`, {
    headers: { "Retry-After": String(state.retryAfter), ...rateLimitHeaders(state) },
    context: { retry_after: state.retryAfter },
  });
}
