// Resolved credentials are kept in the KV store so an authenticated request costs no query of its
// own, and every rule stays exact: a deleted token is refused on the very next call, by every
// process sharing the store, even while its resolution is cached.
import assert from "node:assert/strict";
import { startApi, type RunningApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { createTestCreator, tokenFor, type TestCreator } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";
import { connectMcp, startMcp, type RunningMcp } from "../helpers/mcp.ts";

describe("credential cache", () => {
  let a: RunningApi;
  let b: RunningApi;
  let mcp: RunningMcp;
  let creator: TestCreator;
  before(async () => {
    a = await startApi({ sharedKv: "credential-cache" });
    b = await startApi({ sharedKv: "credential-cache" });
    mcp = await startMcp({ sharedKv: "credential-cache" });
    creator = await createTestCreator();
  });
  after(async () => {
    await Promise.all([a.close(), b.close(), mcp.close()]);
  });

  /** The SQL statements `work` sends (knex's query event on the run's database). */
  async function queriesDuring(work: () => Promise<unknown>): Promise<string[]> {
    const { db } = await testDatabase();
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    db.on("query", listener);
    try {
      await work();
    } finally {
      db.off("query", listener);
    }
    return seen;
  }

  it("answers a repeated authenticated read with the handler's query alone", async () => {
    const client = new ApiClient(a.url, creator.token);
    await client.get("/v1/teams/current"); // resolves and caches the credential
    const sql = await queriesDuring(() => client.get("/v1/teams/current"));
    assert.equal(sql.length, 1, sql.join("\n"));
    assert.match(sql[0]!, /from "teams"/);
  });

  it("still checks the secret and the expiry of a cached credential", async () => {
    const minted = await tokenFor(creator, ["team:view"]);
    assert.equal((await new ApiClient(a.url, minted.token).get("/v1/teams/current")).status, 200);
    const forged = minted.token.replace(/_[A-Za-z0-9]+$/, `_${"x".repeat(40)}`);
    expectError(await new ApiClient(a.url, forged).get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
  });

  it("refuses a deleted token on the next call in every process, REST and MCP alike, while it was cached everywhere", async () => {
    const victim = await tokenFor(creator, ["team:view", "token:delete"]);
    const onA = new ApiClient(a.url, victim.token);
    const onB = new ApiClient(b.url, victim.token);
    const overMcp = await connectMcp(mcp, victim.token);
    try {
      assert.equal((await onA.get("/v1/teams/current")).status, 200);
      assert.equal((await onB.get("/v1/teams/current")).status, 200);
      assert.notEqual((await overMcp.callTool({ name: "get_current_team", arguments: {} })).isError, true);
      // Deleted through process A...
      assert.equal((await new ApiClient(a.url, creator.token).delete(`/v1/tokens/${victim.id}`)).status, 204);
      // ...and refused by B and by the MCP server at once.
      expectError(await onB.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
      expectError(await onA.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
      await assert.rejects(
        overMcp.callTool({ name: "get_current_team", arguments: {} }),
        (err: Error & { status?: number }) => err.status === 401 || /401/.test(err.message),
      );
    } finally {
      await overMcp.close();
    }
  });

  it("refuses a token that deleted itself over MCP on its next REST call", async () => {
    const victim = await tokenFor(creator, ["team:view", "token:delete"]);
    const client = new ApiClient(b.url, victim.token);
    assert.equal((await client.get("/v1/teams/current")).status, 200);
    const overMcp = await connectMcp(mcp, victim.token);
    try {
      const result = await overMcp.callTool({ name: "delete_token", arguments: { token_id: victim.id } });
      assert.notEqual(result.isError, true, JSON.stringify(result));
    } finally {
      await overMcp.close();
    }
    expectError(await client.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
  });
});
