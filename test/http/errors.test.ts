// The error envelope on every error: unknown routes, wrong methods, unreadable bodies and
// failures inside the server, with request_id = X-Request-Id and docs_url into the reference.
import assert from "node:assert/strict";
import { startApi, DOCS_URL, testLogger, serveOnFreePort } from "../helpers/server.ts";
import { ApiClient, expectError } from "../helpers/http.ts";
import { useApiWithCreator } from "../helpers/suite.ts";
import { createDocsApp } from "../../src/apps/docs/docs-app.ts";
import { docsTestAddresses } from "../helpers/site.ts";
import { errorCatalog } from "../../generated/catalog.ts";

describe("error envelope", () => {
  const suite = useApiWithCreator();

  it("answers an unknown route with 404 RESOURCE_NOT_FOUND and the full envelope", async () => {
    const res = await suite.client.get("/v1/no-such-thing");
    const error = expectError(res, 404, "RESOURCE_NOT_FOUND");
    assert.equal(error.request_id, res.headers.get("x-request-id"));
    assert.match(String(error.request_id), /^[0-9a-f-]{36}$/);
    assert.equal(error.docs_url, `${DOCS_URL}/errors#resource_not_found`);
    assert.ok(error.remediation.length > 10);
    assert.equal(error.fields, undefined);
  });

  it("answers a known route with a wrong method with 405 and an Allow header", async () => {
    const res = await suite.client.request("PATCH", "/v1/tokens");
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    assert.deepEqual(res.headers.get("allow")?.split(", ").sort(), ["GET", "HEAD", "POST"]);
    const ping = await suite.client.request("DELETE", "/v1/ping");
    expectError(ping, 405, "METHOD_NOT_ALLOWED");
    assert.equal(ping.headers.get("allow"), "GET, HEAD");
  });

  it("gives every response, success or error, a fresh X-Request-Id", async () => {
    const a = await suite.client.get("/v1/teams/current");
    const b = await suite.client.get("/v1/teams/current");
    assert.ok(a.headers.get("x-request-id"));
    assert.notEqual(a.headers.get("x-request-id"), b.headers.get("x-request-id"));
  });

  it("refuses malformed JSON, a non-JSON content type and an oversized body with 422 and fields.body", async () => {
    const malformed = await suite.client.request("POST", "/v1/tokens", { rawBody: "{not json", headers: { "content-type": "application/json" } });
    assert.deepEqual(expectError(malformed, 422, "VALIDATION_FAILED").fields, { body: ["is not valid JSON"] });
    const form = await suite.client.request("POST", "/v1/tokens", {
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.deepEqual(expectError(form, 422, "VALIDATION_FAILED").fields, { body: ["must be sent with Content-Type: application/json"] });
    const big = await suite.client.request("POST", "/v1/tokens", {
      rawBody: JSON.stringify({ name: "x".repeat(1_100_000) }),
      headers: { "content-type": "application/json" },
    });
    assert.match(expectError(big, 422, "VALIDATION_FAILED").fields.body[0], /at most 1048576 bytes/);
    const missing = await suite.client.request("POST", "/v1/tokens", {});
    assert.deepEqual(expectError(missing, 422, "VALIDATION_FAILED").fields, { body: ["a JSON request body is required"] });
  });

  it("maps each invalid field to its messages", async () => {
    const res = await suite.client.post("/v1/tokens", {
      name: "",
      abilities: ["team:view", "team:view", "not-an-ability"],
      project_ids: ["nope"],
      surprise: true,
    });
    const { fields } = expectError(res, 422, "VALIDATION_FAILED");
    assert.deepEqual(Object.keys(fields).sort(), ["abilities", "abilities.2", "name", "project_ids.0", "surprise"]);
    assert.deepEqual(fields.name, ["must not be empty"]);
    assert.deepEqual(fields.surprise, ["is not a known field"]);
    assert.deepEqual(fields["project_ids.0"], ["must be a valid uuid"]);
    assert.match(fields.abilities[0], /must not repeat items/);
  });

  it("answers a failure inside the server with 500 INTERNAL_SERVER_ERROR and leaks nothing", async () => {
    const broken = await startApi({
      handlers: {
        async get_current_team() {
          throw new Error("connection to db-7.internal:5432 refused (password=hunter2)");
        },
      },
    });
    try {
      const res = await new ApiClient(broken.url, suite.creator.token).get("/v1/teams/current");
      const error = expectError(res, 500, "INTERNAL_SERVER_ERROR");
      const text = JSON.stringify(res.body);
      assert.ok(!text.includes("db-7") && !text.includes("hunter2") && !text.includes("at "), text);
      assert.equal(error.message, "Something went wrong on our side.");
      assert.match(error.remediation, /request_id/);
    } finally {
      await broken.close();
    }
  });

  it("documents every code at the docs_url anchor", async () => {
    const docs = await serveOnFreePort(() =>
      createDocsApp({ logger: testLogger, docsUrl: DOCS_URL, baseUrl: suite.api.url, ...docsTestAddresses() }),
    );
    try {
      const html = await (await fetch(`${docs.url}/errors`)).text();
      for (const code of Object.keys(errorCatalog)) {
        assert.ok(html.includes(`id="${code.toLowerCase()}"`), `anchor for ${code}`);
      }
      const missing = await fetch(`${docs.url}/nope`);
      assert.equal(missing.status, 404);
      assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "RESOURCE_NOT_FOUND");
    } finally {
      await docs.close();
    }
  });
});
