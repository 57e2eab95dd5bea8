// Time limits and cancellation: an attempt that gets no response within timeoutMs is aborted and
// retried like a network failure when the request is safe to repeat, else TimeoutError (a
// ConnectionError); the caller's signal, joined with the timeout, ends the call with AbortedError
// - before, during or between attempts, or while the body is read - and is never retried.
// Real timers of a few milliseconds against scripted fetches; retry waits are recorded, not slept.
import assert from "node:assert/strict";
import {
  AbortedError,
  ConnectionError,
  createClient,
  createRetryingFetch,
  SubBridgeError,
  TimeoutError,
  type ClientOptions,
} from "../../sdk/src/index.ts";
import { linkedSignal } from "../../sdk/src/abort.ts";
import { DEFAULT_TIMEOUT_MS } from "../../sdk/src/retrying-fetch.ts";
import {
  answersAfter,
  answersOnlyAbort,
  errorResponse,
  jsonResponse,
  neverAnswers,
  recordingSleep,
  scriptedFetch,
  type ScriptStep,
  team,
  minted,
} from "./scripted-fetch.ts";

const teamAnswer = () => jsonResponse(200, team);

function clientWith(script: ScriptStep[], options: Partial<ClientOptions> = {}) {
  const server = scriptedFetch(script);
  const clock = recordingSleep();
  const client = createClient({
    baseUrl: "https://api.test",
    token: "sbt_live_1_x",
    fetch: server.fetch,
    sleep: clock.sleep,
    random: () => 0,
    ...options,
  });
  return { client, requests: server.requests, delays: clock.delays, remaining: server.remaining };
}

/** What a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => assert.fail(`expected a rejection, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}

/** A body that sends "{" and then nothing more until the request's signal aborts it, as fetch's body does. */
function stalledBody(signal: AbortSignal): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
      signal.addEventListener("abort", () => controller.error(signal.reason), { once: true });
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

describe("sdk timeouts and cancellation", () => {
  describe("timeoutMs", () => {
    it("gives up on an attempt after timeoutMs, retries a GET, then throws TimeoutError, a ConnectionError", async () => {
      const { client, requests, delays } = clientWith([neverAnswers, neverAnswers, neverAnswers], { timeoutMs: 5 });
      const error = await rejection(client.GET("/v1/teams/current"));
      assert.ok(error instanceof TimeoutError, String(error));
      assert.ok(error instanceof ConnectionError && error instanceof SubBridgeError);
      assert.equal(error.name, "TimeoutError");
      assert.equal(error.code, "RESPONSE_TIMEOUT");
      assert.equal(error.status, 0);
      assert.equal(error.timeoutMs, 5);
      assert.equal(error.headers, null);
      assert.match(error.message, /did not answer within 5 ms/);
      assert.ok(error.cause instanceof DOMException && error.cause.name === "TimeoutError", String(error.cause));
      assert.equal(requests.length, 3, "two retries, as for a network failure");
      assert.deepEqual(delays, [250, 500]);
    });

    it("aborts the timed-out attempt's request (a fetch that heeds its signal stops) and uses the retry's answer", async () => {
      const { client, requests } = clientWith([answersOnlyAbort, teamAnswer()], { timeoutMs: 5 });
      assert.deepEqual(await client.GET("/v1/teams/current"), team);
      assert.equal(requests.length, 2);
      assert.equal(requests[0].signal.aborted, true);
      assert.equal((requests[0].signal.reason as DOMException).name, "TimeoutError");
      assert.equal(requests[1].signal.aborted, false, "the answered attempt's signal is left alone");
    });

    it("retries a timed-out write with its Idempotency-Key and body", async () => {
      const { client, requests } = clientWith([answersOnlyAbort, jsonResponse(201, minted)], { timeoutMs: 5 });
      assert.deepEqual(await client.POST("/v1/tokens", { body: { name: "x", abilities: ["team:view"] } }), minted);
      assert.equal(requests.length, 2);
      assert.equal(requests[0].headers.get("idempotency-key"), requests[1].headers.get("idempotency-key"));
      assert.equal(requests[1].body, requests[0].body);
    });

    it("does not retry a timed-out request that is not safe to repeat, nor with maxRetries 0", async () => {
      const server = scriptedFetch([neverAnswers, teamAnswer()]);
      const fetch = createRetryingFetch({ fetch: server.fetch, sleep: async () => {}, timeoutMs: 5 });
      const error = await rejection(fetch(new Request("https://api.test/v1/reports", { method: "REPORT" })));
      assert.ok(error instanceof TimeoutError, String(error));
      assert.equal(server.requests.length, 1);
      const once = clientWith([neverAnswers, teamAnswer()], { timeoutMs: 5, maxRetries: 0 });
      assert.ok((await rejection(once.client.GET("/v1/teams/current"))) instanceof TimeoutError);
      assert.equal(once.requests.length, 1);
    });

    it("limits the wait for the response, not the reading of its body", async () => {
      const slowBody = () => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"data":'));
            setTimeout(() => {
              controller.enqueue(new TextEncoder().encode(`${JSON.stringify(team.data)}}`));
              controller.close();
            }, 20);
          },
        });
        return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
      };
      const { client, requests } = clientWith([slowBody()], { timeoutMs: 5 });
      assert.deepEqual(await client.GET("/v1/teams/current"), team);
      assert.equal(requests[0].signal.aborted, false);
    });

    it("has no limit with 0 or Infinity (Infinity is not handed to setTimeout, which would fire at once)", async () => {
      for (const timeoutMs of [0, Infinity]) {
        const { client } = clientWith([answersAfter(20, teamAnswer)], { timeoutMs });
        assert.deepEqual(await client.GET("/v1/teams/current"), team, `timeoutMs ${timeoutMs}`);
      }
    });

    it("takes a per-call timeoutMs over the client's, in the methods and paginate", async () => {
      const unlimited = clientWith([neverAnswers, answersAfter(20, teamAnswer)], { timeoutMs: 0, maxRetries: 0 });
      const error = await rejection(unlimited.client.GET("/v1/teams/current", { timeoutMs: 5 }));
      assert.ok(error instanceof TimeoutError && error.timeoutMs === 5, String(error));
      assert.deepEqual(await unlimited.client.GET("/v1/teams/current"), team, "the next call has the client's limit (none) again");

      const limited = clientWith([answersAfter(20, () => jsonResponse(201, minted))], { timeoutMs: 5, maxRetries: 0 });
      assert.deepEqual(await limited.client.POST("/v1/tokens", { body: { name: "x", abilities: [] }, timeoutMs: 0 }), minted);

      const pages = clientWith([neverAnswers], { timeoutMs: 0, maxRetries: 0 });
      const walk = async () => {
        for await (const token of pages.client.paginate("/v1/tokens", { timeoutMs: 5 })) void token;
      };
      assert.ok((await rejection(walk())) instanceof TimeoutError);
    });

    it("defaults to 60 s per attempt and refuses a limit that is not a duration", async () => {
      assert.equal(DEFAULT_TIMEOUT_MS, 60_000);
      for (const timeoutMs of [-1, Number.NaN, "5" as unknown as number]) {
        assert.throws(() => createClient({ baseUrl: "https://api.test", timeoutMs }), RangeError, String(timeoutMs));
      }
      const { client, requests } = clientWith([teamAnswer()]);
      await assert.rejects(client.GET("/v1/teams/current", { timeoutMs: -5 }), RangeError);
      assert.equal(requests.length, 0);
      // @ts-expect-error timeoutMs is a number of milliseconds
      await client.GET("/v1/teams/current", { timeoutMs: "5" }).catch(() => {});
    });
  });

  describe("the caller's signal", () => {
    it("rejects with AbortedError (cause: the reason) when it aborts during an attempt, and does not retry", async () => {
      const controller = new AbortController();
      const reason = new Error("the user left");
      const { client, requests } = clientWith([answersOnlyAbort, teamAnswer()], { timeoutMs: 1000 });
      setTimeout(() => controller.abort(reason), 5);
      const error = await rejection(client.GET("/v1/teams/current", { signal: controller.signal }));
      assert.ok(error instanceof AbortedError, String(error));
      assert.ok(error instanceof SubBridgeError);
      assert.ok(!(error instanceof ConnectionError), "an abort is the caller's choice, not a failure to connect");
      assert.equal(error.name, "AbortedError");
      assert.equal(error.code, "REQUEST_ABORTED");
      assert.equal(error.status, 0);
      assert.equal(error.cause, reason);
      assert.match(error.message, /aborted: the user left/);
      assert.equal(requests.length, 1);
      assert.equal(requests[0].signal.reason, reason, "the fetch saw the caller's abort through the attempt's signal");
    });

    it("ends the call at once even when the fetch ignores its signal, a write included", async () => {
      const controller = new AbortController();
      const { client, requests } = clientWith([neverAnswers, jsonResponse(201, minted)]);
      setTimeout(() => controller.abort(), 5);
      const error = await rejection(client.POST("/v1/tokens", { body: { name: "x", abilities: [] }, signal: controller.signal }));
      assert.ok(error instanceof AbortedError, String(error));
      assert.equal((error.cause as DOMException).name, "AbortError");
      assert.equal(requests.length, 1);
    });

    it("sends nothing when it is already aborted", async () => {
      const { client, requests } = clientWith([teamAnswer()]);
      const error = await rejection(client.GET("/v1/teams/current", { signal: AbortSignal.abort("not now") }));
      assert.ok(error instanceof AbortedError && error.cause === "not now", String(error));
      assert.equal(requests.length, 0);
    });

    it("cuts a retry's wait short: the default sleep, and an injected one that never ends", async () => {
      for (const sleep of [undefined, () => new Promise<void>(() => {})]) {
        const controller = new AbortController();
        const server = scriptedFetch([errorResponse(503, "INTERNAL_SERVER_ERROR", { headers: { "retry-after": "30" } }), teamAnswer()]);
        const client = createClient({ baseUrl: "https://api.test", fetch: server.fetch, ...(sleep ? { sleep } : {}) });
        const started = Date.now();
        setTimeout(() => controller.abort(), 5);
        const error = await rejection(client.GET("/v1/teams/current", { signal: controller.signal }));
        assert.ok(error instanceof AbortedError, String(error));
        assert.ok(Date.now() - started < 1000, "the 30 s Retry-After was not waited out");
        assert.equal(server.requests.length, 1);
      }
    });

    it("ends the reading of the body with AbortedError, in the methods and in raw", async () => {
      for (const useRaw of [false, true]) {
        const controller = new AbortController();
        const { client } = clientWith([(request) => stalledBody(request.signal)]);
        setTimeout(() => controller.abort(), 5);
        const call = useRaw
          ? client.raw.GET("/v1/teams/current", { signal: controller.signal })
          : client.GET("/v1/teams/current", { signal: controller.signal });
        const error = await rejection(call);
        assert.ok(error instanceof AbortedError, `${useRaw ? "raw" : "GET"}: ${String(error)}`);
      }
    });

    it("works without AbortSignal.any (Node 20.0 to 20.2)", async () => {
      const descriptor = Object.getOwnPropertyDescriptor(AbortSignal, "any");
      assert.ok(descriptor?.configurable);
      delete (AbortSignal as { any?: unknown }).any;
      try {
        const timedOut = clientWith([answersOnlyAbort, teamAnswer()], { timeoutMs: 5 });
        assert.deepEqual(await timedOut.client.GET("/v1/teams/current"), team);
        const controller = new AbortController();
        const aborted = clientWith([answersOnlyAbort]);
        setTimeout(() => controller.abort("stop"), 5);
        const error = await rejection(aborted.client.GET("/v1/teams/current", { signal: controller.signal }));
        assert.ok(error instanceof AbortedError && error.cause === "stop", String(error));
        assert.equal(aborted.requests[0].signal.reason, "stop");
      } finally {
        Object.defineProperty(AbortSignal, "any", descriptor!);
      }
      const first = new AbortController();
      const second = new AbortController();
      const linked = linkedSignal([first.signal, second.signal]);
      second.abort("second");
      first.abort("first");
      assert.equal(linked.reason, "second", "the first abort wins");
      assert.equal(linkedSignal([second.signal, new AbortController().signal]).reason, "second", "an aborted source aborts at once");
    });
  });
});
