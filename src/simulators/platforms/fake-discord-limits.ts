// The simulated Discord's rate limits (fake-discord.ts): every bot call counts against its route's
// bucket (the route with its ids replaced, split by the guild, channel or webhook it is about) and
// carries Discord's X-RateLimit-* headers; a call past the bucket's limit is answered 429 as Discord
// does. A test can ask for the next calls to answer 429 (throttle), with the global flag or not.
import type { ServerResponse } from "node:http";
import { createHash } from "node:crypto";

/** The buckets' size unless a test sets another: generous, so only a test that means to meets it. */
const DEFAULT_LIMIT = 50;
const DEFAULT_RESET_AFTER_MS = 1_000;
/** Buckets kept before the expired ones are dropped (many tests, each with its own guilds). */
const PRUNE_ABOVE = 10_000;

export function createDiscordLimits(send: (res: ServerResponse, status: number, body?: unknown) => void) {
  let limit = DEFAULT_LIMIT;
  let resetAfterMs = DEFAULT_RESET_AFTER_MS;
  const windows = new Map<string, { count: number; resetAt: number }>();
  const throttle = { times: 0, seconds: 0, global: false };
  let answered429 = 0;

  const tooMany = (res: ServerResponse, seconds: number, global: boolean) => {
    answered429++;
    res.setHeader("retry-after", String(Math.ceil(seconds)));
    res.setHeader("x-ratelimit-scope", global ? "global" : "user");
    if (global) res.setHeader("x-ratelimit-global", "true");
    send(res, 429, { message: "You are being rate limited.", retry_after: Number(seconds.toFixed(3)), global });
  };

  /** Counts a bot call (`route`: its method and path with ids replaced); answers its 429 and true when it is held back. */
  function limited(res: ServerResponse, route: string, path: string): boolean {
    if (throttle.times > 0) {
      throttle.times -= 1;
      tooMany(res, throttle.seconds, throttle.global);
      return true;
    }
    const now = Date.now();
    if (windows.size > PRUNE_ABOVE) for (const [key, w] of windows) if (w.resetAt <= now) windows.delete(key);
    const major = /^\/(?:guilds|channels|webhooks)\/([0-9]+)/.exec(path)?.[1] ?? "";
    const key = `${route} ${major}`;
    let window = windows.get(key);
    if (!window || window.resetAt <= now) windows.set(key, (window = { count: 0, resetAt: now + resetAfterMs }));
    window.count += 1;
    const resetAfter = (window.resetAt - now) / 1000;
    res.setHeader("x-ratelimit-bucket", createHash("sha256").update(route).digest("hex").slice(0, 16));
    res.setHeader("x-ratelimit-limit", String(limit));
    res.setHeader("x-ratelimit-remaining", String(Math.max(0, limit - window.count)));
    res.setHeader("x-ratelimit-reset", (window.resetAt / 1000).toFixed(3));
    res.setHeader("x-ratelimit-reset-after", resetAfter.toFixed(3));
    if (window.count <= limit) return false;
    tooMany(res, resetAfter, false);
    return true;
  }

  return {
    limited,
    /** The next `times` bot calls answer 429 with retry_after `seconds` (global: the whole bot's limit). */
    throttle(times: number, seconds: number, options: { global?: boolean } = {}) {
      Object.assign(throttle, { times, seconds, global: options.global ?? false });
    },
    /** Every bucket's size from now on (`null`: the default, 50 calls a second); counts start again. */
    setLimit(bucket: { limit: number; resetAfterSeconds: number } | null) {
      limit = bucket?.limit ?? DEFAULT_LIMIT;
      resetAfterMs = bucket ? bucket.resetAfterSeconds * 1000 : DEFAULT_RESET_AFTER_MS;
      windows.clear();
    },
    /** How many calls were answered 429 so far. */
    answered429: () => answered429,
  };
}
