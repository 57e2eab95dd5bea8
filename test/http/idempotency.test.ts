// Idempotency-Key on every write, exactly as the description's replay table says: the lock shared
// across app instances through the KV store, the kept response committed with the write itself.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { startApi } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { tokenFor } from "../helpers/fixtures.ts";
import { testDatabase } from "../helpers/backends.ts";
import { TestClock } from "../helpers/clock.ts";
import { idempotencyRecordKey } from "../../src/apps/api/idempotency.ts";
import { IDEMPOTENCY_TTL_MS } from "../../src/modules/idempotency/records.ts";
import { sha256Hex } from "../../src/security/crypto.ts";

async function tokensNamed(userId: string, name: string): Promise<number> {
  const { db } = await testDatabase();
  const row = await db("personal_access_tokens").where({ user_id: userId, name }).count({ n: "*" }).first();
  return Number(row?.n);
}

/** The response kept under a record key, as stored (body encrypted). */
async function keptRow(recordKey: string): Promise<{ status: number; body: string; created_at: Date } | undefined> {
  const { db } = await testDatabase();
  return db("idempotency_records")
    .where({ record_key: sha256Hex(recordKey) })
    .first("status", "body", "created_at");
}

describe("idempotency", () => {
  const suite = useApiWithCreator();

  const mint = (name: string) => ({ name, abilities: ["team:view"] });

  it("refuses a write without Idempotency-Key with 400 IDEMPOTENCY_KEY_MISSING", async () => {
    expectError(await suite.client.post("/v1/tokens", mint("no key"), { idempotencyKey: null }), 400, "IDEMPOTENCY_KEY_MISSING");
    expectError(await suite.client.post("/v1/tokens", mint("empty key"), { headers: { "idempotency-key": "" } }), 400, "IDEMPOTENCY_KEY_MISSING");
    expectError(await suite.client.delete(`/v1/tokens/${suite.creator.tokenId}`, { idempotencyKey: null }), 400, "IDEMPOTENCY_KEY_MISSING");
    assert.equal(await tokensNamed(suite.creator.userId, "no key"), 0);
  });

  it("needs no key on reads and public routes", async () => {
    assert.equal((await suite.client.get("/v1/tokens")).status, 200);
    assert.equal((await new ApiClient(suite.api.url).get("/v1/ping")).status, 200);
  });

  it("replays the first response for the same key and raw body, with the same status", async () => {
    const key = crypto.randomUUID();
    const first = await suite.client.post("/v1/tokens", mint("replayed"), { idempotencyKey: key });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get("idempotent-replay"), null);
    const again = await suite.client.post("/v1/tokens", mint("replayed"), { idempotencyKey: key });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replay"), "true");
    assert.deepEqual(again.body, first.body);
    assert.notEqual(again.headers.get("x-request-id"), first.headers.get("x-request-id"));
    assert.equal(await tokensNamed(suite.creator.userId, "replayed"), 1);
  });

  it("compares raw bytes: the same JSON written differently is a different body (409)", async () => {
    const key = crypto.randomUUID();
    const headers = { "content-type": "application/json" };
    assert.equal(
      (await suite.client.request("POST", "/v1/tokens", { rawBody: '{"name":"bytes","abilities":["team:view"]}', headers, idempotencyKey: key }))
        .status,
      201,
    );
    const spaced = await suite.client.request("POST", "/v1/tokens", {
      rawBody: '{"name": "bytes", "abilities": ["team:view"]}',
      headers,
      idempotencyKey: key,
    });
    expectError(spaced, 409, "IDEMPOTENCY_KEY_REUSED");
  });

  it("refuses the same key with a different body with 409 IDEMPOTENCY_KEY_REUSED", async () => {
    const key = crypto.randomUUID();
    assert.equal((await suite.client.post("/v1/tokens", mint("first body"), { idempotencyKey: key })).status, 201);
    expectError(await suite.client.post("/v1/tokens", mint("second body"), { idempotencyKey: key }), 409, "IDEMPOTENCY_KEY_REUSED");
    assert.equal(await tokensNamed(suite.creator.userId, "second body"), 0);
  });

  it("keys records on token, method and path as well as the key", async () => {
    const key = crypto.randomUUID();
    assert.equal((await suite.client.post("/v1/tokens", mint("per token"), { idempotencyKey: key })).status, 201);
    const other = await tokenFor(suite.creator, ["token:create", "team:view"]);
    const res = await new ApiClient(suite.api.url, other.token).post("/v1/tokens", mint("per token"), { idempotencyKey: key });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("idempotent-replay"), null);
    assert.equal(await tokensNamed(suite.creator.userId, "per token"), 2);
    const victim = await tokenFor(suite.creator, ["team:view"]);
    const del = await suite.client.delete(`/v1/tokens/${victim.id}`, { idempotencyKey: key });
    assert.equal(del.status, 204);
    assert.equal(del.headers.get("idempotent-replay"), null);
  });

  it("keeps only 2xx JSON responses: a delete's bodiless 204 runs again and finds nothing", async () => {
    const victim = await tokenFor(suite.creator, ["team:view"]);
    const key = crypto.randomUUID();
    assert.equal((await suite.client.delete(`/v1/tokens/${victim.id}`, { idempotencyKey: key })).status, 204);
    const recordKey = idempotencyRecordKey(suite.creator.tokenId, "DELETE", `/v1/tokens/${victim.id}`, key);
    assert.equal(await suite.api.deps.kv.get(recordKey), null, "the lock is given back");
    assert.equal(await keptRow(recordKey), undefined, "no response is kept for a 204");
    const again = await suite.client.delete(`/v1/tokens/${victim.id}`, { idempotencyKey: key });
    expectError(again, 404, "RESOURCE_NOT_FOUND");
    assert.equal(again.headers.get("idempotent-replay"), null);
  });

  it("does not keep errors: a refused request with the same key runs again", async () => {
    const narrowToken = await tokenFor(suite.creator, ["token:create", "team:view"]);
    const narrow = new ApiClient(suite.api.url, narrowToken.token);
    const key = crypto.randomUUID();
    const body = { name: "too wide", abilities: ["project:view"] };
    expectError(await narrow.post("/v1/tokens", body, { idempotencyKey: key }), 403, "TOKEN_MISSING_ABILITY");
    const again = await narrow.post("/v1/tokens", body, { idempotencyKey: key });
    expectError(again, 403, "TOKEN_MISSING_ABILITY");
    assert.equal(again.headers.get("idempotent-replay"), null);
    assert.equal(await keptRow(idempotencyRecordKey(narrowToken.id, "POST", "/v1/tokens", key)), undefined);
    const fixed = await narrow.post("/v1/tokens", { name: "fits", abilities: ["team:view"] }, { idempotencyKey: key });
    assert.equal(fixed.status, 201, "an uncached error leaves the key free for a corrected body");
  });

  it("takes the lock only once the write is authorized and valid, then replays and refuses repeats", async () => {
    const kv = suite.api.deps.kv;
    const set = kv.set.bind(kv);
    const locks: string[] = [];
    kv.set = (key, value, options) => {
      if (options.onlyIfAbsent && key.startsWith("idem:")) locks.push(key);
      return set(key, value, options);
    };
    try {
      const key = crypto.randomUUID();
      expectError(await suite.client.post("/v1/tokens", { name: "" }, { idempotencyKey: key }), 422, "VALIDATION_FAILED");
      assert.deepEqual(locks, [], "an invalid write takes no lock");
      const first = await suite.client.post("/v1/tokens", mint("locked once valid"), { idempotencyKey: key });
      assert.equal(first.status, 201);
      assert.equal(locks.length, 1);
      const again = await suite.client.post("/v1/tokens", mint("locked once valid"), { idempotencyKey: key });
      assert.equal(again.headers.get("idempotent-replay"), "true");
      assert.deepEqual(again.body, first.body);
      expectError(await suite.client.post("/v1/tokens", mint("other body"), { idempotencyKey: key }), 409, "IDEMPOTENCY_KEY_REUSED");
    } finally {
      kv.set = set;
    }
    assert.equal(await tokensNamed(suite.creator.userId, "locked once valid"), 1);
  });

  it("leaves the key free when the request is refused before it runs (ability, validation, rate limit)", async () => {
    const kv = suite.api.deps.kv;
    const narrow = await tokenFor(suite.creator, ["team:view"]);
    const narrowClient = new ApiClient(suite.api.url, narrow.token);
    assert.equal((await narrowClient.get("/v1/teams/current")).status, 200); // cached resolution
    const refusedKey = crypto.randomUUID();
    expectError(await narrowClient.post("/v1/tokens", mint("no ability"), { idempotencyKey: refusedKey }), 403, "TOKEN_MISSING_ABILITY");
    assert.equal(await kv.get(idempotencyRecordKey(narrow.id, "POST", "/v1/tokens", refusedKey)), null);

    const invalidKey = crypto.randomUUID();
    expectError(await suite.client.post("/v1/tokens", { name: "" }, { idempotencyKey: invalidKey }), 422, "VALIDATION_FAILED");
    assert.equal(await kv.get(idempotencyRecordKey(suite.creator.tokenId, "POST", "/v1/tokens", invalidKey)), null);
    const corrected = await suite.client.post("/v1/tokens", mint("corrected"), { idempotencyKey: invalidKey });
    assert.equal(corrected.status, 201, "the key is free for the corrected body");

    const limited = await startApi({ budget: [{ name: "tight", limit: 1, windowMs: 60_000 }] });
    try {
      const client = new ApiClient(limited.url, suite.creator.token);
      assert.equal((await client.get("/v1/teams/current")).status, 200); // spends the budget, caches the resolution
      const key = crypto.randomUUID();
      expectError(await client.post("/v1/tokens", mint("over budget"), { idempotencyKey: key }), 429, "RATE_LIMITED");
      assert.equal(await limited.deps.kv.get(idempotencyRecordKey(suite.creator.tokenId, "POST", "/v1/tokens", key)), null);
    } finally {
      await limited.close();
    }
    assert.equal(await tokensNamed(suite.creator.userId, "over budget"), 0);
  });

  it("answers 425 IDEMPOTENCY_REPLAY_IN_PROGRESS while the first request runs, then runs once it is released", async () => {
    // The first request is held by another process: its lock is in the shared KV store, exactly as
    // runIdempotently writes it. (A handler paused inside its transaction cannot stand in for it
    // on the embedded database, whose single connection the paused transaction would hold.)
    const key = crypto.randomUUID();
    const body = JSON.stringify(mint("in flight"));
    const recordKey = idempotencyRecordKey(suite.creator.tokenId, "POST", "/v1/tokens", key);
    const lock = JSON.stringify({ state: "running", hash: createHash("sha256").update(body).digest("hex"), owner: "another-process" });
    await suite.api.deps.kv.set(recordKey, lock, { ttlMs: 60_000, onlyIfAbsent: true });
    const headers = { "content-type": "application/json" };
    const during = await suite.client.request("POST", "/v1/tokens", { rawBody: body, headers, idempotencyKey: key });
    expectError(during, 425, "IDEMPOTENCY_REPLAY_IN_PROGRESS");
    assert.equal(during.headers.get("retry-after"), "1");
    expectError(await suite.client.post("/v1/tokens", mint("in flight, other body"), { idempotencyKey: key }), 409, "IDEMPOTENCY_KEY_REUSED");
    assert.equal(await tokensNamed(suite.creator.userId, "in flight"), 0);
    await suite.api.deps.kv.compareAndDelete(recordKey, lock);
    const after = await suite.client.request("POST", "/v1/tokens", { rawBody: body, headers, idempotencyKey: key });
    assert.equal(after.status, 201);
    assert.equal(await tokensNamed(suite.creator.userId, "in flight"), 1);
  });

  it("lets exactly one of 20 concurrent writes with one key take effect", async () => {
    const key = crypto.randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => suite.client.post("/v1/tokens", mint("concurrent"), { idempotencyKey: key })),
    );
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replay") === null);
    const replayed = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replay") === "true");
    const inProgress = responses.filter((r) => r.status === 425);
    assert.equal(fresh.length, 1);
    assert.equal(fresh.length + replayed.length + inProgress.length, 20, responses.map((r) => r.status).join(","));
    for (const r of replayed) assert.deepEqual(r.body, fresh[0]!.body);
    assert.equal(await tokensNamed(suite.creator.userId, "concurrent"), 1);
  });

  it("shares records between app instances using the same KV store", async () => {
    const one = await startApi({ sharedKv: "idempotency-shared" });
    const two = await startApi({ sharedKv: "idempotency-shared" });
    try {
      const key = crypto.randomUUID();
      const first = await new ApiClient(one.url, suite.creator.token).post("/v1/tokens", mint("two instances"), { idempotencyKey: key });
      assert.equal(first.status, 201);
      const second = await new ApiClient(two.url, suite.creator.token).post("/v1/tokens", mint("two instances"), { idempotencyKey: key });
      assert.equal(second.headers.get("idempotent-replay"), "true");
      assert.deepEqual(second.body, first.body);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          new ApiClient(i % 2 ? one.url : two.url, suite.creator.token).post("/v1/tokens", mint("spread"), { idempotencyKey: "spread-key" }),
        ),
      );
      assert.equal(responses.filter((r) => r.status === 201 && !r.headers.get("idempotent-replay")).length, 1);
      assert.equal(await tokensNamed(suite.creator.userId, "spread"), 1);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("keeps the response with the write's own transaction: a repeat whose lock is gone replays it, never runs twice", async () => {
    // The lock is lost as it is when a process stops between COMMIT and its answer and the lock
    // expires, or when the KV store is flushed: the kept response, committed with the write, answers.
    const key = crypto.randomUUID();
    const first = await suite.client.post("/v1/tokens", mint("lock lost"), { idempotencyKey: key });
    assert.equal(first.status, 201);
    const recordKey = idempotencyRecordKey(suite.creator.tokenId, "POST", "/v1/tokens", key);
    const lock = (await suite.api.deps.kv.get(recordKey))!;
    assert.match(lock, /"running"/, "the lock stays until it expires");
    assert.ok(await suite.api.deps.kv.compareAndDelete(recordKey, lock));
    const again = await suite.client.post("/v1/tokens", mint("lock lost"), { idempotencyKey: key });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replay"), "true");
    assert.deepEqual(again.body, first.body);
    assert.equal(await suite.api.deps.kv.get(recordKey), null, "the repeat's own lock is given back");
    expectError(await suite.client.post("/v1/tokens", mint("lock lost, other body"), { idempotencyKey: key }), 409, "IDEMPOTENCY_KEY_REUSED");
    assert.equal(await tokensNamed(suite.creator.userId, "lock lost"), 1);
    assert.equal(await tokensNamed(suite.creator.userId, "lock lost, other body"), 0, "the refused repeat rolled back");
  });

  it("keeps a response 24 hours, with the body encrypted, then runs the request anew", async () => {
    const clock = new TestClock();
    const timed = await startApi({ clock });
    try {
      const timedClient = new ApiClient(timed.url, suite.creator.token);
      const key = crypto.randomUUID();
      const first = await timedClient.post("/v1/tokens", mint("day"), { idempotencyKey: key });
      const recordKey = idempotencyRecordKey(suite.creator.tokenId, "POST", "/v1/tokens", key);
      const stored = (await keptRow(recordKey))!;
      assert.equal(stored.status, 201);
      assert.ok(!stored.body.includes(first.body.token) && !stored.body.includes("day"), "the kept body is encrypted");
      assert.equal(new Date(stored.created_at).getTime(), clock.now().getTime());
      assert.equal(IDEMPOTENCY_TTL_MS, 24 * 3600 * 1000);
      // Locks live minutes, kept responses a day: past the lock (given back here, whichever KV store
      // runs the test), the kept response still answers for 24 hours.
      const releaseLock = async () => {
        const lock = await timed.deps.kv.get(recordKey);
        if (lock) await timed.deps.kv.compareAndDelete(recordKey, lock);
      };
      await releaseLock();
      clock.advance(IDEMPOTENCY_TTL_MS - 1);
      assert.equal((await timedClient.post("/v1/tokens", mint("day"), { idempotencyKey: key })).headers.get("idempotent-replay"), "true");
      await releaseLock();
      clock.advance(1);
      // Not purged yet: the expired response is forgotten as the request runs anew.
      const later = await timedClient.post("/v1/tokens", mint("day"), { idempotencyKey: key });
      assert.equal(later.status, 201);
      assert.equal(later.headers.get("idempotent-replay"), null);
      assert.notEqual(later.body.token, first.body.token);
      assert.equal(await tokensNamed(suite.creator.userId, "day"), 2);
      assert.equal(new Date((await keptRow(recordKey))!.created_at).getTime(), clock.now().getTime(), "the new response is kept");
    } finally {
      await timed.close();
    }
  });
});
