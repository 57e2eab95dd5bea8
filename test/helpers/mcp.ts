// Starts the MCP surface in-process on a free port over the run's backends (shared with
// startApi), and connects MCP SDK v2 clients pinned to 2026-07-28.
import { request } from "node:http";
import { Client, StreamableHTTPClientTransport, type FetchLike } from "@modelcontextprotocol/client";
import { Agent, fetch as undiciFetch } from "undici";
import { createMcpApp, type McpAppDeps } from "../../src/apps/mcp/mcp-app.ts";
import { GroupedActivityWriter } from "../../src/modules/activity/grouped-writer.ts";
import { handlers as realHandlers, preflights } from "../../src/modules/handlers.ts";
import { MCP_BUDGET, UNAUTHENTICATED_MCP_BUDGET } from "../../src/pipeline/rate-limit.ts";
import type { AppHandlers } from "../../src/pipeline/execute.ts";
import { testDatabase, testKv } from "./backends.ts";
import type { TestClock } from "./clock.ts";
import { createTestCreator, type TestCreator } from "./fixtures.ts";
import { DASHBOARD_URL, DOCS_URL, repositoryConnectorRegistry, serveOnFreePort, TEST_APP_KEY, TEST_WEBHOOK_NETWORK, testLogger } from "./server.ts";
import { PORTAL_URL, testPlatformEndpoints } from "./platforms.ts";

export const MCP_PROTOCOL = "2026-07-28";
export const AUTH_URL = "http://auth.test";
export { DASHBOARD_URL } from "./server.ts";

export interface RunningMcp {
  url: string;
  deps: McpAppDeps;
  /** Resolves once the entries of the calls answered so far are written (reads' and refusals' are written after the answer). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface StartMcpOptions {
  clock?: TestClock;
  /** Where webhooks may be sent (default TEST_WEBHOOK_NETWORK). */
  webhooks?: McpAppDeps["webhooks"];
  /** Instances with the same name share their KV store (rate limits). */
  sharedKv?: string;
  budget?: McpAppDeps["budget"];
  unauthenticatedBudget?: McpAppDeps["unauthenticatedBudget"];
  /** REST base URL the tools' list links point to (an API started with startApi, or a dummy). */
  baseUrl?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  handlers?: Partial<AppHandlers>;
  connectors?: McpAppDeps["connectors"];
  clientIp?: McpAppDeps["clientIp"];
  platforms?: McpAppDeps["platforms"];
  /** Answer reads and refusals once their entries are committed (MCP_INVOCATION_ENTRIES=committed). */
  awaitInvocationEntries?: boolean;
  /** The authorization server the protected-resource metadata names (default AUTH_URL, a dummy). */
  authUrl?: string;
  /** SUBBRIDGE_ENVIRONMENT of the server (default live). */
  environment?: McpAppDeps["environment"];
}

export async function startMcp(options: StartMcpOptions = {}): Promise<RunningMcp> {
  const { db } = await testDatabase();
  const platforms = options.platforms ?? (await testPlatformEndpoints());
  const kv = await testKv({ ...(options.sharedKv ? { shared: options.sharedKv } : {}), ...(options.clock ? { now: options.clock.nowMs } : {}) });
  let deps!: McpAppDeps;
  const invocations = new GroupedActivityWriter(db, testLogger);
  const running = await serveOnFreePort((url) => {
    deps = {
      db,
      kv,
      invocations,
      handlers: { ...realHandlers, ...options.handlers } as AppHandlers,
      preflights,
      now: options.clock?.now ?? (() => new Date()),
      release: "3.0.0",
      mcpUrl: url,
      baseUrl: options.baseUrl ?? "http://api.test",
      authUrl: options.authUrl ?? AUTH_URL,
      docsUrl: DOCS_URL,
      logger: testLogger,
      budget: options.budget ?? MCP_BUDGET,
      unauthenticatedBudget: options.unauthenticatedBudget ?? UNAUTHENTICATED_MCP_BUDGET,
      allowedHosts: options.allowedHosts ?? [],
      allowedOrigins: options.allowedOrigins ?? [],
      appKey: TEST_APP_KEY,
      connectors: options.connectors ?? repositoryConnectorRegistry(),
      platforms,
      portalUrl: PORTAL_URL,
      dashboardUrl: DASHBOARD_URL,
      webhooks: options.webhooks ?? TEST_WEBHOOK_NETWORK,
      ...(options.clientIp ? { clientIp: options.clientIp } : {}),
      ...(options.awaitInvocationEntries ? { awaitInvocationEntries: true } : {}),
      ...(options.environment ? { environment: options.environment } : {}),
    };
    return createMcpApp(deps);
  });
  return {
    url: running.url,
    deps,
    settled: () => invocations.drain(),
    close: async () => {
      await running.close();
      await invocations.drain();
    },
  };
}

export interface ConnectOptions {
  /** Extra request headers (X-MCP-Toolsets, X-MCP-Readonly, ...). */
  headers?: Record<string, string>;
  /** Query string appended to the endpoint URL, e.g. "?toolsets=tokens". */
  query?: string;
  /**
   * X-MCP-Toolsets when neither `headers` nor `query` names toolsets. Tests reach every tool
   * ("all") unless they say otherwise; null sends none, so the server's default selection applies.
   */
  toolsets?: string | null;
}

/** The X-MCP-Toolsets header tests send: every tool, unless the test selects its own or asks for none. */
function toolsetsHeader(options: ConnectOptions, headers: Record<string, string>): void {
  const named = Object.keys(headers).some((h) => h.toLowerCase() === "x-mcp-toolsets") || /[?&]toolsets=/.test(options.query ?? "");
  if (!named && options.toolsets !== null) headers["X-MCP-Toolsets"] = options.toolsets ?? "all";
}

/**
 * Test clients reuse a connection only within 1 s of its last answer. The server closes an idle
 * one after 5 s, and undici's own margin (the server's hint less 2 s) is shorter than the stalls
 * of a test process that also runs the server on a loaded machine: a request written on a
 * connection being closed dies unanswered ("fetch failed").
 */
const shortKeepAlive = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });
const testFetch = ((url, init) => undiciFetch(url, { ...init, dispatcher: shortKeepAlive } as never)) as FetchLike;

/** A client pinned to 2026-07-28 (the SDK's default would send a 2025 initialize). */
export async function connectMcp(mcp: RunningMcp, token: string | null, options: ConnectOptions = {}): Promise<Client> {
  const headers: Record<string, string> = { ...options.headers };
  toolsetsHeader(options, headers);
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const transport = new StreamableHTTPClientTransport(new URL(`${mcp.url}/${options.query ?? ""}`), { requestInit: { headers }, fetch: testFetch });
  const client = new Client({ name: "subbridge-tests", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MCP_PROTOCOL } } });
  await client.connect(transport);
  return client;
}

/** Per-request cache off: tests must see what the server answers now. */
export const FRESH = { cacheMode: "bypass" } as const;

export const ENVELOPE_META = {
  "io.modelcontextprotocol/protocolVersion": MCP_PROTOCOL,
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface RawResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or the text when it is not JSON, or null when empty. */
  body: any;
  text: string;
}

export interface RawRpcOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** As ConnectOptions.toolsets: "all" unless headers or path name toolsets; null sends none. */
  toolsets?: string | null;
  params?: Record<string, unknown>;
  id?: number;
  /** Path and query after the MCP URL, default "/". */
  path?: string;
}

/** The headers of a hand-built tools/call: the routing headers a conforming client sends, every tool selected. */
export function rawToolHeaders(name: string, token: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MCP_PROTOCOL,
    "mcp-method": "tools/call",
    "mcp-name": name,
    "x-mcp-toolsets": "all",
    authorization: `Bearer ${token}`,
  };
}

/** A hand-built 2026-07-28 JSON-RPC POST, with the routing headers a conforming client sends. */
export async function rawRpc(mcp: RunningMcp, method: string, options: RawRpcOptions = {}): Promise<RawResponse> {
  const params = { ...options.params, _meta: ENVELOPE_META };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MCP_PROTOCOL,
    "mcp-method": method,
  };
  const name = (options.params?.name ?? options.params?.uri) as string | undefined;
  if (name !== undefined) headers["mcp-name"] = name;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  Object.assign(headers, options.headers);
  toolsetsHeader({ query: options.path ?? "", ...(options.toolsets !== undefined ? { toolsets: options.toolsets } : {}) }, headers);
  return rawRequest(mcp, "POST", options.path ?? "/", { headers, body: JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 1, method, params }) });
}

/** node:http rather than fetch, which drops a Host header (the DNS-rebinding tests need it). */
export function rawRequest(
  mcp: RunningMcp,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const target = new URL(mcp.url + path);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: init.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
          }
          let body: unknown = text || null;
          if (text && headers.get("content-type")?.includes("json")) body = JSON.parse(text);
          resolve({ status: res.statusCode!, headers, body, text });
        });
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** The common setup of MCP test files: an MCP server and a creator with a full token (mocha hooks). */
export interface McpSuite {
  mcp: RunningMcp;
  creator: TestCreator;
  /** A client the suite closes after its tests. */
  connect(token: string, options?: ConnectOptions): Promise<Client>;
  /** The names tools/list answers now (no client cache), sorted. */
  toolNames(client: Client): Promise<string[]>;
}

export function useMcpWithCreator(options?: Parameters<typeof startMcp>[0]): McpSuite {
  const clients: Client[] = [];
  const suite = {
    async connect(token: string, connectOptions?: ConnectOptions) {
      const client = await connectMcp(suite.mcp, token, connectOptions);
      clients.push(client);
      return client;
    },
    toolNames: async (client: Client) => (await client.listTools(undefined, FRESH)).tools.map((t) => t.name).sort(),
  } as McpSuite;
  before(async () => {
    suite.mcp = await startMcp(options);
    suite.creator = await createTestCreator();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await suite.mcp?.close();
  });
  return suite;
}
