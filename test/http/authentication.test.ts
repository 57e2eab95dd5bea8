// Bearer tokens sbt_live_<id>_<secret>: anything else, and deleted or expired tokens, answer
// 401 AUTHENTICATION_REQUIRED; deletion takes effect on the next call.
import assert from "node:assert/strict";
import { request } from "node:http";
import { startApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { createTestCreator } from "../helpers/fixtures.ts";
import { TestClock } from "../helpers/clock.ts";
import { testDatabase } from "../helpers/backends.ts";
import { useApiWithCreator } from "../helpers/suite.ts";

describe("authentication", () => {
  const suite = useApiWithCreator();

  const attempt = (authorization: string | undefined) =>
    new ApiClient(suite.api.url).get("/v1/teams/current", authorization === undefined ? {} : { headers: { authorization } });

  it("accepts a live token", async () => {
    const res = await attempt(`Bearer ${suite.creator.token}`);
    assert.equal(res.status, 200);
  });

  it("refuses a missing, malformed, unknown, test-environment or forged token with 401", async () => {
    const [, , id, secret] = suite.creator.token.split("_");
    const cases: Record<string, string | undefined> = {
      "no header": undefined,
      "basic scheme": `Basic ${Buffer.from("a:b").toString("base64")}`,
      "bearer without value": "Bearer ",
      "not a token": "Bearer hello",
      "test environment": `Bearer sbt_test_${id}_${secret}`,
      "unknown id": `Bearer sbt_live_999999999_${secret}`,
      "wrong secret": `Bearer sbt_live_${id}_${"A".repeat(40)}`,
      "secret too short": `Bearer sbt_live_${id}_abc`,
      "id with leading zero": `Bearer sbt_live_0${id}_${secret}`,
    };
    for (const [label, header] of Object.entries(cases)) {
      const res = await attempt(header);
      const error = expectError(res, 401, "AUTHENTICATION_REQUIRED");
      assert.ok(error.message, label);
      assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="SubBridge API"', label);
      assert.equal(res.headers.get("x-ratelimit-limit"), null, `${label}: no rate-limit headers before authentication`);
    }
    const testEnv = await attempt(`Bearer sbt_test_${id}_${secret}`);
    assert.match(testEnv.body.error.message, /another environment/);
  });

  it("answers a write without a valid credential before reading its body: an unauthenticated body is never read", async () => {
    // The body announced is never sent: a server that read it first would wait for it.
    const { hostname, port } = new URL(suite.api.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          hostname,
          port,
          method: "POST",
          path: "/v1/teams",
          headers: {
            authorization: "Bearer sbt_live_1_notasecret",
            "content-type": "application/json",
            "content-length": "1000000",
            "idempotency-key": "k",
          },
        },
        (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on("error", reject);
      req.write('{"name":');
    });
    assert.equal(answer.status, 401);
    assert.equal(JSON.parse(answer.body).error.code, "AUTHENTICATION_REQUIRED");
  });

  it("stops accepting a deleted token on the very next call", async () => {
    const other = await createTestCreator();
    const client = new ApiClient(suite.api.url, other.token);
    assert.equal((await client.get("/v1/teams/current")).status, 200);
    assert.equal((await client.delete(`/v1/tokens/${other.tokenId}`)).status, 204);
    expectError(await client.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
  });

  it("refuses a token once its expiry has passed", async () => {
    const clock = new TestClock();
    const timed = await startApi({ clock });
    try {
      const client = new ApiClient(timed.url, suite.creator.token);
      const expiresAt = new Date(clock.nowMs() + 60_000).toISOString();
      const minted = await client.post("/v1/tokens", { name: "short-lived", abilities: ["team:view"], expires_at: expiresAt });
      assert.equal(minted.status, 201);
      assert.equal(minted.body.data.expires_at, expiresAt);
      const shortLived = new ApiClient(timed.url, minted.body.token);
      assert.equal((await shortLived.get("/v1/teams/current")).status, 200);
      clock.advance(60_000);
      expectError(await shortLived.get("/v1/teams/current"), 401, "AUTHENTICATION_REQUIRED");
    } finally {
      await timed.close();
    }
  });

  it("records when a token was last used, at most once a minute", async () => {
    const clock = new TestClock();
    const timed = await startApi({ clock });
    const { db } = await testDatabase();
    try {
      const fresh = await createTestCreator();
      const client = new ApiClient(timed.url, fresh.token);
      await client.get("/v1/teams/current");
      const first = (await db("personal_access_tokens").where({ id: fresh.tokenId }).first()).last_used_at;
      assert.equal(new Date(first).getTime(), clock.nowMs());
      clock.advance(30_000);
      await client.get("/v1/teams/current");
      assert.equal(
        new Date((await db("personal_access_tokens").where({ id: fresh.tokenId }).first()).last_used_at).getTime(),
        new Date(first).getTime(),
      );
      clock.advance(31_000);
      await client.get("/v1/teams/current");
      assert.equal(new Date((await db("personal_access_tokens").where({ id: fresh.tokenId }).first()).last_used_at).getTime(), clock.nowMs());
    } finally {
      await timed.close();
    }
  });

  it("stores only a hash of the secret", async () => {
    const { db } = await testDatabase();
    const row = await db("personal_access_tokens").where({ id: suite.creator.tokenId }).first();
    const secret = suite.creator.token.split("_").pop()!;
    assert.ok(!JSON.stringify(row).includes(secret));
    assert.match(row.secret_hash, /^[0-9a-f]{64}$/);
  });
});
