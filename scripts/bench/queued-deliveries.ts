// What the delivery benchmarks (webhook-deliveries.ts, capacity.ts) share: deliveries queued straight
// into the database (events with one delivery each, as the fan-out would leave them, a thousand rows a
// statement), and a receiver in a process of its own that reports when each delivery arrived.
import { spawn } from "node:child_process";
import type { openDatabase } from "../../src/db/database.ts";

/**
 * Runs `program` (node -e) as the receiver: it prints {"port"} once listening, and answers each line
 * on its stdin with {"arrived"}, what it recorded (`T`).
 */
export function startReceiver<T>(program: string) {
  const child = spawn(process.execPath, ["-e", program], { stdio: ["pipe", "pipe", "inherit"] });
  let buffer = "";
  const waiters: ((line: Record<string, unknown>) => void)[] = [];
  child.stdout.on("data", (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = JSON.parse(buffer.slice(0, i)) as Record<string, unknown>;
      buffer = buffer.slice(i + 1);
      waiters.shift()?.(line);
    }
  });
  const next = () => new Promise<Record<string, unknown>>((resolve) => waiters.push(resolve));
  return {
    child,
    port: next().then((l) => l.port as number),
    arrivals: async (): Promise<T> => {
      const reply = next();
      child.stdin.write("report\n");
      return (await reply).arrived as T;
    },
  };
}

export interface DeliveryTarget {
  teamId: string;
  endpointId: string;
}

/**
 * Queues `n` events with one delivery each, the i-th to targets[i % targets.length], due at the
 * times `due(i)` gives, having made `attempts` attempts; `prefix` keeps each batch's event ids apart.
 */
export async function queueDeliveries(
  db: ReturnType<typeof openDatabase>,
  targets: readonly DeliveryTarget[],
  prefix: string,
  n: number,
  due: (i: number) => Date,
  attempts = 0,
): Promise<void> {
  const id = (i: number) => `${prefix}${String(i).padStart(26 - prefix.length + 4, "0")}`;
  for (let from = 0; from < n; from += 1000) {
    const rows = Array.from({ length: Math.min(1000, n - from) }, (_, k) => from + k);
    const now = new Date();
    const target = (i: number) => targets[i % targets.length]!;
    await db("events").insert(
      rows.map((i) => ({
        id: id(i),
        team_id: target(i).teamId,
        project_id: null,
        type: "bench.happened",
        api_version: "2026-11-23",
        data: JSON.stringify({ n: i, note: "a payload of a realistic size ".repeat(8) }),
        created_at: now,
      })),
    );
    await db("webhook_deliveries").insert(
      rows.map((i) => ({
        id: crypto.randomUUID(),
        team_id: target(i).teamId,
        endpoint_id: target(i).endpointId,
        project_id: null,
        event_id: id(i),
        event_type: "bench.happened",
        status: "queued",
        attempts,
        next_attempt_at: due(i),
        created_at: now,
        updated_at: now,
      })),
    );
  }
}

/** The p-th percentile of ascending `sorted`. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
