// The committed lint rule set (redocly.yaml): the real bundled description passes it with no
// errors and no warnings, and every house rule fires on a document built to break it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../../codegen/sources.ts";

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

interface LintResult {
  totals: { errors: number; warnings: number };
  problems: LintProblem[];
}

function lint(file: string): LintResult {
  const run = spawnSync(join(ROOT, "node_modules", ".bin", "redocly"), ["lint", "--config", join(ROOT, "redocly.yaml"), "--format=json", file], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  });
  if (!run.stdout.trim().startsWith("{")) throw new Error(`redocly lint printed no report (status ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout) as LintResult;
}

const pointer = (...keys: string[]) => "#/" + keys.map((k) => k.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const requestId = { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } };
const authenticatedErrors = { "401": ref("Error"), "403": ref("Error"), "404": ref("Error"), "429": ref("Error"), "500": ref("Error") };
const writeErrors = { "400": ref("Error"), "409": ref("Error"), "425": ref("Error") };

function okResponse(extra: Record<string, unknown> = {}) {
  return {
    description: "The thing.",
    headers: requestId,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" }, example: { id: "t1" } } },
    ...extra,
  };
}

function operation(id: string, overrides: Record<string, unknown> = {}) {
  return {
    operationId: id,
    summary: "Do a thing",
    description: "Does a thing.",
    tags: ["Things"],
    "x-ability": "thing:view",
    responses: { "200": okResponse(), ...authenticatedErrors },
    ...overrides,
  };
}

const bodyWithoutExample = { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } };
const bodyWithExample = {
  required: true,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" }, example: { id: "t1" } } },
};

/** One operation per defect, plus a compliant control operation and a webhook. */
function brokenDocument() {
  const { summary: _s, description: _d, tags: _t, ...undocumented } = operation("undocumented");
  const { "x-ability": _a, ...withoutAbility } = operation("without_ability");
  return {
    openapi: "3.1.0",
    info: {
      title: "Lint fixture",
      version: "1.0.0",
      description: "A document that breaks each house rule once.",
      license: { name: "Proprietary", identifier: "LicenseRef-Fixture" },
      contact: { name: "Fixture", url: "https://fixture.test/support" },
    },
    servers: [{ url: "https://api.fixture.test" }],
    security: [{ bearer: [] }],
    tags: [{ name: "Things", description: "Things." }],
    paths: {
      "/v1/good": { get: operation("get_good") },
      "/v1/good-write": {
        post: operation("create_good", { requestBody: bodyWithExample, responses: { "200": okResponse(), ...authenticatedErrors, ...writeErrors } }),
      },
      "/v1/public": { get: operation("public_probe", { "x-ability": null, security: [], responses: { "200": okResponse(), "500": ref("Error") } }) },
      "/v1/without-ability": { get: withoutAbility },
      "/v1/inline-error": {
        get: operation("inline_error", {
          responses: {
            "200": okResponse(),
            ...authenticatedErrors,
            "404": { description: "Inline.", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } },
          },
        }),
      },
      "/v1/without-example": {
        get: operation("without_example", {
          responses: {
            "200": {
              description: "No example.",
              headers: requestId,
              content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
            },
            ...authenticatedErrors,
          },
        }),
      },
      "/v1/body-without-example": {
        post: operation("body_without_example", {
          requestBody: bodyWithoutExample,
          responses: { "200": okResponse(), ...authenticatedErrors, ...writeErrors },
        }),
      },
      "/v1/camel-case-id": { get: operation("getCamelCase") },
      "/v1/long-id": { get: operation("a".repeat(61)) },
      "/v1/null-ability": { get: operation("null_ability", { "x-ability": null }) },
      "/v1/public-with-ability": { get: operation("public_with_ability", { security: [], responses: { "200": okResponse(), "500": ref("Error") } }) },
      "/v1/missing-errors": { get: operation("missing_errors", { responses: { "200": okResponse(), "401": ref("Error") } }) },
      "/v1/write-without-idempotency": { post: operation("write_without_idempotency", { requestBody: bodyWithExample }) },
      "/v1/without-request-id": {
        get: operation("without_request_id", { responses: { "200": { ...okResponse(), headers: {} }, ...authenticatedErrors } }),
      },
      "/v1/undocumented": { get: undocumented },
    },
    webhooks: {
      "thing.created": {
        post: {
          operationId: "thing_created",
          summary: "A thing was created",
          description: "Sent when a thing is created.",
          tags: ["Things"],
          requestBody: bodyWithExample,
          responses: { "200": { description: "Received." } },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      headers: { "X-Request-Id": { description: "Identifies the request.", schema: { type: "string" } } },
      schemas: { Thing: { type: "object", required: ["id"], properties: { id: { type: "string" } } } },
      responses: { Error: { description: "An error.", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } },
    },
  };
}

/** Each house rule and one place it must fire in brokenDocument(). */
const EXPECTED: [rule: string, at: string][] = [
  ["rule/operation-x-ability", pointer("paths", "/v1/without-ability", "get", "x-ability")],
  ["rule/error-responses-by-reference", pointer("paths", "/v1/inline-error", "get", "responses", "404")],
  ["rule/success-response-json-example", pointer("paths", "/v1/without-example", "get", "responses", "200", "content", "application/json")],
  ["rule/request-body-example", pointer("paths", "/v1/body-without-example", "post", "requestBody", "content", "application/json")],
  ["rule/operation-id-snake-case", pointer("paths", "/v1/camel-case-id", "get", "operationId")],
  ["rule/operation-id-snake-case", pointer("paths", "/v1/long-id", "get", "operationId")],
  ["rule/x-ability-null-only-on-public-routes", pointer("paths", "/v1/null-ability", "get", "security")],
  ["rule/public-routes-have-no-ability", pointer("paths", "/v1/public-with-ability", "get", "x-ability")],
  ["rule/authenticated-operation-error-responses", pointer("paths", "/v1/missing-errors", "get", "responses")],
  ["rule/write-operation-idempotency-responses", pointer("paths", "/v1/write-without-idempotency", "post", "responses")],
  ["rule/success-response-request-id", pointer("paths", "/v1/without-request-id", "get", "responses", "200", "headers")],
  ["rule/operation-summary", pointer("paths", "/v1/undocumented", "get", "summary")],
  ["rule/operation-description", pointer("paths", "/v1/undocumented", "get", "description")],
  ["rule/operation-tags", pointer("paths", "/v1/undocumented", "get", "tags")],
];

describe("spec lint (redocly.yaml)", function () {
  this.timeout(60_000);
  let scratch: string;
  let broken: LintResult;

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "spec-lint-"));
    const file = join(scratch, "broken.json");
    writeFileSync(file, JSON.stringify(brokenDocument(), null, 2));
    broken = lint(file);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("passes generated/openapi.json with no errors and no warnings", () => {
    const result = lint(join(ROOT, "generated", "openapi.json"));
    const listed = result.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(listed, []);
    assert.deepEqual(result.totals, { ...result.totals, errors: 0, warnings: 0 });
  });

  for (const [rule, at] of EXPECTED) {
    it(`${rule} fires at ${at}`, () => {
      const hits = broken.problems.filter((p) => p.ruleId === rule).map((p) => p.location[0]?.pointer);
      assert.ok(hits.includes(at), `${rule} did not fire at ${at}; it fired at: ${hits.join(", ") || "nowhere"}`);
      assert.ok(broken.problems.filter((p) => p.ruleId === rule).every((p) => p.severity === "error"));
    });
  }

  it("every house rule in redocly.yaml is proved to fire above", () => {
    const config = parse(readFileSync(join(ROOT, "redocly.yaml"), "utf8")) as { rules: Record<string, unknown> };
    const houseRules = Object.keys(config.rules).filter((r) => r.startsWith("rule/"));
    assert.deepEqual([...new Set(EXPECTED.map(([rule]) => rule))].sort(), houseRules.sort());
  });

  it("raises nothing on the compliant operations, the public probe or the webhook", () => {
    const clean = [pointer("paths", "/v1/good"), pointer("paths", "/v1/good-write"), pointer("paths", "/v1/public"), pointer("webhooks")].map(
      (p) => p + "/",
    );
    const stray = broken.problems.filter((p) => clean.some((prefix) => (p.location[0]?.pointer ?? "").startsWith(prefix)));
    assert.deepEqual(
      stray.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`),
      [],
    );
  });

  it("fires only where a defect was planted", () => {
    const planted = new Set(EXPECTED.map(([, at]) => at));
    const houseProblems = broken.problems.filter((p) => p.ruleId.startsWith("rule/"));
    const unexpected = houseProblems.filter((p) => !planted.has(p.location[0]?.pointer ?? ""));
    assert.deepEqual(
      unexpected.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`),
      [],
    );
  });
});
