// Types of the path-string client (`sb.GET("/v1/...", { params, body })`), derived from the generated
// OpenAPI types so every path, parameter, body and response is checked, as with openapi-fetch
// itself; its options are a closed set, so a misspelled one does not compile.
import type { components, paths } from "./generated/openapi.js";
import type { RequestOptions, WriteRequestOptions } from "./generated/sdk-resources.js";

export type { ListEnvelope } from "./generated/sdk-resources.js";

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/** The methods the path-string client offers. */
export type ClientMethod = "get" | "put" | "post" | "delete" | "patch";

type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** The Idempotency-Key header becomes optional: the client sends a fresh UUID unless one is given. */
type WithOptionalIdempotencyKey<Operation> = Operation extends { parameters: { header: infer Header } }
  ? Omit<Operation, "parameters"> & {
      parameters: Omit<Operation["parameters"], "header"> &
        (RequiredKeysOf<Omit<Header, "Idempotency-Key">> extends never
          ? { header?: Omit<Header, "Idempotency-Key"> & { "Idempotency-Key"?: string } }
          : { header: Omit<Header, "Idempotency-Key"> & { "Idempotency-Key"?: string } });
    }
  : Operation;

/** The API's paths as the client accepts them. */
export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: WithOptionalIdempotencyKey<paths[Path][Method]> };
};

/** Paths that answer `method`. */
export type PathsWithMethod<Method extends HttpMethod> = {
  [Path in keyof ClientPaths]: ClientPaths[Path] extends { [M in Method]: {} } ? Path : never;
}[keyof ClientPaths];

type Operation<Path extends keyof ClientPaths, Method extends HttpMethod> = ClientPaths[Path] extends { [M in Method]: infer Op } ? Op : never;

/**
 * `params` as openapi-fetch types it: required when a parameter is. Written here rather than taken
 * from openapi-fetch so a consumer's compiler never loads openapi-fetch's declarations.
 */
type ParamsOption<Op> = Op extends { parameters: infer Params }
  ? RequiredKeysOf<Params> extends never
    ? { params?: Params }
    : { params: Params }
  : { params?: never };

/** The JSON body type of an operation, never when it takes none. */
type JsonBody<Op> = Op extends { requestBody?: infer Body }
  ? [NonNullable<Body>] extends [never]
    ? never
    : NonNullable<Body> extends { content: { "application/json": infer Json } }
      ? Json
      : never
  : never;

/** `body`: the JSON body, required when the request body is (optionality read outside a conditional on Op, which would lose it). */
type RequestBodyOption<Op> = [JsonBody<Op>] extends [never]
  ? { body?: never }
  : {} extends Pick<Op, "requestBody" & keyof Op>
    ? { body?: JsonBody<Op> }
    : { body: JsonBody<Op> };

/** Besides params and body, a read takes RequestOptions and a base URL of its own. */
export interface PathRequestOptions extends RequestOptions {
  /** This call's base URL instead of the client's (with or without a trailing /v1). */
  baseUrl?: string | undefined;
}

/** Besides params and body, a write also takes an idempotencyKey. */
export interface PathWriteRequestOptions extends WriteRequestOptions {
  /** This call's base URL instead of the client's (with or without a trailing /v1). */
  baseUrl?: string | undefined;
}

/**
 * The options object of a call: `params` (path, query, header) and `body` as openapi-fetch types
 * them, then signal, timeoutMs, headers, maxRetries, baseUrl, and idempotencyKey on writes. No index
 * signature: an unknown key is a compile error.
 */
export type CallOptions<Path extends keyof ClientPaths, Method extends HttpMethod> = ParamsOption<Operation<Path, Method>> &
  RequestBodyOption<Operation<Path, Method>> &
  (Method extends "get" | "head" | "options" | "trace" ? PathRequestOptions : PathWriteRequestOptions);

/** The options argument, optional when nothing in it is required (as in openapi-fetch). */
export type InitArgument<Init> = RequiredKeysOf<Init> extends never ? [Init?] : [Init];

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

/** What a successful call resolves to: the parsed JSON body of its 2xx response (undefined for 204). */
export type ResponseData<Path extends keyof ClientPaths, Method extends HttpMethod> =
  Operation<Path, Method> extends { responses: infer Responses }
    ? {
        [Status in keyof Responses & SuccessStatus]: Responses[Status] extends { content: { "application/json": infer Body } } ? Body : undefined;
      }[keyof Responses & SuccessStatus]
    : never;

export type ThrowingMethod<Method extends ClientMethod> = <Path extends PathsWithMethod<Method>>(
  url: Path,
  ...init: InitArgument<CallOptions<Path, Method>>
) => Promise<ResponseData<Path, Method>>;

/** The error envelope an error status answers ({"error": {...}}). */
export type ErrorEnvelope = components["schemas"]["Error"];

/** What `raw` resolves to: the body or the error envelope, and the response; it never throws on an error status. */
export type RawResult<Data> = { data: Data; error?: never; response: Response } | { data?: never; error: ErrorEnvelope; response: Response };

export type RawMethod<Method extends ClientMethod> = <Path extends PathsWithMethod<Method>>(
  url: Path,
  ...init: InitArgument<CallOptions<Path, Method>>
) => Promise<RawResult<ResponseData<Path, Method>>>;

/** GET paths that answer a list envelope: the ones `paginate` accepts. */
export type ListPath = {
  [Path in PathsWithMethod<"get">]: ResponseData<Path, "get"> extends { data: unknown[]; links: unknown; meta: unknown } ? Path : never;
}[PathsWithMethod<"get">];

export type ListPage<Path extends ListPath> = ResponseData<Path, "get">;
export type ListItem<Path extends ListPath> = ResponseData<Path, "get"> extends { data: (infer Item)[] } ? Item : never;
