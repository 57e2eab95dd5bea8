import { createHash } from "node:crypto";
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  createClient,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from "@redis/client";
import type { Logger } from "pino";
import { KvUnavailableError, type CounterSpec, type CounterState, type Kv } from "./kv.ts";

/** A counter's script argument: its TTL in whole milliseconds (at least 1), or "peek". */
const countArgument = (c: CounterSpec) => (c.peek ? "peek" : String(Math.max(1, Math.ceil(c.ttlMs))));

/**
 * Counts KEYS[i] (offset by the caller): ARGV "peek" reads it (0 when absent, nothing created),
 * otherwise it is incremented and a new one gets ARGV as its TTL. Appends value, pttl to out.
 */
const COUNT = `
local function count(out, key, ttl)
  local value
  if ttl == 'peek' then
    value = tonumber(redis.call('GET', key)) or 0
  else
    value = redis.call('INCR', key)
    if value == 1 then redis.call('PEXPIRE', key, ttl) end
  end
  out[#out + 1] = value
  out[#out + 1] = redis.call('PTTL', key)
end
`;

/**
 * KEYS[1] is read; only when its value starts with ARGV[1] are the ARGV[2] counters KEYS[2..]
 * counted (TTLs or "peek" from ARGV[3]). Replies {value or false, then value, pttl pairs of the counters}.
 */
const INCREMENT_IF_PREFIXED = `${COUNT}
local value = redis.call('GET', KEYS[1])
if not value or string.sub(value, 1, string.len(ARGV[1])) ~= ARGV[1] then return {value} end
local out = {value}
local counters = tonumber(ARGV[2])
for i = 1, counters do count(out, KEYS[1 + i], ARGV[2 + i]) end
return out`;

/** Counts every key (a TTL or "peek" each). Replies value, pttl pairs, flattened. */
const INCREMENT_ALL = `${COUNT}
local out = {}
for i, key in ipairs(KEYS) do count(out, key, ARGV[i]) end
return out`;

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
  return createClient({
    url,
    socket: { reconnectStrategy: (retries) => Math.min(retries * 100, 2000), keepAlive: true },
    // No per-command timer (node-redis arms an AbortSignal.timeout for every command by default,
    // a measurable cost on every request); a dead server is noticed by the socket and every
    // pending command then fails, and reconnection is automatic.
    commandOptions: { timeout: 0 },
    // While disconnected a command fails at once instead of waiting in a queue for the server to
    // come back: a request meets the outage within its bounds.
    disableOfflineQueue: true,
  });
}

/** Replies of a server that is there but cannot serve now (loading its data, a replica during failover). */
const UNAVAILABLE_REPLY = /^(LOADING|MASTERDOWN|READONLY|TRYAGAIN|BUSY|CLUSTERDOWN)\b/;

/** node-redis's errors of a client without a usable connection (closed, offline, dropped, timed out). */
const CONNECTION_ERRORS = [
  ClientClosedError,
  ClientOfflineError,
  SocketClosedUnexpectedlyError,
  ConnectionTimeoutError,
  ReconnectStrategyError,
  SocketTimeoutError,
  DisconnectsClientError,
];

/** Whether `err` says the server cannot be reached or cannot serve now (a socket's own errors carry a code). */
function isUnavailable(err: unknown): boolean {
  if (err instanceof ErrorReply) return UNAVAILABLE_REPLY.test(err.message);
  return CONNECTION_ERRORS.some((type) => err instanceof type) || typeof (err as { code?: unknown } | null)?.code === "string";
}

/** The command's error, as KvUnavailableError when it says the server cannot be reached or serve now. */
function classified(err: unknown): unknown {
  return isUnavailable(err) ? new KvUnavailableError(`Redis: ${(err as Error).message}`, { cause: err }) : err;
}

const rejectClassified = (err: unknown): never => {
  throw classified(err);
};

/** Runs a Lua script by its SHA1 (EVALSHA: the text is sent only once per server restart). */
class Script {
  readonly sha1: string;
  constructor(readonly source: string) {
    this.sha1 = createHash("sha1").update(source).digest("hex");
  }
  async run(client: RedisClient, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await client.evalSha(this.sha1, { keys, arguments: args });
    } catch (err) {
      if (!String((err as Error)?.message).startsWith("NOSCRIPT")) throw classified(err);
      return client.eval(this.source, { keys, arguments: args }).catch(rejectClassified);
    }
  }
}
type RedisClient = ReturnType<typeof createRedisClient>;

const incrementAll = new Script(INCREMENT_ALL);
const incrementIfPrefixed = new Script(INCREMENT_IF_PREFIXED);
const compareAndSetScript = new Script(COMPARE_AND_SET);
const compareAndDeleteScript = new Script(COMPARE_AND_DELETE);

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
  static async connect(url: string, prefix: string, logger?: Pick<Logger, "warn" | "info">): Promise<RedisKv> {
    const client = createRedisClient(url);
    // Without a listener an unreachable server would crash the process; commands still reject,
    // and the client reconnects by itself. An outage is logged once, and so is its end.
    let reachable = true;
    client.on("error", (err: Error) => {
      if (!reachable || !client.isOpen) return;
      reachable = false;
      logger?.warn({ err: err.message }, "Redis is unreachable; reconnecting (what each use does meanwhile: docs/decisions.md, Redis outage)");
    });
    client.on("ready", () => {
      if (reachable) return;
      reachable = true;
      logger?.info("Redis is reachable again");
    });
    await client.connect();
    return new RedisKv(client, prefix);
  }

  private k(key: string) {
    return this.prefix + key;
  }

  async get(key: string) {
    return (await this.client.get(this.k(key)).catch(rejectClassified)) as string | null;
  }

  async set(key: string, value: string, options: { ttlMs: number; onlyIfAbsent?: boolean }) {
    const reply = await this.client
      .set(this.k(key), value, {
        expiration: { type: "PX", value: Math.max(1, Math.ceil(options.ttlMs)) },
        ...(options.onlyIfAbsent ? { condition: "NX" as const } : {}),
      })
      .catch(rejectClassified);
    return reply === "OK";
  }

  async compareAndSet(key: string, expected: string, value: string, ttlMs: number) {
    const reply = await compareAndSetScript.run(this.client, [this.k(key)], [expected, value, String(Math.max(1, Math.ceil(ttlMs)))]);
    return Number(reply) === 1;
  }

  async compareAndDelete(key: string, expected: string) {
    const reply = await compareAndDeleteScript.run(this.client, [this.k(key)], [expected]);
    return Number(reply) === 1;
  }

  async increment(key: string, ttlMs: number): Promise<CounterState> {
    return (await this.incrementAll([{ key, ttlMs }]))[0]!;
  }

  async incrementAll(counters: readonly CounterSpec[]): Promise<CounterState[]> {
    const reply = (await incrementAll.run(
      this.client,
      counters.map((c) => this.k(c.key)),
      counters.map(countArgument),
    )) as number[];
    return counters.map((_c, i) => ({ value: Number(reply[2 * i]), ttlMs: Number(reply[2 * i + 1]) }));
  }

  async incrementIfPrefixed(key: string, prefix: string, counters: readonly CounterSpec[]) {
    const reply = (await incrementIfPrefixed.run(
      this.client,
      [this.k(key), ...counters.map((c) => this.k(c.key))],
      [prefix, String(counters.length), ...counters.map(countArgument)],
    )) as [string | null, ...number[]];
    const value = typeof reply[0] === "string" ? reply[0] : null;
    if (reply.length === 1) return { value, counts: null };
    const counts = counters.map((_c, i) => ({ value: Number(reply[1 + 2 * i]), ttlMs: Number(reply[2 + 2 * i]) }));
    return { value, counts };
  }

  async ttlMs(key: string) {
    const ttl = Number(await this.client.pTTL(this.k(key)).catch(rejectClassified));
    return ttl < 0 ? null : ttl;
  }

  async close() {
    if (this.client.isOpen) await this.client.close();
  }
}
