// MCP budgets: 120 requests per minute per token, 5 per minute per IP without a valid token;
// a spent budget answers 429 with Retry-After. Time is a test clock, never a sleep.
import assert from "node:assert/strict";
import { MCP_BUDGET, UNAUTHENTICATED_MCP_BUDGET } from "../../src/pipeline/rate-limit.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { TestClock } from "../helpers/clock.ts";
import { connectMcp, rawRpc, startMcp, type RunningMcp } from "../helpers/mcp.ts";

/**
 * 15 seconds into a minute: a spent one-minute window asks for the 45 seconds to its end, plus the
 * time its count (refusals included) takes to fade below the limit in the sliding minute.
 */
const clockAtQuarterPast = () => new TestClock(Math.floor(Date.now() / 60_000) * 60_000 + 15_000);

describe("mcp rate limits", () => {
  let creator: TestCreator;
  const running: RunningMcp[] = [];
  const start = async (options: Parameters<typeof startMcp>[0]) => {
    const mcp = await startMcp(options);
    running.push(mcp);
    return mcp;
  };
  before(async () => {
    creator = await createTestCreator();
  });
  after(() => Promise.all(running.map((m) => m.close())));

  it("uses 120 per minute per token and 5 per minute per IP by default", async () => {
    assert.deepEqual(MCP_BUDGET, [{ name: "mcp-minute", limit: 120, windowMs: 60_000 }]);
    assert.deepEqual(UNAUTHENTICATED_MCP_BUDGET, [{ name: "mcp-anonymous-minute", limit: 5, windowMs: 60_000 }]);
    const mcp = await start({ clock: clockAtQuarterPast() });
    assert.equal(mcp.deps.budget, MCP_BUDGET);
    assert.equal(mcp.deps.unauthenticatedBudget, UNAUTHENTICATED_MCP_BUDGET);
  });

  it("answers the 121st request of a minute with 429 and Retry-After", async () => {
    const clock = clockAtQuarterPast();
    const mcp = await start({ clock });
    const token = (await tokenFor(creator, ["team:view"])).token;
    for (let i = 1; i <= 120; i++) {
      const res = await rawRpc(mcp, "tools/list", { token, id: i });
      assert.equal(res.status, 200, `request ${i}`);
      assert.equal(res.headers.get("x-ratelimit-remaining"), String(120 - i));
    }
    const spent = await rawRpc(mcp, "tools/call", { token, params: { name: "get_current_team", arguments: {} } });
    assert.equal(spent.status, 429);
    assert.equal(spent.headers.get("retry-after"), "46", "45 + 60 * (1 - 120/121)");
    assert.equal(spent.headers.get("x-ratelimit-limit"), "120");
    assert.equal(spent.headers.get("x-ratelimit-remaining"), "0");
    assert.equal(spent.body.error.code, "RATE_LIMITED");

    // Another token has its own budget; this one is admitted again after Retry-After.
    assert.equal((await rawRpc(mcp, "tools/list", { token: creator.token })).status, 200);
    clock.advance(46_000);
    assert.equal((await rawRpc(mcp, "tools/list", { token })).status, 200);
  });

  it("refuses an SDK client's call once the token's budget is spent", async () => {
    const clock = clockAtQuarterPast();
    const mcp = await start({ clock, budget: [{ name: "mcp-minute", limit: 3, windowMs: 60_000 }] });
    const client = await connectMcp(mcp, creator.token); // 1: server/discover
    try {
      assert.notEqual((await client.callTool({ name: "get_current_team", arguments: {} })).isError, true); // 2
      assert.notEqual((await client.callTool({ name: "get_current_team", arguments: {} })).isError, true); // 3
      await assert.rejects(client.callTool({ name: "get_current_team", arguments: {} }), (err: Error & { status?: number }) => err.status === 429);
      clock.advance(120_000);
      assert.notEqual((await client.callTool({ name: "get_current_team", arguments: {} })).isError, true);
    } finally {
      await client.close();
    }
  });

  it("allows 5 unauthenticated requests per minute per IP, then 429", async () => {
    const clock = clockAtQuarterPast();
    const mcp = await start({ clock });
    for (let i = 1; i <= 5; i++) {
      const res = await rawRpc(mcp, "tools/list", { token: i % 2 ? null : "sbt_live_1_notavalidsecretnotavalidsecret" });
      assert.equal(res.status, 401, `request ${i}`);
    }
    const spent = await rawRpc(mcp, "tools/list", { token: null });
    assert.equal(spent.status, 429);
    assert.equal(spent.headers.get("retry-after"), "56", "45 + 60 * (1 - 5/6)");
    assert.equal(spent.body.error.code, "RATE_LIMITED");
    // A valid token is not held back by its IP's unauthenticated budget.
    assert.equal((await rawRpc(mcp, "tools/list", { token: creator.token })).status, 200);
    clock.advance(56_000);
    assert.equal((await rawRpc(mcp, "tools/list", { token: null })).status, 401);
  });

  it("shares budgets between processes that share the KV store", async () => {
    const clock = clockAtQuarterPast();
    const budget = [{ name: "mcp-minute", limit: 2, windowMs: 60_000 }];
    const a = await start({ clock, budget, sharedKv: "mcp-rate-shared" });
    const b = await start({ clock, budget, sharedKv: "mcp-rate-shared" });
    assert.equal((await rawRpc(a, "tools/list", { token: creator.token })).status, 200);
    assert.equal((await rawRpc(b, "tools/list", { token: creator.token })).status, 200);
    assert.equal((await rawRpc(a, "tools/list", { token: creator.token })).status, 429);
  });
});
