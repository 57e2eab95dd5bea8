// What the process counts as it serves, in Prometheus form (prom-client): requests by surface,
// operation and status with their latency, MCP tool calls, and webhook delivery attempts by
// outcome. One registry per process: the instruments are process-wide facts, recorded where the
// work happens (src/http/request.ts, the MCP server, the delivery worker) and read by the metrics
// listener (./metrics-app.ts), which adds the values it reads at scrape time (./scrape-gauges.ts).
import { Counter, Histogram, Registry } from "prom-client";

export const processRegistry = new Registry();

/** Seconds; from a cached read (a millisecond) to the slowest bounded wait (the statement timeout). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const httpRequests = new Counter({
  name: "subbridge_http_requests_total",
  help: "HTTP requests answered, by surface, operation (REST operationId, MCP method or tool, or the route) and status.",
  labelNames: ["surface", "operation", "status"] as const,
  registers: [processRegistry],
});

const httpDuration = new Histogram({
  name: "subbridge_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, by surface, operation and status.",
  labelNames: ["surface", "operation", "status"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});

const mcpToolCalls = new Counter({
  name: "subbridge_mcp_tool_calls_total",
  help: "MCP tools/call requests, by tool (unknown for a name outside the catalog) and outcome (ok, an error code, or not_found).",
  labelNames: ["tool", "outcome"] as const,
  registers: [processRegistry],
});

const mcpToolDuration = new Histogram({
  name: "subbridge_mcp_tool_call_duration_seconds",
  help: "Time an MCP tool call took, by tool.",
  labelNames: ["tool"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});

const deliveryAttempts = new Counter({
  name: "subbridge_webhook_delivery_attempts_total",
  help: "Webhook delivery attempts this process finished, by outcome (delivered, failed, refused).",
  labelNames: ["outcome"] as const,
  registers: [processRegistry],
});

const kvOutages = new Counter({
  name: "subbridge_kv_unavailable_total",
  help: "Uses of the KV store (Redis) that found it unreachable and went on without it, by use (rate_limit_open: a per-token budget admitted uncounted; rate_limit_in_process: an anonymous budget counted in this process; credential_cache: a credential read from the database; idempotency_lock: a write run without its lock; platform_rate_limit: Discord's rate limits counted in this process).",
  labelNames: ["use"] as const,
  registers: [processRegistry],
});

/** One use of the KV store that met an outage and went on as its policy says (docs/decisions.md, "Redis outage"). */
export function countKvOutage(
  use: "rate_limit_open" | "rate_limit_in_process" | "credential_cache" | "idempotency_lock" | "platform_rate_limit",
): void {
  kvOutages.inc({ use });
}

const platformLimits = new Counter({
  name: "subbridge_platform_rate_limit_total",
  help: "What a platform driver's rate limiter did, by platform and event (waited: a call waited for its bucket or the global budget; deferred: a call refused before it was sent, to be tried again later; throttled: the platform answered 429; circuit_open: a call refused because the bot's invalid requests neared the platform's ban).",
  labelNames: ["platform", "event"] as const,
  registers: [processRegistry],
});

/** One event of a platform driver's rate limiter (src/modules/connectors/drivers/discord-rate-limits.ts). */
export function countPlatformLimit(platform: "discord", event: "waited" | "deferred" | "throttled" | "circuit_open"): void {
  platformLimits.inc({ platform, event });
}

/** One answered HTTP request; `seconds` from its arrival. */
export function recordRequest(surface: string, operation: string, status: number, seconds: number): void {
  const labels = { surface, operation, status: String(status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
}

/** One MCP tools/call; `tool` must come from the catalog (or be "unknown"): labels stay a bounded set. */
export function recordToolCall(tool: string, outcome: string, seconds: number): void {
  mcpToolCalls.inc({ tool, outcome });
  mcpToolDuration.observe({ tool }, seconds);
}

/** One finished webhook delivery attempt, as the delivery worker records it. */
export function countDeliveryAttempt<T extends { status: string; refused?: boolean }>(outcome: T): T {
  deliveryAttempts.inc({ outcome: outcome.status === "delivered" ? "delivered" : outcome.refused ? "refused" : "failed" });
  return outcome;
}

/** Seconds since `started` (process.hrtime.bigint()). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
