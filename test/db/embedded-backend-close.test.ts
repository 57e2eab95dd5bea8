// Closing the embedded database's thread (src/embedded/backend.ts) while batches are still queued:
// PGlite is never reached after its close, and the close is not reported as the database failing
// (a process stopping under load once exited 70 when a batch ran on the closed PGlite).
import assert from "node:assert/strict";
import { Backend, Closed } from "../../src/embedded/backend.ts";
import { finalReadyStatus, queryMessage } from "../../src/embedded/pg-wire.ts";

describe("embedded database thread: close", function () {
  this.timeout(60_000);

  it("answers or refuses (Closed) the batches queued around the close, and reports no failure", async () => {
    const fatal: unknown[] = [];
    const db = await Backend.open({ onFatal: (err) => fatal.push(err) });
    assert.equal(finalReadyStatus(await db.run(queryMessage("select 1"))), "I");
    const queued = Array.from({ length: 20 }, () => db.run(queryMessage("select pg_sleep(0.01)")));
    const closing = db.close();
    const late = db.run(queryMessage("select 1"));
    const settled = Promise.allSettled([...queued, late]);
    await closing;
    const outcomes = await settled;
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") assert.equal(finalReadyStatus(outcome.value), "I");
      else assert.ok(outcome.reason instanceof Closed, String(outcome.reason));
    }
    assert.equal(outcomes.at(-1)!.status, "rejected", "a batch sent after close is refused");
    await assert.rejects(db.isInTransaction(), Closed);

    assert.deepEqual(fatal, []);
  });
});
