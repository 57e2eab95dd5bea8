// The KV contract, on the in-process store and (when TEST_REDIS_URL is set) on Redis.
import assert from "node:assert/strict";
import { testKv, usingRedis } from "../helpers/backends.ts";
import { MemoryKv } from "../../src/kv/memory.ts";
import type { Kv } from "../../src/kv/kv.ts";

describe(`KV store (${usingRedis ? "Redis" : "in-process"})`, () => {
  let kv: Kv;
  before(async () => {
    kv = await testKv();
  });

  it("sets only if absent when asked", async () => {
    assert.equal(await kv.set("a", "1", { ttlMs: 60_000, onlyIfAbsent: true }), true);
    assert.equal(await kv.set("a", "2", { ttlMs: 60_000, onlyIfAbsent: true }), false);
    assert.equal(await kv.get("a"), "1");
    assert.equal(await kv.set("a", "3", { ttlMs: 60_000 }), true);
    assert.equal(await kv.get("a"), "3");
  });

  it("compares before replacing or deleting", async () => {
    await kv.set("b", "mine", { ttlMs: 60_000 });
    assert.equal(await kv.compareAndSet("b", "theirs", "x", 60_000), false);
    assert.equal(await kv.compareAndSet("b", "mine", "done", 60_000), true);
    assert.equal(await kv.compareAndDelete("b", "mine"), false);
    assert.equal(await kv.compareAndDelete("b", "done"), true);
    assert.equal(await kv.get("b"), null);
  });

  it("increments atomically, setting the ttl once", async () => {
    const results = await Promise.all(Array.from({ length: 25 }, () => kv.increment("c", 60_000)));
    assert.deepEqual(
      results.map((r) => r.value).sort((x, y) => x - y),
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    const ttl = (await kv.ttlMs("c"))!;
    assert.ok(ttl > 50_000 && ttl <= 60_000, String(ttl));
    assert.equal(await kv.ttlMs("missing"), null);
  });

  it("counts only behind a matching prefix, in one atomic step", async () => {
    await kv.set("cred", "abc:resolution", { ttlMs: 60_000 });
    const counter = [{ key: "cred-count", ttlMs: 60_000 }];
    assert.deepEqual(await kv.incrementIfPrefixed("cred", "xyz:", counter), { value: "abc:resolution", counts: null });
    assert.equal(await kv.get("cred-count"), null, "a wrong prefix counts nothing");
    assert.deepEqual(await kv.incrementIfPrefixed("missing", "abc:", counter), { value: null, counts: null });
    const first = await kv.incrementIfPrefixed("cred", "abc:", counter);
    assert.equal(first.counts![0]!.value, 1);
    const second = await kv.incrementIfPrefixed("cred", "abc:", counter);
    assert.equal(second.counts![0]!.value, 2);
    const ttl = (await kv.ttlMs("cred-count"))!;
    assert.ok(ttl > 50_000 && ttl <= 60_000, String(ttl));
  });

  it("reads a peeked counter without creating or counting it, beside the counted ones", async () => {
    const counted = { key: "window-now", ttlMs: 60_000 };
    const previous = { key: "window-before", ttlMs: 0, peek: true };
    assert.deepEqual(
      (await kv.incrementAll([counted, previous])).map((c) => c.value),
      [1, 0],
    );
    assert.equal(await kv.get("window-before"), null, "a peek creates nothing");
    await kv.increment("window-before", 60_000);
    await kv.increment("window-before", 60_000);
    assert.deepEqual(
      (await kv.incrementAll([counted, previous])).map((c) => c.value),
      [2, 2],
    );
    await kv.set("cred-peek", "abc:x", { ttlMs: 60_000 });
    const { counts } = await kv.incrementIfPrefixed("cred-peek", "abc:", [counted, previous]);
    assert.deepEqual(
      counts!.map((c) => c.value),
      [3, 2],
    );
  });

  it("lets exactly one of many concurrent writers take a key set only where absent", async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => kv.set("lock", `claim ${i}`, { ttlMs: 30_000, onlyIfAbsent: true })));
    assert.equal(outcomes.filter(Boolean).length, 1);
    assert.equal(await kv.get("lock"), `claim ${outcomes.indexOf(true)}`);
  });

  it("expires keys (in-process store on its injected clock)", async () => {
    let now = 1_000_000;
    const memory = new MemoryKv(() => now);
    await memory.set("k", "v", { ttlMs: 100 });
    await memory.increment("n", 100);
    now += 99;
    assert.equal(await memory.get("k"), "v");
    now += 1;
    assert.equal(await memory.get("k"), null);
    assert.deepEqual(await memory.increment("n", 100), { value: 1, ttlMs: 100 });
  });
});
