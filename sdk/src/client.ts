// createClient: the resource methods (`sb.plans.create(project, body)`) and, underneath them,
// openapi-fetch over the generated paths (`sb.GET("/v1/...")`), with a fetch that adds
// Idempotency-Keys, retries and times out attempts, methods that resolve to the response body and
// throw typed errors, and pagination.
import createOpenApiClient from "openapi-fetch";
import { normaliseBaseUrl } from "./base-url.js";
import type {
  CallOptions,
  ClientMethod,
  ClientPaths,
  HttpMethod,
  InitArgument,
  ListEnvelope,
  ListItem,
  ListPage,
  ListPath,
  RawMethod,
  ThrowingMethod,
} from "./client-types.js";
import { AbortedError, errorFromResponse, SubBridgeError } from "./errors.js";
import type { SubBridgeResources } from "./generated/sdk-resources.js";
import { iterateItems, pagePromise } from "./pagination.js";
import { createResources } from "./resources.js";
import { createRetryingFetch, type RetryingFetchOptions } from "./retrying-fetch.js";
import { userAgent } from "./user-agent.js";

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
  token?: string | undefined;
  /** Headers sent with every request (a User-Agent here replaces the SDK's). */
  headers?: Record<string, string> | undefined;
}

/** The path-string client openapi-fetch users know, beside the resources. */
export interface SubBridgeClient extends SubBridgeResources {
  /** Each method resolves to the response body and throws a SubBridgeError subclass on failure. */
  GET: ThrowingMethod<"get">;
  POST: ThrowingMethod<"post">;
  PUT: ThrowingMethod<"put">;
  PATCH: ThrowingMethod<"patch">;
  DELETE: ThrowingMethod<"delete">;
  /** Every item of a list operation, fetching pages as the loop advances. */
  paginate<Path extends ListPath>(url: Path, ...init: InitArgument<CallOptions<Path, "get">>): AsyncIterableIterator<ListItem<Path>>;
  /** Every page (the whole {data, links, meta} envelope) of a list operation. */
  pages<Path extends ListPath>(url: Path, ...init: InitArgument<CallOptions<Path, "get">>): AsyncIterableIterator<ListPage<Path>>;
  /**
   * The same calls (same token, base URL, Idempotency-Keys, retries, timeouts and AbortedError)
   * for when the response itself is wanted: each resolves to {data, error, response} and does not
   * throw on error statuses.
   */
  raw: { GET: RawMethod<"get">; POST: RawMethod<"post">; PUT: RawMethod<"put">; PATCH: RawMethod<"patch">; DELETE: RawMethod<"delete"> };
}

/** A call's options as the runtime sees them, whichever typed surface they came from. */
interface LooseInit {
  params?: { query?: Record<string, unknown> } & Record<string, unknown>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  idempotencyKey?: string;
  baseUrl?: string;
  [option: string]: unknown;
}

export function createClient(options: ClientOptions): SubBridgeClient {
  const { baseUrl, token, headers, ...retrying } = options;
  const agent = userAgent();
  const openapi = createOpenApiClient<ClientPaths>({
    baseUrl: normaliseBaseUrl(baseUrl),
    fetch: createRetryingFetch(retrying),
    headers: { ...(agent ? { "User-Agent": agent } : {}), ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  const openapiRequest = openapi.request as unknown as (
    method: HttpMethod,
    url: string,
    init?: LooseInit,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

  /** openapi-fetch's request, with this client's per-call options applied and aborts as AbortedError. */
  const request = async (method: HttpMethod, url: string, init?: LooseInit) => {
    const { timeoutMs, maxRetries, idempotencyKey, ...forwarded } = init ?? {};
    if (typeof forwarded.baseUrl === "string") forwarded.baseUrl = normaliseBaseUrl(forwarded.baseUrl);
    if (idempotencyKey !== undefined) forwarded.headers = { ...forwarded.headers, "Idempotency-Key": idempotencyKey };
    // A per-call time limit or retry count is a retrying fetch of its own for this call
    // (openapi-fetch takes `fetch` per call).
    if ((timeoutMs !== undefined || maxRetries !== undefined) && forwarded.fetch === undefined)
      forwarded.fetch = createRetryingFetch({
        ...retrying,
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(maxRetries !== undefined && { maxRetries }),
      });
    try {
      return await openapiRequest(method, url, forwarded);
    } catch (error) {
      // openapi-fetch reads the body after the retrying fetch has returned: a caller aborting then
      // makes that read throw the signal's reason.
      const signal = init?.signal;
      throw signal?.aborted && !(error instanceof SubBridgeError) ? new AbortedError(signal.reason) : error;
    }
  };

  /** The throwing request every typed surface goes through: the body, or the typed error. */
  const send = async (method: HttpMethod, url: string, init?: LooseInit) => {
    const { data, error, response } = await request(method, url, init);
    if (!response.ok) throw errorFromResponse(response, error);
    return data;
  };

  // The resource methods' lists walk pages the same way (pagePromise): one code path for both.
  const pages = (url: string, init?: LooseInit) =>
    pagePromise(
      (page) => send("get", url, { ...init, params: { ...init?.params, query: { ...init?.params?.query, page } } }) as Promise<ListEnvelope<unknown>>,
      Number(init?.params?.query?.page ?? 1),
    ).pages();

  const call = (method: ClientMethod) => ((url: string, init?: LooseInit) => send(method, url, init)) as never;
  const rawMethod = (method: ClientMethod) => ((url: string, init?: LooseInit) => request(method, url, init)) as never;

  return {
    ...createResources(send as never),
    GET: call("get"),
    POST: call("post"),
    PUT: call("put"),
    PATCH: call("patch"),
    DELETE: call("delete"),
    pages: pages as never,
    paginate: ((url: string, init?: LooseInit) => iterateItems(pages(url, init))) as never,
    raw: { GET: rawMethod("get"), POST: rawMethod("post"), PUT: rawMethod("put"), PATCH: rawMethod("patch"), DELETE: rawMethod("delete") },
  };
}
