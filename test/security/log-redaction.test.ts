// Credential-named properties never reach the log, at any depth, and a line without one is
// written as it was logged.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import pino from "pino";
import { loggerOptions } from "../../src/services.ts";
import { redactLogObject } from "../../src/security/log-redaction.ts";

function capture() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino(loggerOptions("info"), stream), lines };
}

describe("log redaction", () => {
  it("writes [redacted] for credential-named properties at any depth, in objects and arrays", () => {
    const { logger, lines } = capture();
    logger.info(
      {
        token: "sbt_live_1_secret",
        headers: { Authorization: "Bearer sbt_live_1_secret", cookie: "sb_session=x", accept: "application/json" },
        request: { body: { password: "hunter22", name: "kept" } },
        attempts: [{ secret: "s1" }, { note: "kept" }],
        nested: { a: { b: { c: { app_key: "k" } } } },
        refresh_token: "r",
        credential_id: "7",
      },
      "something happened",
    );
    const line = lines[0]!;
    assert.equal(line.token, "[redacted]");
    assert.deepEqual(line.headers, { Authorization: "[redacted]", cookie: "[redacted]", accept: "application/json" });
    assert.deepEqual(line.request, { body: { password: "[redacted]", name: "kept" } });
    assert.deepEqual(line.attempts, [{ secret: "[redacted]" }, { note: "kept" }]);
    assert.equal(line.nested.a.b.c.app_key, "[redacted]");
    assert.equal(line.refresh_token, "[redacted]", "a name containing a credential word");
    assert.equal(line.credential_id, "7", "an id is not a credential");
    assert.equal(line.msg, "something happened");
    assert.ok(!JSON.stringify(lines).includes("sbt_live_1_secret"));
  });

  it("leaves the logged object itself unchanged, and returns it as it is when nothing matches", () => {
    const logged = { headers: { authorization: "Bearer x" } };
    const out = redactLogObject(logged);
    assert.equal(logged.headers.authorization, "Bearer x", "the caller's object is not mutated");
    assert.equal((out.headers as Record<string, string>).authorization, "[redacted]");
    const plain = { surface: "api", request_id: "r", status: 200, list: [1, 2, { x: 1 }] };
    assert.equal(redactLogObject(plain), plain, "no copy without a credential-named property");
  });

  it("still writes errors through pino's serializer (message and stack)", () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error("boom") }, "request failed");
    assert.equal(lines[0]!.err.message, "boom");
    assert.match(lines[0]!.err.stack, /Error: boom/);
  });
});
