import { createClient } from "redis";
import type { CounterState, Kv } from "./kv.ts";

const INCREMENT = `
local value = redis.call('INCR', KEYS[1])
if value == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {value, redis.call('PTTL', KEYS[1])}`;

const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;

const COMPARE_AND_DELETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

function createRedisClient(url: string) {
  return createClient({ url, socket: { reconnectStrategy: (retries) => Math.min(retries * 100, 2000) } });
}
type RedisClient = ReturnType<typeof createRedisClient>;

/** KV on Redis: every process sharing the server shares the counters, locks and cache. */
export class RedisKv implements Kv {
  private constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  /**
   * `prefix` namespaces every key: the deployment's (REDIS_KEY_PREFIX and the id its database
   * carries), so deployments sharing one Redis share nothing.
   */
  static async connect(url: string, prefix: string): Promise<RedisKv> {
    const client = createRedisClient(url);
    // Without a listener an unreachable server would crash the process; commands still reject.
    client.on("error", () => {});
    await client.connect();
    return new RedisKv(client, prefix);
  }

  private k(key: string) {
    return this.prefix + key;
  }

  async get(key: string) {
    return (await this.client.get(this.k(key))) as string | null;
  }

  async set(key: string, value: string, options: { ttlMs: number; onlyIfAbsent?: boolean }) {
    const reply = await this.client.set(this.k(key), value, {
      expiration: { type: "PX", value: Math.max(1, Math.ceil(options.ttlMs)) },
      ...(options.onlyIfAbsent ? { condition: "NX" as const } : {}),
    });
    return reply === "OK";
  }

  async compareAndSet(key: string, expected: string, value: string, ttlMs: number) {
    const reply = await this.client.eval(COMPARE_AND_SET, {
      keys: [this.k(key)],
      arguments: [expected, value, String(Math.max(1, Math.ceil(ttlMs)))],
    });
    return Number(reply) === 1;
  }

  async compareAndDelete(key: string, expected: string) {
    const reply = await this.client.eval(COMPARE_AND_DELETE, { keys: [this.k(key)], arguments: [expected] });
    return Number(reply) === 1;
  }

  async increment(key: string, ttlMs: number): Promise<CounterState> {
    const [value, pttl] = (await this.client.eval(INCREMENT, { keys: [this.k(key)], arguments: [String(Math.max(1, Math.ceil(ttlMs)))] })) as [
      number,
      number,
    ];
    return { value: Number(value), ttlMs: Number(pttl) };
  }

  async ttlMs(key: string) {
    const ttl = Number(await this.client.pTTL(this.k(key)));
    return ttl < 0 ? null : ttl;
  }

  async close() {
    if (this.client.isOpen) await this.client.close();
  }
}
