// A receiver's de-duplication on the event id, in memory: for tests and for a receiver that runs as
// one process. SubBridge delivers at least once (a retry, or a redelivery after retry-dead, repeats
// the same evt_ id), so a receiver claims each id before acting on it. Several processes need a
// shared store instead (a unique key in the database, Redis SET NX EX); sdk/README.md shows both.

export interface MemoryDeduplicatorOptions {
  /** How long a claimed id is remembered, in seconds (default 86,400: 24 hours, at least the span of a day's retries). */
  ttlSeconds?: number;
  /** The current time in milliseconds (default Date.now); tests pass a fake clock. */
  now?: () => number;
}

export interface MemoryDeduplicator {
  /**
   * Claims an event id: true the first time it is seen within the time to live (act on the event),
   * false for a repeat (acknowledge it with a 2xx and do nothing).
   */
  claim(eventId: string): boolean;
  /** Forgets a claim, so that the next delivery of the id is acted on (when handling it failed). */
  release(eventId: string): void;
  /** How many ids are remembered now. */
  readonly size: number;
}

export const DEFAULT_DEDUPLICATION_TTL_SECONDS = 86_400;

export function createMemoryDeduplicator(options: MemoryDeduplicatorOptions = {}): MemoryDeduplicator {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_DEDUPLICATION_TTL_SECONDS) * 1000;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError("ttlSeconds must be a positive number of seconds");
  const now = options.now ?? Date.now;
  // Insertion order is expiry order (one time to live for all), so expired ids are always at the
  // front of the map and each claim sweeps them in amortised constant time.
  const expiries = new Map<string, number>();

  function sweep(at: number): void {
    for (const [id, expiresAt] of expiries) {
      if (expiresAt > at) return;
      expiries.delete(id);
    }
  }

  return {
    claim(eventId) {
      const at = now();
      sweep(at);
      if (expiries.has(eventId)) return false;
      expiries.set(eventId, at + ttlMs);
      return true;
    },
    release(eventId) {
      expiries.delete(eventId);
    },
    get size() {
      sweep(now());
      return expiries.size;
    },
  };
}
