// What Discord's rate limiter (src/modules/connectors/drivers/discord-rate-limits.ts) adds to a bot
// call: DiscordRateLimits.call around a send that answers at once with Discord's headers, so the
// time measured is the limiter's own (its KV round trips), one call at a time.
//   npx tsx --conditions=subbridge-source scripts/bench/discord-rate-limits.ts                 in-process KV
//   BENCH_REDIS_URL=redis://127.0.0.1:6379 npx tsx --conditions=subbridge-source scripts/bench/discord-rate-limits.ts
// Every bot makes 40 calls (under Discord's global 50 a second, which would otherwise be waited
// for) on one route whose bucket the headers keep open. Keys live seconds (their TTLs); nothing is
// left behind. Printed, never asserted.
import { randomBytes } from "node:crypto";
import { cpus } from "node:os";
import type { Kv } from "../../src/kv/kv.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import { RedisKv } from "../../src/kv/redis.ts";
import { DiscordRateLimits } from "../../src/modules/connectors/drivers/discord-rate-limits.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 4_000);
const headers = new Headers({ "x-ratelimit-limit": "1000", "x-ratelimit-remaining": "999", "x-ratelimit-reset-after": "60" });
const answer = { status: 204, body: null, headers };

async function measure(kv: Kv): Promise<{ medianUs: number; p99Us: number; meanUs: number }> {
  const limits = new DiscordRateLimits(kv);
  const run = randomBytes(4).toString("hex");
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const bot = `bench-${run}-${Math.floor(i / 40)}`;
    const started = process.hrtime.bigint();
    await limits.call(bot, "PUT", "/guilds/1/members/2/roles/3", async () => answer);
    times.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]!);
  return { medianUs: at(0.5), p99Us: at(0.99), meanUs: Math.round(times.reduce((a, b) => a + b, 0) / times.length) };
}

const url = process.env.BENCH_REDIS_URL;
const kv = url ? await RedisKv.connect(url, `subbridge_bench_${randomBytes(4).toString("hex")}:`) : new MemoryKv();
await measure(kv); // warm-up: scripts loaded, code compiled
const result = await measure(kv);
await kv.close();
console.log(JSON.stringify({ backend: url ? "redis" : "in-process", calls: CALLS, cpus: cpus().length, ...result }));
