// The MCP endpoint ({mcp_url}, POST only): DNS-rebinding guard, bearer authentication and the
// budgets, the connection's tool selection, then the SDK's stateless 2026-07-28 handler, which
// owns the JSON-RPC wire rules (per-request _meta envelope, MCP-Protocol-Version / Mcp-Method /
// Mcp-Name checked against the body, server/discover, ttlMs/cacheScope, 400/404/415 answers).
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { readBodyText } from "../http/body.ts";
import type Koa from "koa";
import { createMcpHandler, type AuthInfo } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { ApiError } from "../../errors.ts";
import type { RequestState } from "../http/request.ts";
import { authenticateMcpRequest, MCP_SCOPE, type McpAuthDeps } from "./auth-challenge.ts";
import { dnsRebindingGuard, type HostPolicy } from "./host-validation.ts";
import { buildMcpServer, type McpRequestState, type McpServerDeps } from "./mcp-server.ts";
import { parseToolSelection } from "./tool-selection.ts";

/** Where the request's resolved state rides through the SDK to the per-request factory. */
const STATE_KEY = "subbridge";

export interface McpEndpointDeps extends McpServerDeps, McpAuthDeps {
  hostPolicy: HostPolicy;
}

export function mcpEndpoint(deps: McpEndpointDeps): Koa.Middleware {
  const handler = createMcpHandler(
    (request) => {
      const state = request.authInfo?.extra?.[STATE_KEY] as McpRequestState | undefined;
      if (!state) throw new Error("MCP request reached the SDK without an authenticated principal");
      return buildMcpServer(deps, state, deps.release);
    },
    {
      // 2026-07-28 only: no initialize, no 2025 fallback; other versions answer 400 -32022.
      legacy: "reject",
      onerror: (err) => deps.logger.debug({ err: err.message }, "mcp request refused"),
    },
  );
  const serveNode = toNodeHandler(handler, { onerror: (err) => deps.logger.error({ err }, "mcp transport error") });
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
      const selection = parseToolSelection((name) => ctx.get(name), new URLSearchParams(ctx.querystring));
      const requestState: McpRequestState = { principal, selection, requestId: state.requestId };
      const authInfo: AuthInfo = {
        token: principal.credentialId,
        clientId: `${principal.credentialKind}:${principal.credentialId}`,
        scopes: [MCP_SCOPE],
        extra: { [STATE_KEY]: requestState },
      };
      // Read here, as REST reads its bodies: the same size limit, and bytes that are not UTF-8 are
      // refused (the SDK's own reader would replace them with U+FFFD). The SDK then reads the
      // same bytes from a stand-in request (it accepts any duck-typed IncomingMessage).
      const { bytes } = await readBodyText(ctx);
      const request = Object.assign(Readable.from(bytes.length ? [bytes] : []), {
        method: ctx.req.method,
        url: ctx.req.url,
        headers: ctx.req.headers,
        auth: authInfo,
      });
      // The SDK writes the response itself; headers set above (request id, CORS, rate limit) stay.
      ctx.respond = false;
      await serveNode(request as unknown as IncomingMessage, ctx.res);
    });
}
