// Discord's rate limits, kept in the KV store so every process sharing it (Redis) shares them; the
// embedded KV, or a process's own when a caller has none, holds them for one process. Before a bot
// call: the bot's invalid-request count (the circuit breaker), a global 429's pause, the route's
// bucket as the headers of earlier answers left it (keyed by route and major parameter: the guild,
// channel or webhook), and the global 50 requests a second. A call waits for them a few seconds at
// most; a longer wait is refused at once as PlatformError("rate_limited") carrying the wait, so the
// caller tries again later (the access ledger keeps the grant and retries it: nothing is lost).
// After the call: the headers become the bucket's state; a 429 pauses its bucket, or the bot when
// global, for retry_after; a 401, 403 or 429 counts toward the breaker.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { KvUnavailableError, type Kv } from "../../../kv/kv.ts";
import { MemoryKv } from "../../../kv/memory.ts";
import { budgetCounters, kvCounters, peekCounters, peekedStateOf, type Window } from "../../../kv/sliding-window.ts";
import { countKvOutage, countPlatformLimit } from "../../../observability/metrics.ts";
import { PlatformError } from "./driver.ts";

/** Discord's global limit: requests per second per bot, across every route. */
export const GLOBAL_PER_SECOND = 50;
/**
 * The longest a call waits for its bucket or the global budget before it is refused (and tried
 * again later by its caller): a sweep or a request held longer would stall everything behind it.
 */
export const MAX_WAIT_MS = 5_000;
/**
 * Invalid requests (401, 403, 429) per bot in INVALID_WINDOW_MS past which calls are refused
 * locally: Cloudflare bans an address after 10,000 in 10 minutes, and a fifth of that leaves room
 * for the calls in flight, a sliding estimate's slack, and several deployments behind one address.
 */
export const INVALID_LIMIT = 2_000;
export const INVALID_WINDOW_MS = 600_000;
/** The shortest pause a 429 imposes (Discord's retry_after is never 0; a zero would spin the retry). */
const MIN_PAUSE_MS = 50;

/** What the driver got back from one call (platformCall's answer). */
export interface BotAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/** A bucket as the last answer's headers left it; `id` names the counter of calls admitted against it since. */
interface BucketState {
  id: string;
  remaining: number;
  resetAt: number;
}

export interface DiscordRateLimitOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  maxWaitMs?: number;
  invalidLimit?: number;
  invalidWindowMs?: number;
  logger?: Pick<Logger, "warn">;
}

const SNOWFLAKE = /^[0-9]+$/;
const MAJOR = new Set(["guilds", "channels", "webhooks"]);

/** A call's route with its ids replaced (`PUT /guilds/:id/members/:id/roles/:id`), and its major parameter. */
export function routeOf(method: string, path: string): { route: string; major: string } {
  const parts = path.split("?")[0]!.split("/");
  const major = MAJOR.has(parts[1] ?? "") && parts[2] ? parts[2] : "";
  const route = parts.map((part, i) => (SNOWFLAKE.test(part) || parts[i - 1] === "invites" ? ":id" : part)).join("/");
  return { route: `${method} ${route}`, major };
}

/** Where limits are counted while the KV store is unreachable, and by a driver given none. */
const inProcess = new MemoryKv();

export class DiscordRateLimits {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxWaitMs: number;
  private readonly invalid: readonly Window[];
  private readonly logger: Pick<Logger, "warn"> | null;
  /** Until when this process has logged the breaker open (one warning per opening). */
  private warnedUntil = 0;

  constructor(
    private readonly kv: Kv,
    options: DiscordRateLimitOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
    this.invalid = [{ name: "invalid", limit: options.invalidLimit ?? INVALID_LIMIT, windowMs: options.invalidWindowMs ?? INVALID_WINDOW_MS }];
    this.logger = options.logger ?? null;
  }

  /**
   * Runs `send`, one call of `bot` (the application's id), within Discord's limits; answers any
   * answer but a 429. A 429 is retried once its pause has passed, while the call's waits stay
   * within maxWaitMs; otherwise, and when the breaker is open, it throws PlatformError("rate_limited").
   */
  async call(bot: string, method: string, path: string, send: () => Promise<BotAnswer>): Promise<BotAnswer> {
    const { route, major } = routeOf(method, path);
    const bucketKey = `discord:${bot}:bucket:${route}:${major}`;
    let waited = 0;
    let refusal: string | null = null;
    for (;;) {
      const wait = await this.admit(bot, bucketKey);
      if (wait > 0) {
        if (waited + wait > this.maxWaitMs) {
          countPlatformLimit("discord", "deferred");
          const seconds = (wait / 1000).toFixed(1);
          throw new PlatformError(
            "rate_limited",
            `Discord's rate limit holds ${method} ${path} for ${seconds} s${refusal ? ` (${refusal})` : ""}; it is tried again later.`,
            null,
            refusal,
            wait,
          );
        }
        countPlatformLimit("discord", "waited");
        await this.sleep(wait);
        waited += wait;
        continue;
      }
      const answer = await send();
      await this.record(bot, bucketKey, answer);
      if (answer.status !== 429) return answer;
      refusal = typeof answer.body?.message === "string" ? answer.body.message : "HTTP 429";
    }
  }

  /** 0 when the call may go now (it is counted against its bucket and the global budget), else how long to wait. */
  private async admit(bot: string, bucketKey: string): Promise<number> {
    const now = this.now();
    const breaker = budgetCounters(`discord-invalid:${bot}`, this.invalid, now);
    const [invalid, pause, bucket] = await this.shared((kv) =>
      Promise.all([kv.incrementAll(peekCounters(breaker)), kv.get(`discord:${bot}:global`), kv.get(bucketKey)]),
    );
    const circuit = peekedStateOf(breaker, invalid, now);
    if (circuit.retryAfter !== null) this.refuse(bot, circuit.retryAfter * 1000);
    const pausedUntil = Number(pause ?? 0);
    if (pausedUntil > now) return pausedUntil - now;
    const state = bucket ? (JSON.parse(bucket) as BucketState) : null;
    const live = state && state.resetAt > now ? state : null;
    const second = Math.floor(now / 1000);
    const counted = await this.shared((kv) =>
      kv.incrementAll([
        ...(live ? [{ key: `discord:${bot}:taken:${live.id}`, ttlMs: live.resetAt - now + 1_000 }] : []),
        { key: `discord:${bot}:second:${second}`, ttlMs: 2_000 },
      ]),
    );
    if (live && counted[0]!.value > live.remaining) return live.resetAt - now;
    if (counted.at(-1)!.value > GLOBAL_PER_SECOND) return (second + 1) * 1000 - now;
    return 0;
  }

  /** What the answer tells of the limits: the bucket's state, a 429's pause, an invalid request. */
  private async record(bot: string, bucketKey: string, answer: BotAnswer): Promise<void> {
    const now = this.now();
    const headers = answer.headers;
    const writes: ((kv: Kv) => Promise<unknown>)[] = [];
    const bucket = (remaining: number, resetAfterMs: number) => (kv: Kv) =>
      kv.set(bucketKey, JSON.stringify({ id: randomUUID(), remaining, resetAt: now + resetAfterMs } satisfies BucketState), {
        ttlMs: Math.max(1, resetAfterMs),
      });
    const scope = headers.get("x-ratelimit-scope");
    if (answer.status === 429) {
      countPlatformLimit("discord", "throttled");
      const seconds = Number(answer.body?.retry_after);
      const pauseMs = Math.max(MIN_PAUSE_MS, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000);
      if (answer.body?.global === true || headers.get("x-ratelimit-global") === "true" || scope === "global")
        writes.push((kv) => kv.set(`discord:${bot}:global`, String(now + pauseMs), { ttlMs: pauseMs }));
      else writes.push(bucket(0, pauseMs));
    } else {
      const remaining = Number(headers.get("x-ratelimit-remaining") ?? NaN);
      const resetAfter = Number(headers.get("x-ratelimit-reset-after") ?? NaN);
      if (Number.isFinite(remaining) && Number.isFinite(resetAfter)) writes.push(bucket(remaining, resetAfter * 1000));
    }
    // Discord counts 401, 403 and 429 toward its ban, except a 429 of a shared resource's limit.
    if (answer.status === 401 || answer.status === 403 || (answer.status === 429 && scope !== "shared"))
      writes.push((kv) => kv.incrementAll(kvCounters(budgetCounters(`discord-invalid:${bot}`, this.invalid, now))));
    if (writes.length) await this.shared((kv) => Promise.all(writes.map((write) => write(kv))));
  }

  /** The breaker is open: the call is refused before it is sent, logged once per opening. */
  private refuse(bot: string, retryAfterMs: number): never {
    countPlatformLimit("discord", "circuit_open");
    const [window] = this.invalid;
    const now = this.now();
    if (now >= this.warnedUntil) {
      this.warnedUntil = now + retryAfterMs;
      this.logger?.warn(
        { bot, limit: window!.limit, window_ms: window!.windowMs, retry_after_ms: retryAfterMs },
        "Discord calls held back: the bot's refused calls (401, 403, 429) neared the count at which Discord bans the address",
      );
    }
    throw new PlatformError(
      "rate_limited",
      `SubBridge holds back Discord calls for ${Math.ceil(retryAfterMs / 1000)} s: the bot had ${window!.limit} refused calls ` +
        `(401, 403, 429) within ${window!.windowMs / 60_000} minutes, and Discord bans an address that keeps making them.`,
      null,
      null,
      retryAfterMs,
    );
  }

  /** `op` on the shared KV store, or in this process while the store is unreachable. */
  private async shared<T>(op: (kv: Kv) => Promise<T>): Promise<T> {
    try {
      return await op(this.kv);
    } catch (err) {
      if (!(err instanceof KvUnavailableError)) throw err;
      countKvOutage("platform_rate_limit");
      return op(inProcess);
    }
  }
}

/** The limits of a driver given none (a test building a driver directly, an operator command): this process's own. */
export const processRateLimits = new DiscordRateLimits(inProcess);
