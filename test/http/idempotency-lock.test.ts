// The idempotency lock's life (src/pipeline/idempotency.ts): short, so a killed process frees its
// keys within IDEMPOTENCY_LOCK_MS, and renewed by the running process, so a write that takes longer
// than that still turns its repeats away.
import assert from "node:assert/strict";
import { MemoryKv } from "../../src/kv/memory.ts";
import { idempotencyClaim, runIdempotently, type IdempotencyDeps } from "../../src/pipeline/idempotency.ts";
import { ApiError } from "../../src/errors.ts";
import { testDatabase } from "../helpers/backends.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("idempotency lock: short life, renewed while the write runs", function () {
  this.timeout(30_000);
  let deps: IdempotencyDeps;

  before(async () => {
    const { db } = await testDatabase();
    deps = { kv: new MemoryKv(), db, appKey: Buffer.alloc(32, 7), lockMs: 300 };
  });

  const claim = (key: string) => idempotencyClaim("token-1", "POST", "/v1/tokens", key, '{"name":"slow"}');

  it("turns a repeat away while a write runs three times the lock's life", async () => {
    let runs = 0;
    const first = runIdempotently(deps, claim("slow-write"), new Date(), null, async () => {
      runs++;
      await sleep(900);
    });
    await sleep(600);
    await assert.rejects(
      runIdempotently(deps, claim("slow-write"), new Date(), null, async () => {
        runs++;
      }),
      (err: unknown) => err instanceof ApiError && err.code === "IDEMPOTENCY_REPLAY_IN_PROGRESS",
    );
    await first;
    assert.equal(runs, 1);
    assert.equal(await deps.kv.get(claim("slow-write").key), null, "the lock is given back when nothing is kept");
  });

  it("frees a key whose holder stopped renewing (a killed process) after the lock's life", async () => {
    const held = claim("killed-holder");
    await deps.kv.set(held.key, held.lock, { ttlMs: deps.lockMs!, onlyIfAbsent: true });
    await sleep(400);
    let runs = 0;
    await runIdempotently(deps, claim("killed-holder"), new Date(), null, async () => {
      runs++;
    });
    assert.equal(runs, 1);
  });
});
