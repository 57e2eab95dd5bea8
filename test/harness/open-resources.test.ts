// The test harness's own guarantees (test/helpers/open-resources.ts): a setup that fails halfway
// closes what it started, and whatever a file leaves open is found, closed and named with the file
// that opened it. run-guard.slow.test.ts runs whole mocha processes against these guarantees.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { allOrNothing, closeLeftovers, listenOnLoopback, openResources } from "../helpers/open-resources.ts";

describe("test harness: open resources", () => {
  it("allOrNothing closes the parts that started when another fails, then rethrows its error", async () => {
    const closed: string[] = [];
    const part = (name: string) => ({ name, close: async () => void closed.push(name) });
    const failure = new Error("Chromium is not installed");
    await assert.rejects(allOrNothing([Promise.resolve(part("auth")), Promise.reject(failure), Promise.resolve(part("api"))]), failure);
    assert.deepEqual(closed.sort(), ["api", "auth"]);
  });

  it("allOrNothing answers the parts in order when all start", async () => {
    const [a, b] = await allOrNothing([Promise.resolve(1), Promise.resolve("two")]);
    assert.equal(a, 1);
    assert.equal(b, "two");
  });

  it("finds a server left listening, closes it and names the file that opened it", async () => {
    const server = createServer();
    const { port } = await listenOnLoopback(server, "forgotten server");
    assert.ok(server.listening);
    assert.ok(openResources().some((r) => r.startsWith(`forgotten server on 127.0.0.1:${port}`)));
    const left = await closeLeftovers();
    assert.deepEqual(left, [`forgotten server on 127.0.0.1:${port} (opened by test/harness/open-resources.test.ts)`]);
    assert.equal(server.listening, false);
    assert.deepEqual(openResources(), []);
  });

  it("forgets a server its test closed", async () => {
    const { close } = await listenOnLoopback(createServer(), "closed server");
    await close();
    await close(); // a second close does nothing
    assert.deepEqual(openResources(), []);
  });
});
