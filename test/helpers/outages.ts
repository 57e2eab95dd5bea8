// Backends that go away on a test's command: a TCP proxy to a real server (PostgreSQL, Redis, or
// the embedded socket) that stop() closes with every connection through it, and a KV store whose
// every command fails as an unreachable Redis's does while it is down.
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { KvUnavailableError, type Kv } from "../../src/kv/kv.ts";
import { MemoryKv } from "../../src/kv/memory.ts";

/** A TCP proxy to `target`; stop() closes its port and every connection through it, start() opens the same port again. */
export class StoppableProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: () => Socket) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = this.target();
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((r) => server.close(r));
  }
}

/** An in-process KV store that, while `down`, fails every command with KvUnavailableError (its data kept, as a dropped connection leaves Redis's). */
export class OutageKv implements Kv {
  down = false;
  constructor(readonly inner: Kv = new MemoryKv()) {}

  private reach<T>(work: () => Promise<T>): Promise<T> {
    return this.down ? Promise.reject(new KvUnavailableError("Redis: The client is offline")) : work();
  }

  get(key: string) {
    return this.reach(() => this.inner.get(key));
  }
  set(key: string, value: string, options: { ttlMs: number; onlyIfAbsent?: boolean }) {
    return this.reach(() => this.inner.set(key, value, options));
  }
  compareAndSet(key: string, expected: string, value: string, ttlMs: number) {
    return this.reach(() => this.inner.compareAndSet(key, expected, value, ttlMs));
  }
  compareAndDelete(key: string, expected: string) {
    return this.reach(() => this.inner.compareAndDelete(key, expected));
  }
  increment(key: string, ttlMs: number) {
    return this.reach(() => this.inner.increment(key, ttlMs));
  }
  incrementAll(counters: Parameters<Kv["incrementAll"]>[0]) {
    return this.reach(() => this.inner.incrementAll(counters));
  }
  incrementIfPrefixed(key: string, prefix: string, counters: Parameters<Kv["incrementIfPrefixed"]>[2]) {
    return this.reach(() => this.inner.incrementIfPrefixed(key, prefix, counters));
  }
  ttlMs(key: string) {
    return this.reach(() => this.inner.ttlMs(key));
  }
  close() {
    return this.inner.close();
  }
}
