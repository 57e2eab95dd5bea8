// Types of the client's methods, derived from the generated OpenAPI types so every path, parameter,
// body and response is checked, as with openapi-fetch itself.
import type { MaybeOptionalInit } from "openapi-fetch";
import type { paths } from "./generated/openapi.js";

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

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

/** What a single call may set besides openapi-fetch's options. */
export interface PerCallOptions {
  /** This call's time limit per attempt in milliseconds, instead of the client's `timeoutMs` (0 or Infinity: none). */
  timeoutMs?: number;
}

/** The options object of a call: params (path, query, header), body, headers, signal, timeoutMs, ... */
export type CallOptions<Path extends keyof ClientPaths, Method extends HttpMethod> = WithPerCallOptions<MaybeOptionalInit<ClientPaths[Path], Method>>;

/** Distributes over `undefined`, which marks an options argument that may be left out. */
type WithPerCallOptions<Init> = Init extends undefined ? undefined : Init & PerCallOptions;

/** The options argument, optional when nothing in it is required (as in openapi-fetch). */
export type InitArgument<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

/** What a successful call resolves to: the parsed JSON body of its 2xx response (undefined for 204). */
export type ResponseData<Path extends keyof ClientPaths, Method extends HttpMethod> =
  Operation<Path, Method> extends { responses: infer Responses }
    ? {
        [Status in keyof Responses & SuccessStatus]: Responses[Status] extends { content: { "application/json": infer Body } } ? Body : undefined;
      }[keyof Responses & SuccessStatus]
    : never;

export type ThrowingMethod<Method extends HttpMethod> = <Path extends PathsWithMethod<Method>, Init extends CallOptions<Path, Method>>(
  url: Path,
  ...init: InitArgument<Init>
) => Promise<ResponseData<Path, Method>>;

/** A list envelope: {data: T[], links, meta} (service description, Envelopes). */
export interface ListEnvelope<Item> {
  data: Item[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; last_page: number; per_page: number; to: number | null; total: number };
}

/** GET paths that answer a list envelope: the ones `paginate` accepts. */
export type ListPath = {
  [Path in PathsWithMethod<"get">]: ResponseData<Path, "get"> extends { data: unknown[]; links: unknown; meta: unknown } ? Path : never;
}[PathsWithMethod<"get">];

export type ListPage<Path extends ListPath> = ResponseData<Path, "get">;
export type ListItem<Path extends ListPath> = ResponseData<Path, "get"> extends { data: (infer Item)[] } ? Item : never;
