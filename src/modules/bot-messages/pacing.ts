// A connector's pacing (its manifest's `pacing`: min_interval_microseconds, burst,
// per_recipient_interval_microseconds) kept across every process that sends: a generic cell rate
// algorithm (GCRA) per bot and per recipient of that bot, whose one number per key (the theoretical
// arrival time) lives in the shared KV store. Losing it (a restart of an in-process store) only
// allows one more burst, which the platforms' own limits are sized for.
import type { Kv } from "../../kv/kv.ts";

export interface Pacing {
  /** Milliseconds between messages of one bot once its burst is spent. */
  minIntervalMs: number;
  /** Messages one bot may send back to back. */
  burst: number;
  /** Milliseconds between two messages of one bot to the same recipient. */
  perRecipientIntervalMs: number;
}

export function pacingOf(manifest: { min_interval_microseconds: number; burst: number; per_recipient_interval_microseconds: number }): Pacing {
  return {
    minIntervalMs: manifest.min_interval_microseconds / 1000,
    burst: Math.max(1, manifest.burst),
    perRecipientIntervalMs: manifest.per_recipient_interval_microseconds / 1000,
  };
}

interface Cell {
  key: string;
  intervalMs: number;
  burst: number;
}

/** How long `cell` must wait at `now` (0: it may send), and the arrival time a send would leave. */
function assess(raw: string | null, cell: Cell, now: number): { waitMs: number; next: number } {
  const tat = raw === null ? now : Math.max(Number(raw), now);
  const tolerance = (cell.burst - 1) * cell.intervalMs;
  return { waitMs: Math.max(0, tat - tolerance - now), next: tat + cell.intervalMs };
}

const ATTEMPTS = 5;

/**
 * Takes a send slot for a message from `installation` to `recipient` at `now`: 0 when it may go now
 * (the slot is spent), else the milliseconds until it may (nothing is spent).
 */
export async function takeSendSlot(kv: Kv, pacing: Pacing, installation: string, recipient: string, now: number): Promise<number> {
  const cells: Cell[] = [
    { key: `bot-pace:${installation}`, intervalMs: pacing.minIntervalMs, burst: pacing.burst },
    { key: `bot-pace:${installation}:${recipient}`, intervalMs: pacing.perRecipientIntervalMs, burst: 1 },
  ].filter((c) => c.intervalMs > 0);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const raws = await Promise.all(cells.map((c) => kv.get(c.key)));
    const assessed = cells.map((c, i) => assess(raws[i]!, c, now));
    const waitMs = Math.max(0, ...assessed.map((a) => a.waitMs));
    if (waitMs > 0) return waitMs;
    let taken = true;
    for (const [i, c] of cells.entries()) {
      const value = String(assessed[i]!.next);
      // Kept a minute past its arrival time: a key that outlives it reads as absent would, and a
      // store whose clock runs ahead of `now` cannot free the slot early.
      const ttlMs = Math.ceil(assessed[i]!.next - now) + 60_000;
      const written =
        raws[i] === null ? await kv.set(c.key, value, { ttlMs, onlyIfAbsent: true }) : await kv.compareAndSet(c.key, raws[i]!, value, ttlMs);
      // Another process sent in between: assess again from what it left.
      if (!written) {
        taken = false;
        break;
      }
    }
    if (taken) return 0;
  }
  // Contention beyond a few rounds: try again shortly rather than exceed the pace.
  return Math.max(1, pacing.minIntervalMs);
}
