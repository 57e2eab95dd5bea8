// createClient: openapi-fetch over the generated paths, with a fetch that adds Idempotency-Keys,
// retries and times out attempts, methods that resolve to the response body and throw typed
// errors, and pagination.
import createOpenApiClient, { type Client } from "openapi-fetch";
import { normaliseBaseUrl } from "./base-url.js";
import type {
  ClientPaths,
  HttpMethod,
  InitArgument,
  ListEnvelope,
  ListItem,
  ListPage,
  ListPath,
  CallOptions,
  ThrowingMethod,
} from "./client-types.js";
import { AbortedError, errorFromResponse, SubBridgeError } from "./errors.js";
import { iterateItems, iteratePages } from "./pagination.js";
import { createRetryingFetch, type RetryingFetchOptions } from "./retrying-fetch.js";

export interface ClientOptions extends RetryingFetchOptions {
  /**
   * The deployment's REST API address (its BASE_URL), with or without `/v1`: the start banner's
   * `http://localhost:4000/v1` and `http://localhost:4000` both work, with or without a trailing
   * slash. The paths of the calls start with /v1, so one trailing `/v1` is dropped here and every
   * request goes to `<baseUrl without /v1>/v1/...`. A base path in front is kept
   * (`https://gateway.example/subbridge/v1` sends to `https://gateway.example/subbridge/v1/...`).
   */
  baseUrl: string;
  /** A personal access token (sbt_live_...). Public routes such as /v1/ping need none. */
  token?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface SubBridgeClient {
  /** Each method resolves to the response body and throws a SubBridgeError subclass on failure. */
  GET: ThrowingMethod<"get">;
  POST: ThrowingMethod<"post">;
  PUT: ThrowingMethod<"put">;
  PATCH: ThrowingMethod<"patch">;
  DELETE: ThrowingMethod<"delete">;
  /** Every item of a list operation, fetching pages as the loop advances. */
  paginate<Path extends ListPath, Init extends CallOptions<Path, "get">>(
    url: Path,
    ...init: InitArgument<Init>
  ): AsyncIterableIterator<ListItem<Path>>;
  /** Every page (the whole {data, links, meta} envelope) of a list operation. */
  pages<Path extends ListPath, Init extends CallOptions<Path, "get">>(url: Path, ...init: InitArgument<Init>): AsyncIterableIterator<ListPage<Path>>;
  /**
   * The underlying openapi-fetch client (same token, base URL, Idempotency-Keys, retries, timeouts
   * and AbortedError) for when the response itself is wanted: it resolves to
   * {data, error, response} and does not throw on error statuses.
   */
  raw: Client<ClientPaths>;
}

interface LooseInit {
  params?: { query?: Record<string, unknown> } & Record<string, unknown>;
  [option: string]: unknown;
}

export function createClient(options: ClientOptions): SubBridgeClient {
  const { baseUrl, token, headers, ...retrying } = options;
  const openapi = createOpenApiClient<ClientPaths>({
    baseUrl: normaliseBaseUrl(baseUrl),
    fetch: createRetryingFetch(retrying),
    headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  const openapiRequest = openapi.request as unknown as (
    method: HttpMethod,
    url: string,
    init?: LooseInit,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

  /** openapi-fetch's request, with this client's per-call options applied and aborts as AbortedError. */
  const request = async (method: HttpMethod, url: string, init?: LooseInit) => {
    const { timeoutMs, ...forwarded } = init ?? {};
    if (typeof forwarded.baseUrl === "string") forwarded.baseUrl = normaliseBaseUrl(forwarded.baseUrl);
    // A per-call timeout is a retrying fetch of its own for this call (openapi-fetch takes `fetch`
    // per call), unless the caller brought their own fetch.
    if (timeoutMs !== undefined && forwarded.fetch === undefined)
      forwarded.fetch = createRetryingFetch({ ...retrying, timeoutMs: timeoutMs as number });
    try {
      return await openapiRequest(method, url, forwarded);
    } catch (error) {
      // openapi-fetch reads the body after the retrying fetch has returned: a caller aborting then
      // makes that read throw the signal's reason.
      const signal = init?.signal as AbortSignal | undefined;
      throw signal?.aborted && !(error instanceof SubBridgeError) ? new AbortedError(signal.reason) : error;
    }
  };

  const call = (method: HttpMethod) =>
    (async (url: string, init?: LooseInit) => {
      const { data, error, response } = await request(method, url, init);
      if (!response.ok) throw errorFromResponse(response, error);
      return data;
    }) as never;

  const pages = (url: string, init?: LooseInit) => {
    const firstPage = Number(init?.params?.query?.page ?? 1);
    const get = call("get") as (url: string, init?: LooseInit) => Promise<ListEnvelope<unknown>>;
    return iteratePages((page) => get(url, { ...init, params: { ...init?.params, query: { ...init?.params?.query, page } } }), firstPage);
  };

  const rawMethod = (method: HttpMethod) => ((url: string, init?: LooseInit) => request(method, url, init)) as never;
  const raw: Client<ClientPaths> = {
    ...openapi,
    request: request as never,
    GET: rawMethod("get"),
    PUT: rawMethod("put"),
    POST: rawMethod("post"),
    DELETE: rawMethod("delete"),
    OPTIONS: rawMethod("options"),
    HEAD: rawMethod("head"),
    PATCH: rawMethod("patch"),
    TRACE: rawMethod("trace"),
  };

  return {
    GET: call("get"),
    POST: call("post"),
    PUT: call("put"),
    PATCH: call("patch"),
    DELETE: call("delete"),
    pages: pages as never,
    paginate: ((url: string, init?: LooseInit) => iterateItems(pages(url, init))) as never,
    raw,
  };
}
