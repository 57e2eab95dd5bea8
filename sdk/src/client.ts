// createClient: openapi-fetch over the generated paths, with a fetch that adds Idempotency-Keys
// and retries, methods that resolve to the response body and throw typed errors, and pagination.
import createOpenApiClient, { type Client } from "openapi-fetch";
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
import { errorFromResponse } from "./errors.js";
import { iterateItems, iteratePages } from "./pagination.js";
import { createRetryingFetch, type RetryingFetchOptions } from "./retrying-fetch.js";

export interface ClientOptions extends RetryingFetchOptions {
  /** The API's address (the deployment's BASE_URL); paths start with /v1. */
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
   * The underlying openapi-fetch client (same token, Idempotency-Keys and retries) for when the
   * response itself is wanted: it resolves to {data, error, response} and does not throw on
   * error statuses.
   */
  raw: Client<ClientPaths>;
}

interface LooseInit {
  params?: { query?: Record<string, unknown> } & Record<string, unknown>;
  [option: string]: unknown;
}

export function createClient(options: ClientOptions): SubBridgeClient {
  const { baseUrl, token, headers, ...retrying } = options;
  const raw = createOpenApiClient<ClientPaths>({
    baseUrl,
    fetch: createRetryingFetch(retrying),
    headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  const request = raw.request as unknown as (
    method: HttpMethod,
    url: string,
    init?: LooseInit,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

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
