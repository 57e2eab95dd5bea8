// createMemoryDeduplicator: a repeated event id is claimed once within the time to live, again after
// it (or after release), and expired ids do not pile up.
import assert from "node:assert/strict";
import { createMemoryDeduplicator } from "../../sdk/src/webhooks.ts";

function fakeClock(start = 1_790_000_000_000) {
  let now = start;
  return { now: () => now, advance: (seconds: number) => void (now += seconds * 1000) };
}

describe("sdk createMemoryDeduplicator", () => {
  it("claims an id once; a redelivery of it is refused until the time to live has passed", () => {
    const clock = fakeClock();
    const seen = createMemoryDeduplicator({ ttlSeconds: 60, now: clock.now });
    assert.equal(seen.claim("evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E"), true);
    assert.equal(seen.claim("evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0F"), true);
    assert.equal(seen.claim("evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E"), false);
    clock.advance(59.999);
    assert.equal(seen.claim("evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E"), false);
    clock.advance(0.001);
    assert.equal(seen.claim("evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E"), true, "remembered for the time to live only");
    assert.equal(seen.claim("evt_01JD3Z8Q6W2X4Y5Z6A7B8C9D0E"), false, "the new claim is remembered anew");
  });

  it("release lets the next delivery of an id through (handling failed)", () => {
    const seen = createMemoryDeduplicator();
    assert.equal(seen.claim("evt_a"), true);
    seen.release("evt_a");
    assert.equal(seen.claim("evt_a"), true);
    assert.equal(seen.claim("evt_a"), false);
    seen.release("evt_never_claimed");
  });

  it("remembers 24 hours by default and forgets expired ids (size stays bounded)", () => {
    const clock = fakeClock();
    const seen = createMemoryDeduplicator({ now: clock.now });
    for (let i = 0; i < 1000; i++) seen.claim(`evt_${i}`);
    assert.equal(seen.size, 1000);
    clock.advance(86_399);
    assert.equal(seen.claim("evt_0"), false);
    assert.equal(seen.claim("evt_late"), true);
    clock.advance(1);
    assert.equal(seen.size, 1, "only the id claimed a second before the others expired is left");
    assert.equal(seen.claim("evt_999"), true);
  });

  it("refuses a time to live that is not a positive number", () => {
    for (const ttlSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => createMemoryDeduplicator({ ttlSeconds }), RangeError, String(ttlSeconds));
    }
  });
});
