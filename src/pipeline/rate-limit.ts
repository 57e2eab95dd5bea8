// Fixed-window request budgets in the KV store, so every process sharing Redis shares them.
import type { CounterState, Kv } from "../kv/kv.ts";
import { ApiError } from "../errors.ts";

export interface Window {
  name: string;
  limit: number;
  windowMs: number;
}

/** REST: 300 requests per minute and 10,000 per hour per token. */
export const REST_BUDGET: readonly Window[] = [
  { name: "minute", limit: 300, windowMs: 60_000 },
  { name: "hour", limit: 10_000, windowMs: 3_600_000 },
];

/** MCP: 120 requests per minute per token (personal or OAuth), counted apart from REST. */
export const MCP_BUDGET: readonly Window[] = [{ name: "mcp-minute", limit: 120, windowMs: 60_000 }];

/** Requests to the MCP endpoint without a valid credential: 5 per minute per IP. */
/** Discovery documents: 60 requests per minute per IP. */
export const DISCOVERY_BUDGET: readonly Window[] = [{ name: "discovery-minute", limit: 60, windowMs: 60_000 }];

export const UNAUTHENTICATED_MCP_BUDGET: readonly Window[] = [{ name: "mcp-anonymous-minute", limit: 5, windowMs: 60_000 }];

export interface RateState {
  /** The first window's limit (reported as X-RateLimit-Limit). */
  limit: number;
  /** Requests left before the first window to run out does. */
  remaining: number;
  /** Seconds until the spent window refills; set only when a window is spent. */
  retryAfter: number | null;
}

/** Counts one request against every window of `budget` for `subject`. */
export interface BudgetCounter {
  window: Window;
  endsAt: number;
  key: string;
  ttlMs: number;
}

/** The KV counters of `subject`'s current windows. */
export function budgetCounters(subject: string, budget: readonly Window[], nowMs: number): BudgetCounter[] {
  return budget.map((w) => {
    const index = Math.floor(nowMs / w.windowMs);
    const endsAt = (index + 1) * w.windowMs;
    return { window: w, endsAt, key: `rl:${subject}:${w.name}:${index}`, ttlMs: endsAt - nowMs + 1_000 };
  });
}

/** Counts one request against every window of `budget` for `subject` (one KV round trip). */
export async function consumeBudget(kv: Kv, subject: string, budget: readonly Window[], nowMs: number): Promise<RateState> {
  const windows = budgetCounters(subject, budget, nowMs);
  return rateStateOf(windows, await kv.incrementAll(windows), nowMs);
}

/** The budget's state once its counters were incremented to `counts`. */
export function rateStateOf(windows: readonly BudgetCounter[], counts: readonly CounterState[], nowMs: number): RateState {
  let remaining = Infinity;
  let retryAfter: number | null = null;
  windows.forEach(({ window: w, endsAt }, i) => {
    const { value } = counts[i]!;
    remaining = Math.min(remaining, Math.max(0, w.limit - value));
    if (value > w.limit) retryAfter = Math.max(retryAfter ?? 0, Math.ceil((endsAt - nowMs) / 1000));
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
