// Every error code of the catalog (generated/error-codes.json) is thrown as the class of its
// family, and a family only carries statuses it is meant for; unknown codes and bodies that are
// not the error envelope still give a typed error; the client's own codes (no response) are never
// codes of the API.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as sdk from "../../sdk/src/index.ts";
import { CLIENT_ERROR_CLASS_BY_CODE, ERROR_FAMILY_BY_CODE, FAMILY_STATUSES, type ErrorFamily } from "../../sdk/src/error-families.ts";
import { errorFromResponse } from "../../sdk/src/errors.ts";
import { errorResponse } from "./scripted-fetch.ts";

const catalog: { errors: { code: string; status: number; remediation: string }[] } = JSON.parse(
  readFileSync(new URL("../../generated/error-codes.json", import.meta.url), "utf8"),
);

const classOf = (name: string) => (sdk as unknown as Record<string, new (...args: never[]) => sdk.SubBridgeError>)[name];

describe("sdk error classes", () => {
  it("places every code of the catalog, and nothing else, in a family", () => {
    assert.deepEqual(Object.keys(ERROR_FAMILY_BY_CODE).sort(), catalog.errors.map((e) => e.code).sort());
  });

  for (const { code, status } of catalog.errors) {
    it(`throws ${code} (${status}) as its family's class with every envelope field`, () => {
      const family = ERROR_FAMILY_BY_CODE[code as keyof typeof ERROR_FAMILY_BY_CODE];
      assert.ok(FAMILY_STATUSES[family].includes(status), `${code} answers ${status}, which ${family} is not meant for`);
      const response = errorResponse(status, code, { context: { required_ability: "token:view-any" }, fields: { name: ["is required"] } });
      const error = errorFromResponse(response, {
        error: {
          code,
          message: "m",
          docs_url: "https://docs.test/e",
          remediation: "r",
          request_id: "req-1",
          fields: { name: ["is required"] },
          context: { a: 1 },
        },
      });
      assert.ok(error instanceof classOf(family), `${code} thrown as ${error.name}, expected ${family}`);
      assert.ok(error instanceof sdk.SubBridgeError);
      assert.equal(error.name, family);
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      assert.equal(error.message, "m");
      assert.equal(error.requestId, "req-1");
      assert.deepEqual(error.fields, { name: ["is required"] });
      assert.deepEqual(error.context, { a: 1 });
      assert.equal(error.docsUrl, "https://docs.test/e");
      assert.equal(error.remediation, "r");
      assert.equal(error.headers?.get("x-request-id"), "req-123");
    });
  }

  it("exports one class per family, each a SubBridgeError", () => {
    for (const family of Object.keys(FAMILY_STATUSES) as ErrorFamily[]) {
      assert.equal(typeof classOf(family), "function", `${family} is exported`);
      assert.ok(classOf(family).prototype instanceof sdk.SubBridgeError);
    }
  });

  it("gives the client's own errors (no response) codes the API never answers, status 0, each its class", () => {
    const apiCodes = new Set(catalog.errors.map((e) => e.code));
    const own = [
      new sdk.ConnectionError(new TypeError("fetch failed")),
      new sdk.TimeoutError(5, new DOMException("late", "TimeoutError")),
      new sdk.AbortedError("why"),
    ];
    assert.deepEqual(
      own.map((error) => [error.name, error.code, error.status]),
      [
        ["ConnectionError", "CONNECTION_ERROR", 0],
        ["TimeoutError", "RESPONSE_TIMEOUT", 0],
        ["AbortedError", "REQUEST_ABORTED", 0],
      ],
    );
    for (const error of own) {
      assert.ok(!apiCodes.has(error.code), `${error.code} is also a code of the API`);
      assert.ok(error instanceof sdk.SubBridgeError);
      assert.equal(error.constructor, classOf(CLIENT_ERROR_CLASS_BY_CODE[error.code as keyof typeof CLIENT_ERROR_CLASS_BY_CODE]));
    }
    assert.deepEqual(Object.keys(CLIENT_ERROR_CLASS_BY_CODE).sort(), own.map((e) => e.code).sort());
    assert.ok(sdk.TimeoutError.prototype instanceof sdk.ConnectionError, "a timeout is one way of getting no response");
    assert.ok(!(sdk.AbortedError.prototype instanceof sdk.ConnectionError), "an abort is the caller's, not the network's");
  });

  it("throws the HTTP parser's refusals as BadRequestError, by code and, for a code it does not know, by status 408 or 431", () => {
    for (const [status, code] of [
      [400, "MALFORMED_REQUEST"],
      [408, "REQUEST_TIMEOUT"],
      [431, "REQUEST_HEADERS_TOO_LARGE"],
      [408, "SOME_NEW_408"],
      [431, "SOME_NEW_431"],
    ] as const) {
      const error = errorFromResponse(errorResponse(status, code), { error: { code, message: "m" } });
      assert.ok(error instanceof sdk.BadRequestError, `${code}: ${error.name}`);
    }
  });

  it("gives PermissionError the required ability and RateLimitError the Retry-After", () => {
    const permission = errorFromResponse(errorResponse(403, "TOKEN_MISSING_ABILITY"), {
      error: { code: "TOKEN_MISSING_ABILITY", message: "m", context: { required_ability: "token:view-any" } },
    });
    assert.ok(permission instanceof sdk.PermissionError);
    assert.equal(permission.requiredAbility, "token:view-any");
    const limited = errorFromResponse(errorResponse(429, "RATE_LIMITED", { headers: { "retry-after": "17" } }), {
      error: { code: "RATE_LIMITED", message: "m" },
    });
    assert.ok(limited instanceof sdk.RateLimitError);
    assert.equal(limited.retryAfter, 17);
  });

  it("throws a code this SDK does not know by its status, keeping the code", () => {
    const error = errorFromResponse(new Response(null, { status: 404 }), { error: { code: "PROJECT_ARCHIVED", message: "archived" } });
    assert.ok(error instanceof sdk.NotFoundError);
    assert.equal(error.code, "PROJECT_ARCHIVED");
    const teapot = errorFromResponse(new Response(null, { status: 418 }), { error: { code: "TEAPOT", message: "short and stout" } });
    assert.equal(teapot.constructor, sdk.SubBridgeError);
  });

  it("throws a proxy's non-JSON 5xx page as InternalServerError with code HTTP_<status>", () => {
    const error = errorFromResponse(
      new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway", headers: { "x-request-id": "edge-9" } }),
      "<html>bad gateway</html>",
    );
    assert.ok(error instanceof sdk.InternalServerError);
    assert.equal(error.code, "HTTP_502");
    assert.equal(error.requestId, "edge-9");
    assert.match(error.message, /502 Bad Gateway/);
  });
});
