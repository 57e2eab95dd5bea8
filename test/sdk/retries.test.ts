// Retries: network failures, 408, 425, 429 and 5xx are retried (Retry-After honoured, otherwise
// jittered exponential backoff) only when the request is safe to repeat, and a retried write keeps
// its Idempotency-Key. (Timed-out attempts and the caller's abort: timeouts.test.ts.)
import assert from "node:assert/strict";
import {
  AbortedError,
  BadRequestError,
  createClient,
  ConnectionError,
  InternalServerError,
  RateLimitError,
  DomainError,
  NotFoundError,
} from "../../sdk/src/index.ts";
import { createRetryingFetch } from "../../sdk/src/retrying-fetch.ts";
import { retryAfterSeconds } from "../../sdk/src/errors.ts";
import { errorResponse, jsonResponse, minted, recordingSleep, scriptedFetch, team, type ScriptStep } from "./scripted-fetch.ts";

function clientWith(script: ScriptStep[], options: { maxRetries?: number; random?: () => number; maxRetryAfterSeconds?: number } = {}) {
  const server = scriptedFetch(script);
  const clock = recordingSleep();
  const client = createClient({
    baseUrl: "https://api.test",
    token: "sbt_live_1_x",
    fetch: server.fetch,
    sleep: clock.sleep,
    random: options.random ?? (() => 0),
    ...options,
  });
  return { client, requests: server.requests, delays: clock.delays };
}

const networkFailure = () => new TypeError("fetch failed");

describe("sdk retries", () => {
  it("retries a GET once after a 503 and resolves to the second answer", async () => {
    const { client, requests, delays } = clientWith([errorResponse(503, "INTERNAL_SERVER_ERROR"), jsonResponse(200, team)]);
    assert.deepEqual(await client.GET("/v1/teams/current"), team);
    assert.equal(requests.length, 2);
    assert.equal(delays.length, 1);
  });

  it("waits the Retry-After of a 429 (2 s) before trying again", async () => {
    const { client, requests, delays } = clientWith([
      errorResponse(429, "RATE_LIMITED", { headers: { "retry-after": "2" } }),
      jsonResponse(200, team),
    ]);
    await client.GET("/v1/teams/current");
    assert.deepEqual(delays, [2000]);
    assert.equal(requests.length, 2);
  });

  it("waits the Retry-After of a 425 on a write, then replays it with the same key", async () => {
    const { client, requests, delays } = clientWith([
      errorResponse(425, "IDEMPOTENCY_REPLAY_IN_PROGRESS", { headers: { "retry-after": "1" } }),
      jsonResponse(201, minted),
    ]);
    assert.deepEqual(await client.POST("/v1/tokens", { body: { name: "x", abilities: ["team:view"] } }), minted);
    assert.deepEqual(delays, [1000]);
    assert.equal(requests[0].headers.get("idempotency-key"), requests[1].headers.get("idempotency-key"));
  });

  it("retries the server's 408 REQUEST_TIMEOUT (no route ran), and throws it as BadRequestError when it persists", async () => {
    const once = clientWith([errorResponse(408, "REQUEST_TIMEOUT"), jsonResponse(201, minted)]);
    assert.deepEqual(await once.client.POST("/v1/tokens", { body: { name: "x", abilities: ["team:view"] } }), minted);
    assert.equal(once.requests[0].headers.get("idempotency-key"), once.requests[1].headers.get("idempotency-key"));
    const always = clientWith(Array.from({ length: 3 }, () => errorResponse(408, "REQUEST_TIMEOUT")));
    const error = await always.client.GET("/v1/teams/current").catch((e: unknown) => e);
    assert.ok(error instanceof BadRequestError, String(error));
    assert.equal(error.code, "REQUEST_TIMEOUT");
    assert.equal(error.status, 408);
    assert.equal(always.requests.length, 3);
  });

  it("never retries a 400 or a 404", async () => {
    const bad = clientWith([errorResponse(400, "ACCESS_CODE_EXPIRED"), jsonResponse(200, team)]);
    await assert.rejects(bad.client.GET("/v1/teams/current"), DomainError);
    assert.equal(bad.requests.length, 1);
    assert.deepEqual(bad.delays, []);
    const missing = clientWith([errorResponse(404, "RESOURCE_NOT_FOUND"), jsonResponse(200, team)]);
    await assert.rejects(missing.client.DELETE("/v1/tokens/{token_id}", { params: { path: { token_id: "9" } } }), NotFoundError);
    assert.equal(missing.requests.length, 1);
  });

  it("retries a POST after a network failure with the same Idempotency-Key and the same body", async () => {
    const { client, requests } = clientWith([networkFailure(), networkFailure(), jsonResponse(201, minted)]);
    await client.POST("/v1/tokens", { body: { name: "x", abilities: ["team:view"] } });
    assert.equal(requests.length, 3);
    const keys = new Set(requests.map((r) => r.headers.get("idempotency-key")));
    assert.equal(keys.size, 1);
    assert.match([...keys][0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(
      requests.map((r) => JSON.parse(r.body)),
      Array(3).fill({ name: "x", abilities: ["team:view"] }),
    );
  });

  it("stops after maxRetries and throws the last answer's error", async () => {
    const always503 = () => Array.from({ length: 10 }, () => errorResponse(503, "INTERNAL_SERVER_ERROR"));
    const three = clientWith(always503(), { maxRetries: 3 });
    await assert.rejects(three.client.GET("/v1/teams/current"), (error: unknown) => error instanceof InternalServerError && error.status === 503);
    assert.equal(three.requests.length, 4);
    const none = clientWith(always503(), { maxRetries: 0 });
    await assert.rejects(none.client.GET("/v1/teams/current"), InternalServerError);
    assert.equal(none.requests.length, 1);
    const byDefault = clientWith(always503());
    await assert.rejects(byDefault.client.GET("/v1/teams/current"), InternalServerError);
    assert.equal(byDefault.requests.length, 3, "maxRetries defaults to 2");
  });

  it("throws ConnectionError, with the cause, when the network never answers", async () => {
    const cause = networkFailure();
    const { client, requests } = clientWith([cause, cause, cause]);
    const error = await client.GET("/v1/teams/current").catch((e: unknown) => e);
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.status, 0);
    assert.equal(error.code, "CONNECTION_ERROR");
    assert.equal(error.cause, cause);
    assert.equal(requests.length, 3);
  });

  it("backs off exponentially with jitter, up to the ceiling", async () => {
    const failures = () => Array.from({ length: 5 }, () => errorResponse(500, "INTERNAL_SERVER_ERROR"));
    const low = clientWith(failures(), { maxRetries: 4, random: () => 0 });
    await assert.rejects(low.client.GET("/v1/teams/current"));
    assert.deepEqual(low.delays, [250, 500, 1000, 2000]);
    const high = clientWith(failures(), { maxRetries: 4, random: () => 0.999999 });
    await assert.rejects(high.client.GET("/v1/teams/current"));
    assert.deepEqual(high.delays, [500, 1000, 2000, 4000]);
    const server = scriptedFetch(Array.from({ length: 8 }, () => errorResponse(500, "INTERNAL_SERVER_ERROR")));
    const clock = recordingSleep();
    const capped = createClient({
      baseUrl: "https://api.test",
      fetch: server.fetch,
      sleep: clock.sleep,
      random: () => 0.999999,
      maxRetries: 7,
      maxDelayMs: 3000,
    });
    await assert.rejects(capped.GET("/v1/ping"));
    assert.ok(clock.delays.every((d) => d <= 3000) && clock.delays.at(-1) === 3000, String(clock.delays));
  });

  it("does not wait for a Retry-After beyond maxRetryAfterSeconds: the RateLimitError says when", async () => {
    const { client, requests, delays } = clientWith([
      errorResponse(429, "RATE_LIMITED", { headers: { "retry-after": "3600" } }),
      jsonResponse(200, team),
    ]);
    const error = await client.GET("/v1/teams/current").catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, 3600);
    assert.equal(requests.length, 1);
    assert.deepEqual(delays, []);
  });

  it("retries only what is safe to repeat: a request that is neither a read nor keyed is sent once", async () => {
    const server = scriptedFetch([errorResponse(503, "INTERNAL_SERVER_ERROR"), jsonResponse(200, {})]);
    const fetch = createRetryingFetch({ fetch: server.fetch, sleep: async () => {} });
    const response = await fetch(new Request("https://api.test/v1/reports", { method: "REPORT" }));
    assert.equal(response.status, 503);
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].headers.get("idempotency-key"), null);
  });

  it("does not retry a request its caller aborted", async () => {
    const controller = new AbortController();
    const server = scriptedFetch([
      () => {
        controller.abort();
        return new DOMException("aborted", "AbortError");
      },
      jsonResponse(200, team),
    ]);
    const fetch = createRetryingFetch({ fetch: server.fetch, sleep: async () => {} });
    const error = await fetch(new Request("https://api.test/v1/teams/current", { signal: controller.signal })).catch((e: unknown) => e);
    assert.ok(error instanceof AbortedError, String(error));
    assert.equal(error.cause, controller.signal.reason);
    assert.equal(server.requests.length, 1);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    assert.equal(retryAfterSeconds("2"), 2);
    assert.equal(retryAfterSeconds("0.5"), 0.5);
    assert.equal(retryAfterSeconds("Wed, 21 Oct 2026 07:28:10 GMT", Date.parse("Wed, 21 Oct 2026 07:28:00 GMT")), 10);
    assert.equal(retryAfterSeconds("soon"), null);
    assert.equal(retryAfterSeconds(null), null);
  });
});
