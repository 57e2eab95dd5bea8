// The MCP endpoint ({mcp_url}, POST only): DNS-rebinding guard, bearer authentication and the
// budgets, the connection's tool selection, then the SDK's stateless 2026-07-28 handler, which
// owns the JSON-RPC wire rules (per-request _meta envelope, MCP-Protocol-Version / Mcp-Method /
// Mcp-Name checked against the body, server/discover, ttlMs/cacheScope, 400/404/415 answers).
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { readBodyText } from "../../http/body.ts";
import type Koa from "koa";
import { createMcpHandler, type AuthInfo } from "@modelcontextprotocol/server";
import { ApiError } from "../../errors.ts";
import type { RequestState } from "../../http/request.ts";
import { authenticateMcpRequest, MCP_SCOPE, type McpAuthDeps } from "./auth-challenge.ts";
import { dnsRebindingGuard, type HostPolicy } from "./host-validation.ts";
import { buildMcpServer, type McpRequestState, type McpServerDeps } from "./mcp-server.ts";
import { parseToolSelection } from "./tool-selection.ts";
import { publicUrlOf } from "../../http/public-url.ts";
import { explainVersionRefusal } from "./version-refusal.ts";

/** The endpoint URL's query when it has none (most connections). */
const NO_QUERY = new URLSearchParams();

/** The JSON-RPC methods the log line and the metrics name; any other is counted as "mcp". */
const MCP_METHODS = new Set([
  "server/discover",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
]);

/** How much of a tool name the log line keeps (the catalog's are far shorter; a client may send anything). */
const LOGGED_TOOL_LENGTH = 100;

/** Names the request's JSON-RPC method and, for tools/call, the tool, on the request's log line. */
function describeCall(state: RequestState, body: unknown): void {
  const message = (body ?? {}) as { method?: unknown; params?: { name?: unknown } };
  state.operation = typeof message.method === "string" && MCP_METHODS.has(message.method) ? message.method : "mcp";
  if (state.operation === "tools/call" && typeof message.params?.name === "string") state.tool = message.params.name.slice(0, LOGGED_TOOL_LENGTH);
}

/** Where the request's resolved state rides through the SDK to the per-request factory. */
const STATE_KEY = "subbridge";

export interface McpEndpointDeps extends McpServerDeps, McpAuthDeps {
  hostPolicy: HostPolicy;
  /** The reference site: the version refusal links its MCP guide. */
  docsUrl: string;
}

/**
 * The web Request the SDK's handler takes: the method, URL and headers of the HTTP request, and
 * the body only when the SDK must parse it itself. No abort signal: a tool call is one short
 * operation that runs to its end (its transaction commits or rolls back) whether or not the client
 * is still there to read the answer.
 */
function webRequest(ctx: Koa.Context, mcpUrl: string, body: string | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(publicUrlOf(ctx, mcpUrl), {
    method: "POST",
    headers,
    ...(body !== null ? { body } : {}),
  });
}

export function mcpEndpoint(deps: McpEndpointDeps): Koa.Middleware {
  const handler = createMcpHandler(
    (request) => {
      const state = request.authInfo?.extra?.[STATE_KEY] as McpRequestState | undefined;
      if (!state) throw new Error("MCP request reached the SDK without an authenticated principal");
      return buildMcpServer(deps, state, deps.release);
    },
    {
      // 2026-07-28 only: no initialize, no 2025 fallback; other versions answer 400 -32022,
      // which explainVersionRefusal below makes name the version, the client setting and the guide.
      legacy: "reject",
      onerror: (err) => deps.logger.debug({ err: err.message }, "mcp request refused"),
    },
  );
  const guard = dnsRebindingGuard(deps.hostPolicy, deps.mcpUrl);

  return async (ctx) =>
    guard(ctx, async () => {
      if (ctx.method !== "POST") {
        // Only 2026-07-28 is served: no GET stream and no sessions to DELETE.
        throw new ApiError("METHOD_NOT_ALLOWED", `${ctx.method} is not accepted on the MCP endpoint; send JSON-RPC requests with POST.`, {
          headers: { Allow: "POST" },
        });
      }
      const principal = await authenticateMcpRequest(ctx, deps);
      const state = ctx.state as RequestState;
      state.credentialId = principal.credentialId;
      const selection = parseToolSelection((name) => ctx.get(name), ctx.querystring ? new URLSearchParams(ctx.querystring) : NO_QUERY);
      // Read here, as REST reads its bodies: the same size limit, and bytes that are not UTF-8 are
      // refused (the SDK's own reader would replace them with U+FFFD). The SDK is given the parsed
      // body, so it neither reads nor clones the request; a body that is not JSON is passed on as
      // text for the SDK's own parse-error answer.
      const { text } = await readBodyText(ctx);
      let parsedBody: unknown;
      try {
        parsedBody = text.length ? JSON.parse(text) : undefined;
      } catch {
        parsedBody = undefined;
      }
      describeCall(state, parsedBody);
      const requestState: McpRequestState = { principal, selection, requestId: state.requestId, method: state.operation };
      const authInfo: AuthInfo = {
        token: principal.credentialId,
        clientId: `${principal.credentialKind}:${principal.credentialId}`,
        scopes: [MCP_SCOPE],
        extra: { [STATE_KEY]: requestState },
      };
      const response = await handler.fetch(webRequest(ctx, deps.mcpUrl, parsedBody === undefined ? text : null), {
        authInfo,
        ...(parsedBody !== undefined ? { parsedBody } : {}),
      });
      // Headers set above (request id, CORS, rate limit) stay; the SDK's are added.
      ctx.status = response.status;
      for (const [name, value] of response.headers) ctx.set(name, value);
      if (!response.body) ctx.body = "";
      else if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
        ctx.body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
      } else {
        const body = Buffer.from(await response.arrayBuffer());
        ctx.body = explainVersionRefusal(response.status, response.headers.get("content-type"), body, deps.docsUrl) ?? body;
      }
    });
}
