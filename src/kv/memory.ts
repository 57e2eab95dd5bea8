import type { CounterSpec, CounterState, Kv } from "./kv.ts";

interface Entry {
  value: string;
  expiresAt: number;
}

/** The embedded KV: a Map with expiry, on the injected clock so TTLs are testable without sleeping. */
export class MemoryKv implements Kv {
  private readonly entries = new Map<string, Entry>();
  private sweeps = 0;

  constructor(private readonly now: () => number = Date.now) {}

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Drops expired entries now and then so a long-running process does not grow without bound. */
  private sweep() {
    if (++this.sweeps % 1000 !== 0) return;
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }

  async get(key: string) {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, options: { ttlMs: number; onlyIfAbsent?: boolean }) {
    this.sweep();
    if (options.onlyIfAbsent && this.live(key)) return false;
    this.entries.set(key, { value, expiresAt: this.now() + options.ttlMs });
    return true;
  }

  async compareAndSet(key: string, expected: string, value: string, ttlMs: number) {
    if (this.live(key)?.value !== expected) return false;
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    return true;
  }

  async compareAndDelete(key: string, expected: string) {
    if (this.live(key)?.value !== expected) return false;
    this.entries.delete(key);
    return true;
  }

  async increment(key: string, ttlMs: number): Promise<CounterState> {
    this.sweep();
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { value: "1", expiresAt: this.now() + ttlMs });
      return { value: 1, ttlMs };
    }
    entry.value = String(Number(entry.value) + 1);
    return { value: Number(entry.value), ttlMs: entry.expiresAt - this.now() };
  }

  async incrementAll(counters: readonly CounterSpec[]) {
    const states: CounterState[] = [];
    for (const { key, ttlMs, peek } of counters) {
      const entry = peek ? this.live(key) : undefined;
      if (peek) states.push({ value: entry ? Number(entry.value) : 0, ttlMs: entry ? entry.expiresAt - this.now() : 0 });
      else states.push(await this.increment(key, ttlMs));
    }
    return states;
  }

  async incrementIfPrefixed(key: string, prefix: string, counters: readonly CounterSpec[]) {
    const value = this.live(key)?.value ?? null;
    if (value === null || !value.startsWith(prefix)) return { value, counts: null };
    return { value, counts: await this.incrementAll(counters) };
  }

  async ttlMs(key: string) {
    const entry = this.live(key);
    return entry ? entry.expiresAt - this.now() : null;
  }

  async close() {
    this.entries.clear();
  }
}
