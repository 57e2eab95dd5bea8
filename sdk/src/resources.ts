// `sb.<resource>.<method>(...)`: the resource methods, built from the generated table (one row per
// operation) over the client's throwing request, so no operation has code of its own. Path
// parameters come first in path order, then the body or the query object, then the options.
import {
  RESOURCE_OPERATIONS,
  type ListEnvelope,
  type ResourceOperation,
  type SubBridgeResources,
  type WriteRequestOptions,
} from "./generated/sdk-resources.js";
import { pagePromise } from "./pagination.js";

/** What the client's request receives from a resource method. */
export interface ResourceRequest extends WriteRequestOptions {
  params: { path: Record<string, string>; query?: Record<string, unknown> };
  body?: unknown;
  /** openapi-fetch's parseAs: "text" for a file (text/csv), so the method resolves to the text. */
  parseAs?: "text";
}

export type SendRequest = (method: "get" | "put" | "post" | "delete" | "patch", path: string, init: ResourceRequest) => Promise<unknown>;

const describe = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : value === null ? "null" : typeof value);

function resourceMethod(op: ResourceOperation, send: SendRequest) {
  const name = `${op.resource}.${op.method}`;
  const method = op.httpMethod.toLowerCase() as Lowercase<ResourceOperation["httpMethod"]>;
  return (...args: unknown[]) => {
    // A missing or non-string id is refused before anything is sent, as a rejection (or, for a
    // list, when it is awaited or iterated), so a .catch() or try/await sees it like any failure.
    const pathOf = () => {
      const path: Record<string, string> = {};
      op.pathParams.forEach((param, i) => {
        const value = args[i];
        // A missing id would otherwise be sent as "undefined" in the URL.
        if (typeof value !== "string" || value === "")
          throw new TypeError(`${name}: argument ${i + 1} (${param}) must be a non-empty string, not ${describe(value)}`);
        path[param] = value;
      });
      return path;
    };
    const input = op.input ? (args[op.pathParams.length] as Record<string, unknown> | undefined) : undefined;
    const options = args[op.pathParams.length + (op.input ? 1 : 0)] as WriteRequestOptions | undefined;
    const init = (path: Record<string, string>, page?: number): ResourceRequest => {
      const request: ResourceRequest = { ...options, params: { path }, ...(op.parseAs ? { parseAs: op.parseAs } : {}) };
      // A body the caller may leave out is sent as {}: the API reads JSON on every write that has one.
      if (op.input === "body") request.body = input ?? {};
      if (op.input === "query" && input) request.params.query = input;
      if (page !== undefined) request.params.query = { ...request.params.query, page };
      return request;
    };
    if (!op.paged) {
      try {
        return send(method, op.path, init(pathOf()));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const query = op.input === "query" ? input : undefined;
    return pagePromise(async (page) => (await send(method, op.path, init(pathOf(), page))) as ListEnvelope<unknown>, Number(query?.page ?? 1));
  };
}

/** The client's resources: `plans`, `projects`, ..., each with its methods. */
export function createResources(send: SendRequest): SubBridgeResources {
  const resources: Record<string, Record<string, unknown>> = {};
  for (const op of Object.values<ResourceOperation>(RESOURCE_OPERATIONS)) (resources[op.resource] ??= {})[op.method] = resourceMethod(op, send);
  return resources as unknown as SubBridgeResources;
}
