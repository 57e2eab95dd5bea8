// The invariants every hostile answer must keep, over REST and MCP: no server failure, the error
// envelope (request id, fields on 422), a status and body the spec declares, no unbounded read,
// and the refusals the oracle says the spec requires.
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { assertMatchesSpec } from "../helpers/http.ts";
import type { OperationSpec } from "../../generated/operations.ts";
import { modelOfOperation, type Json, type OperationModel, type ToolModel } from "./spec-model.ts";
import { namesExpected, NOT_AN_OBJECT, splitTarget, type Expectation } from "./oracle.ts";
import { header, type HttpAnswer } from "./raw-http.ts";
import type { RestCase } from "./rest-cases.ts";

/** Answers of the HTTP parser, before any route: documented in the description for every request. */
const PARSER_CODES = new Set(["MALFORMED_REQUEST", "REQUEST_HEADERS_TOO_LARGE", "REQUEST_TIMEOUT"]);

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** Checks the error envelope `{error: {code, message, docs_url, remediation, request_id, ...}}`. */
export function checkEnvelope(body: unknown, status: number, requestId: string | undefined, where: string): Json {
  const error = (body as Json | undefined)?.error;
  assert.ok(error && typeof error === "object", `${where}: ${status} without an error envelope: ${excerpt(JSON.stringify(body) ?? "")}`);
  for (const key of ["code", "message", "docs_url", "remediation", "request_id"]) {
    assert.equal(typeof error[key], "string", `${where}: error.${key} is not a string: ${excerpt(JSON.stringify(body))}`);
  }
  if (requestId !== undefined) assert.equal(error.request_id, requestId, `${where}: error.request_id differs from X-Request-Id`);
  assert.ok(error.docs_url.endsWith(`/errors#${error.code.toLowerCase()}`), `${where}: docs_url ${error.docs_url} is not the entry of ${error.code}`);
  assert.notEqual(error.code, "INTERNAL_SERVER_ERROR", `${where}: INTERNAL_SERVER_ERROR ${excerpt(JSON.stringify(body))}`);
  if (error.code === "VALIDATION_FAILED" || status === 422) {
    const fields = error.fields;
    assert.ok(
      fields && typeof fields === "object" && Object.keys(fields).length > 0,
      `${where}: 422 without fields: ${excerpt(JSON.stringify(body))}`,
    );
    for (const [key, messages] of Object.entries(fields as Json)) {
      assert.ok(Array.isArray(messages) && messages.length > 0, `${where}: fields.${key} holds no messages`);
      for (const m of messages) assert.equal(typeof m, "string", `${where}: fields.${key} holds a non-string`);
    }
  }
  return error;
}

const PAGE_PARAM = /[?&](page|per_page)=([^&]*)/g;

/** No unbounded read: a page within maxPerPage with sane links; other lists within `limit`'s maximum. */
export function checkBounds(op: OperationSpec, limitMaximum: number | null, body: unknown, where: string): void {
  const data = (body as Json | undefined)?.data;
  if (!Array.isArray(data)) return;
  if (op.pagination) {
    const max = op.pagination.maxPerPage;
    assert.ok(data.length <= max, `${where}: a page of ${data.length} rows (maxPerPage ${max})`);
    const perPage = (body as Json).meta?.per_page;
    assert.ok(Number.isInteger(perPage) && perPage >= 1 && perPage <= max, `${where}: meta.per_page is ${JSON.stringify(perPage)}`);
    for (const link of Object.values((body as Json).links ?? {})) {
      if (link === null) continue;
      assert.ok(!/Infinity|NaN|e\+/i.test(String(link)), `${where}: link ${link}`);
      for (const [, name, value] of String(link).matchAll(PAGE_PARAM)) {
        assert.ok(/^[1-9][0-9]*$/.test(value!) && Number.isSafeInteger(Number(value)), `${where}: ${name}=${value} in link ${link}`);
      }
    }
  } else if (limitMaximum !== null) {
    assert.ok(data.length <= limitMaximum, `${where}: ${data.length} items, over the limit maximum ${limitMaximum}`);
  }
}

/** Every invariant of a REST answer to a hostile request. */
export function checkRestAnswer(model: OperationModel, c: RestCase, answer: HttpAnswer, expected: Expectation): void {
  const where = `${c.op.id} answered ${answer.status}`;
  assert.ok(answer.status < 500, `${where}: ${excerpt(answer.text)}`);
  assert.equal(answer.jsonError, undefined, `${where}: a JSON content type with a body that does not parse: ${excerpt(answer.text)}`);
  const requestId = header(answer, "x-request-id");
  assert.ok(requestId, `${where}: no X-Request-Id`);
  let error: Json | null = null;
  if (answer.status >= 400) error = checkEnvelope(answer.json, answer.status, requestId, where);
  if (!(error && PARSER_CODES.has(error.code))) {
    const [path] = splitTarget(c.target);
    const body = answer.json ?? (answer.text === "" ? null : answer.text);
    assertMatchesSpec(c.method, path, answer.status, body, header(answer, "content-type") ?? null);
  }
  if (answer.status === 200) checkBounds(c.op, model.limitMaximum, answer.json, where);

  if (expected.refusal === null) return;
  const why = `spec requires a refusal (${expected.reasons.join("; ")})`;
  assert.ok(answer.status >= 400 && answer.status < 500, `${where}, but the ${why}: ${excerpt(answer.text)}`);
  if (expected.refusal === "4xx" || (error && PARSER_CODES.has(error.code))) return;
  // A path parameter is resolved (tenancy, existence) before the input is validated.
  if (answer.status === 404 && model.pathParams.length) return;
  assert.equal(answer.status, 422, `${where}, expected 422 VALIDATION_FAILED: the ${why}: ${excerpt(answer.text)}`);
  assert.ok(
    namesExpected(error!.fields, expected.names),
    `${where}: fields ${JSON.stringify(Object.keys(error!.fields))} name none of ${JSON.stringify([...expected.names])} (${expected.reasons.join("; ")})`,
  );
}

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);
const outputValidators = new Map<string, ReturnType<typeof ajv.compile>>();

/** The outcome of one tools/call, however it travelled. */
export interface ToolAnswer {
  /** HTTP status, when the call went raw (the SDK hides it unless it throws). */
  httpStatus?: number;
  requestIdHeader?: string;
  /** The REST envelope of an HTTP-level refusal (unreadable body), if any. */
  httpBody?: unknown;
  result?: Json;
  rpcError?: { code: number; message: string };
}

/** Every invariant of a tools/call answer; returns the outcome the activity entry must record. */
export function checkToolAnswer(tool: ToolModel, answer: ToolAnswer, expected: Expectation): string | null {
  const where = `tool ${tool.name}`;
  if (answer.httpStatus !== undefined) assert.ok(answer.httpStatus < 500, `${where}: HTTP ${answer.httpStatus}`);
  if (answer.rpcError) {
    assert.notEqual(answer.rpcError.code, -32603, `${where}: JSON-RPC internal error: ${answer.rpcError.message}`);
    // Only a protocol problem stays a JSON-RPC error: `arguments` that is not an object (-32602).
    // A call with object arguments reaches the tool, and the tool answers refusals as isError.
    assert.ok(
      answer.rpcError.code === -32602 && expected.reasons.includes(NOT_AN_OBJECT),
      `${where}: JSON-RPC error ${answer.rpcError.code} (${answer.rpcError.message}) instead of a tool result`,
    );
    return null;
  }
  if (!answer.result) {
    checkEnvelope(answer.httpBody, answer.httpStatus ?? 0, answer.requestIdHeader, `${where} (HTTP ${answer.httpStatus})`);
    assert.ok(expected.refusal, `${where}: refused at HTTP level (${answer.httpStatus}) without a reason the spec gives`);
    return null;
  }
  const result = answer.result;
  if (result.isError === true) {
    const error = checkEnvelope(result.structuredContent, 0, undefined, where);
    assert.deepEqual(JSON.parse(result.content?.[0]?.text ?? "null"), result.structuredContent, `${where}: content[0].text is not the envelope`);
    if (expected.refusal === "422" && !(tool.arguments.path.length && /NOT_FOUND|TENANT_MISMATCH/.test(error.code))) {
      assert.equal(error.code, "VALIDATION_FAILED", `${where}: expected VALIDATION_FAILED (${expected.reasons.join("; ")}), got ${error.code}`);
      assert.ok(
        namesExpected(error.fields, expected.names),
        `${where}: fields ${JSON.stringify(Object.keys(error.fields))} name none of ${JSON.stringify([...expected.names])}`,
      );
    }
    return error.code;
  }
  assert.equal(expected.refusal, null, `${where}: accepted, but the spec requires a refusal (${expected.reasons.join("; ")})`);
  if (tool.outputSchema) {
    let v = outputValidators.get(tool.name);
    if (!v) outputValidators.set(tool.name, (v = ajv.compile(tool.outputSchema)));
    assert.ok(v(result.structuredContent), `${where}: structuredContent fails the outputSchema: ${ajv.errorsText(v.errors)}`);
  }
  checkBounds(tool.op, modelOfOperation(tool.op).limitMaximum, result.structuredContent, where);
  return "ok";
}
