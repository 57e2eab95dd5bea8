// Request budgets in the KV store, so every process sharing Redis shares them. Each window is a
// sliding-window counter (../kv/sliding-window.ts, where the counting lives).
// While the KV store is unreachable (docs/decisions.md, "Redis outage"), a budget spent by a
// credential the database has just verified fails open (counted as unavailable in the metrics), and
// every other budget (per IP, per address, per member: the anonymous ones) is counted in this
// process alone, so each process still holds a client to the budget.
import { KvUnavailableError, type CounterSpec, type CounterState, type Kv } from "../kv/kv.ts";
import { budgetCounters, kvCounters, peekCounters, peekedStateOf, rateStateOf, type RateState, type Window } from "../kv/sliding-window.ts";
import { MemoryKv } from "../kv/memory.ts";
import { ApiError } from "../errors.ts";
import { countKvOutage } from "../observability/metrics.ts";

export { budgetCounters, kvCounters, rateStateOf, type BudgetCounter, type RateState, type Window } from "../kv/sliding-window.ts";

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
  return peekedStateOf(windows, await countBudget(kv, budget, peekCounters(windows)), nowMs);
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
