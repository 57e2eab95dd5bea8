// 300 requests a minute and 10,000 an hour per token; 429 RATE_LIMITED with Retry-After; the
// X-RateLimit headers on every authenticated response; one bucket across app instances.
import assert from "node:assert/strict";
import { startApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { TestClock } from "../helpers/clock.ts";
import { REST_BUDGET } from "../../src/pipeline/rate-limit.ts";

describe("rate limits", () => {
  let creator: TestCreator;
  before(async () => {
    creator = await createTestCreator();
  });

  it("are 300 per minute and 10,000 per hour per token by default", () => {
    assert.deepEqual(
      REST_BUDGET.map((w) => [w.limit, w.windowMs]),
      [
        [300, 60_000],
        [10_000, 3_600_000],
      ],
    );
  });

  it("send X-RateLimit-Limit and X-RateLimit-Remaining on every authenticated response, errors included", async () => {
    const api = await startApi();
    try {
      const token = (await tokenFor(creator, ["team:view"])).token;
      const client = new ApiClient(api.url, token);
      const ok = await client.get("/v1/teams/current");
      assert.equal(ok.headers.get("x-ratelimit-limit"), "300");
      assert.equal(ok.headers.get("x-ratelimit-remaining"), "299");
      const forbidden = await client.get("/v1/tokens");
      expectError(forbidden, 403, "TOKEN_MISSING_ABILITY");
      assert.equal(forbidden.headers.get("x-ratelimit-remaining"), "298");
      const invalid = await client.get("/v1/nothing-here");
      assert.equal(invalid.headers.get("x-ratelimit-limit"), null, "an unknown route is answered before authentication");
      const ping = await new ApiClient(api.url).get("/v1/ping");
      assert.equal(ping.headers.get("x-ratelimit-limit"), null, "public routes are not rate limited");
    } finally {
      await api.close();
    }
  });

  it("answer 429 with Retry-After once the minute is spent, and admit again as the sliding minute moves on", async () => {
    const clock = new TestClock(Date.UTC(2026, 10, 21, 10, 0, 15));
    const api = await startApi({ clock });
    try {
      const client = new ApiClient(api.url, (await tokenFor(creator, ["team:view"])).token);
      for (let i = 0; i < 300; i++) {
        const res = await client.get("/v1/teams/current");
        assert.equal(res.status, 200, `request ${i + 1}`);
      }
      const limited = await client.get("/v1/teams/current");
      expectError(limited, 429, "RATE_LIMITED");
      // 45 s to the minute's end, then the 301 counted fade until fewer than 300 remain: 45 + 60 * (1 - 300/301).
      assert.equal(limited.headers.get("retry-after"), "46");
      assert.equal(limited.headers.get("x-ratelimit-remaining"), "0");
      assert.equal(limited.body.error.context.retry_after, 46);
      clock.advance(44_000);
      expectError(await client.get("/v1/teams/current"), 429, "RATE_LIMITED");
      clock.advance(2_000);
      const admitted = await client.get("/v1/teams/current");
      assert.equal(admitted.status, 200);
      // At 10:01:01 the previous minute's 302 (refusals count too) weigh 59/60: 296, and 297 with this one.
      assert.equal(admitted.headers.get("x-ratelimit-remaining"), "3");
    } finally {
      await api.close();
    }
  });

  it("admit no burst of twice the limit across a window boundary (sliding window)", async () => {
    const clock = new TestClock(Date.UTC(2026, 10, 21, 10, 0, 59, 500));
    const api = await startApi({ clock, budget: [{ name: "minute", limit: 20, windowMs: 60_000 }] });
    try {
      const client = new ApiClient(api.url, (await tokenFor(creator, ["team:view"])).token);
      for (let i = 0; i < 20; i++) assert.equal((await client.get("/v1/teams/current")).status, 200);
      clock.advance(1_000);
      let admitted = 0;
      let retryAfter = 0;
      for (let i = 0; i < 20; i++) {
        const res = await client.get("/v1/teams/current");
        if (res.status === 200) admitted++;
        else retryAfter = Number(res.headers.get("retry-after"));
      }
      // A fixed window would admit all 20 again one second later; the sliding estimate still counts 19 of the 20.
      assert.equal(admitted, 1);
      assert.ok(retryAfter > 1);
      // Refusals count too, so this waits exactly what the last refusal said, without probing earlier.
      clock.advance(retryAfter * 1000);
      assert.equal((await client.get("/v1/teams/current")).status, 200, "admitted again once Retry-After has passed");
    } finally {
      await api.close();
    }
  });

  it("count each token separately", async () => {
    const api = await startApi({ budget: [{ name: "minute", limit: 2, windowMs: 60_000 }] });
    try {
      const one = new ApiClient(api.url, (await tokenFor(creator, ["team:view"])).token);
      const two = new ApiClient(api.url, (await tokenFor(creator, ["team:view"])).token);
      await one.get("/v1/teams/current");
      await one.get("/v1/teams/current");
      expectError(await one.get("/v1/teams/current"), 429, "RATE_LIMITED");
      assert.equal((await two.get("/v1/teams/current")).status, 200);
    } finally {
      await api.close();
    }
  });

  it("apply the hourly window on top of the minute window", async () => {
    const clock = new TestClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const budget = [
      { name: "minute", limit: 3, windowMs: 60_000 },
      { name: "hour", limit: 5, windowMs: 3_600_000 },
    ];
    const api = await startApi({ clock, budget });
    try {
      const client = new ApiClient(api.url, (await tokenFor(creator, ["team:view"])).token);
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) remaining.push((await client.get("/v1/teams/current")).headers.get("x-ratelimit-remaining")!);
      assert.deepEqual(remaining, ["2", "1", "0"]);
      // Two minutes on, the minute's window is empty again (one minute on, the sliding minute still holds the three).
      clock.advance(120_000);
      const fourth = await client.get("/v1/teams/current");
      assert.equal(fourth.headers.get("x-ratelimit-limit"), "3");
      assert.equal(fourth.headers.get("x-ratelimit-remaining"), "1", "the hour has 1 left, fewer than the minute's 2");
      assert.equal((await client.get("/v1/teams/current")).status, 200);
      const limited = await client.get("/v1/teams/current");
      expectError(limited, 429, "RATE_LIMITED");
      // Waits for the hour: 58 minutes to its end, then until its 6 counted fade below 5 (a sixth of an hour).
      assert.equal(limited.headers.get("retry-after"), String(3600 - 120 + 600 + 1), "waits for the hour, not the minute");
    } finally {
      await api.close();
    }
  });

  it("share one bucket between app instances using the same KV store", async () => {
    const budget = [{ name: "minute", limit: 4, windowMs: 60_000 }];
    const one = await startApi({ sharedKv: "rate-shared", budget });
    const two = await startApi({ sharedKv: "rate-shared", budget });
    try {
      const token = (await tokenFor(creator, ["team:view"])).token;
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await new ApiClient(i % 2 ? two.url : one.url, token).get("/v1/teams/current");
        seen.push(res.headers.get("x-ratelimit-remaining")!);
      }
      assert.deepEqual(seen, ["3", "2", "1", "0"]);
      expectError(await new ApiClient(one.url, token).get("/v1/teams/current"), 429, "RATE_LIMITED");
      expectError(await new ApiClient(two.url, token).get("/v1/teams/current"), 429, "RATE_LIMITED");
    } finally {
      await one.close();
      await two.close();
    }
  });
});
