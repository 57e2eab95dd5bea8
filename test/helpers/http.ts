// An HTTP client for tests that checks every response against generated/openapi.json: the
// status must be one the operation declares, and the body must match that response's schema.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { operationList, type OperationSpec } from "../../generated/operations.ts";

type Json = Record<string, any>;

export const openapi: Json = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);
ajv.addSchema({ $id: "openapi.json", components: openapi.components, paths: openapi.paths });

function deref(node: Json): Json {
  while (node && typeof node.$ref === "string") {
    node = node.$ref
      .slice(2)
      .split("/")
      .reduce((n: Json, k: string) => n[k.replace(/~1/g, "/").replace(/~0/g, "~")], openapi);
  }
  return node;
}

const matchers = operationList.map((op) => ({
  op,
  regex: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

export function operationFor(method: string, path: string): OperationSpec | undefined {
  const m = method === "HEAD" ? "GET" : method;
  return matchers.find(({ op, regex }) => op.method === m && regex.test(path))?.op;
}

const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorFor(pointer: string) {
  let v = validators.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `openapi.json${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Checks a response against the spec; returns the operation it belongs to (if any). */
export function assertMatchesSpec(
  method: string,
  path: string,
  status: number,
  body: unknown,
  contentType: string | null,
): OperationSpec | undefined {
  const op = operationFor(method, path);
  if (!op) {
    // Unknown route or method: the error envelope.
    assert.ok(status === 404 || status === 405, `${method} ${path} matched no operation but answered ${status}`);
    const v = validatorFor("#/components/schemas/Error");
    assert.ok(v(body), `error envelope of ${method} ${path}: ${ajv.errorsText(v.errors)}`);
    return undefined;
  }
  const pathItem = openapi.paths[op.path];
  const declared = pathItem[op.method.toLowerCase()].responses;
  assert.ok(
    String(status) in declared,
    `${op.id} answered ${status}, which its spec does not declare (declared: ${Object.keys(declared).join(", ")})`,
  );
  const response = deref(declared[String(status)]);
  if (response.content?.["text/csv"]) {
    // A file answer: the declared media type, a download name, and text.
    assert.ok(contentType?.startsWith("text/csv; charset=utf-8"), `${op.id} ${status}: content type ${contentType}`);
    assert.ok(typeof body === "string" || body === null, `${op.id} ${status}: a CSV body is text`);
    return op;
  }
  const media = response.content?.["application/json"];
  if (!media) {
    assert.ok(body === null || body === undefined || body === "", `${op.id} ${status} declares no body but sent one`);
    return op;
  }
  assert.ok(contentType?.startsWith("application/json"), `${op.id} ${status}: content type ${contentType}`);
  const base = declared[String(status)].$ref ?? `#/paths/${escapePointer(op.path)}/${op.method.toLowerCase()}/responses/${status}`;
  const v = validatorFor(`${base}/content/application~1json/schema`);
  assert.ok(v(body), `${op.id} ${status} body does not match its schema: ${ajv.errorsText(v.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  return op;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Raw body text sent as is (overrides body). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Idempotency-Key; writes get a fresh one unless this is given or set to null. */
  idempotencyKey?: string | null;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  withToken(token: string): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, pathAndQuery: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token ?? this.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    if (WRITES.has(method) && options.idempotencyKey !== null) headers["idempotency-key"] ??= options.idempotencyKey ?? crypto.randomUUID();
    const res = await fetch(this.baseUrl + pathAndQuery, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const contentType = res.headers.get("content-type");
    let parsed: unknown = text;
    if (contentType?.includes("json") && text) parsed = JSON.parse(text);
    else if (!text) parsed = null;
    const path = new URL(pathAndQuery, this.baseUrl).pathname;
    if (path.startsWith("/v1/") || path === "/v1") assertMatchesSpec(method, path, res.status, parsed, contentType);
    if (res.status >= 400 && contentType?.includes("json")) {
      const err = (parsed as Json).error;
      assert.equal(err.request_id, res.headers.get("x-request-id"), "error.request_id equals X-Request-Id");
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("GET", path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("POST", path, { ...options, ...(body !== undefined ? { body } : {}) });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("PATCH", path, { ...options, ...(body !== undefined ? { body } : {}) });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("DELETE", path, options);
  }
}

/** Asserts an error envelope with this status and code; returns the error object. */
export function expectError(res: TestResponse, status: number, code: string): Json {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body?.error?.code, code);
  return res.body.error;
}
