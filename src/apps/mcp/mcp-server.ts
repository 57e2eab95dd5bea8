// The MCP server for one HTTP request (the SDK's createMcpHandler calls a factory per request and
// keeps nothing between requests, so any number of processes can serve). The low-level Server is
// used on purpose: tools are data (generated/mcp-tools.json) and a call must run our pipeline -
// our validators, our error envelope - not McpServer's per-tool callbacks and its own AJV pass.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, Server, type CallToolResult } from "@modelcontextprotocol/server";
import { ApiError, errorEnvelope, toApiError } from "../../errors.ts";
import type { Principal } from "../../pipeline/context.ts";
import { toolNamed, wireCatalog } from "./tool-catalog.ts";
import { invokeTool, type ToolCallDeps } from "./tool-call.ts";
import { emptyListReason, isSelected, listedTools, unselectedReason, type ToolSelection } from "./tool-selection.ts";
import { callDynamicTool, DYNAMIC_TOOLS, isDynamicTool } from "./dynamic-tools.ts";
import type { McpResource } from "./resources/catalog.ts";
import { GETTING_STARTED_URI } from "./resources/catalog.ts";
import { recordToolCall, secondsSince } from "../../observability/metrics.ts";
import { MCP_PROTOCOL_VERSION } from "./version-refusal.ts";

export { MCP_PROTOCOL_VERSION };
export const SERVER_NAME = "subbridge";
export const SERVER_TITLE = "SubBridge";

/** JSON-RPC server-error code for a refusal that carries our error envelope in `data`. */
export const API_ERROR_CODE = -32000;

const HOUR = 3_600_000;

export interface McpServerDeps extends ToolCallDeps {
  resources: readonly McpResource[];
}

/** What the HTTP layer resolved for this request. */
export interface McpRequestState {
  principal: Principal;
  selection: ToolSelection;
  requestId: string;
  /** The JSON-RPC method the request calls, when it is one the server answers. */
  method?: string;
}

/** Capabilities: the tool and resource sets never change while a process runs. */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false, subscribe: false },
  // Declared with an empty list: clients and the caching rules expect prompts/list to answer.
  prompts: { listChanged: false },
};

const INSTRUCTIONS = `SubBridge runs paid memberships for creators' communities. Each tool is one operation of the SubBridge API and needs exactly one ability (in _meta["subbridge/ability"]); tools/list shows only tools this token can call, from the default toolsets unless the connection names others with the X-MCP-Toolsets header ("all", or "dynamic" for search_tools and call_tool, which reach every tool by name; see subbridge://toolsets). A failed call returns isError: true with structuredContent {error: {code, message, remediation, request_id, fields?, context?}} - act on error.code. Read ${GETTING_STARTED_URI} first and subbridge://team for your team, projects and abilities.`;

function apiProtocolError(err: ApiError, requestId: string, docsUrl: string): ProtocolError {
  return new ProtocolError(API_ERROR_CODE, err.message, errorEnvelope(err, requestId, docsUrl).error);
}

export function buildMcpServer(deps: McpServerDeps, state: McpRequestState, release: string): Server {
  // A token whose abilities admit no listed tool is told why in the instructions (which only
  // server/discover answers) and on the list; a tools/call does not work it out.
  const emptyReason =
    state.method === "server/discover" || state.method === "tools/list" ? emptyListReason(state.selection, state.principal.abilities) : null;
  const server = new Server(
    { name: SERVER_NAME, title: SERVER_TITLE, version: release },
    {
      supportedProtocolVersions: [MCP_PROTOCOL_VERSION],
      capabilities: SERVER_CAPABILITIES,
      instructions: emptyReason ? `${emptyReason} ${INSTRUCTIONS}` : INSTRUCTIONS,
      cacheHints: { "server/discover": { ttlMs: HOUR, cacheScope: "public" } },
    },
  );
  const { principal, selection, requestId } = state;
  const wireToolNamed = wireCatalog(deps);

  // The list depends on the token's abilities and the connection's selection: private.
  server.setRequestHandler("tools/list", () => ({
    tools: [...(selection.dynamic ? DYNAMIC_TOOLS : []), ...listedTools(selection, principal.abilities).map((t) => wireToolNamed(t.name))],
    ...(emptyReason ? { _meta: { "subbridge/empty_reason": emptyReason } } : {}),
    ttlMs: 60_000,
    cacheScope: "private" as const,
  }));

  const callTool = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    if (selection.dynamic && isDynamicTool(name)) {
      return callDynamicTool(name, args, { deps, caller: { principal, requestId }, selection, docsUrl: deps.docsUrl });
    }
    const tool = toolNamed(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`, { name });
    if (!isSelected(tool, selection)) {
      // The reason is in the message itself: clients show the message and rarely `data`.
      const reason = unselectedReason(tool, selection);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} is not available on this connection: ${reason}`, { name, reason });
    }
    const result = await invokeTool(deps, { principal, requestId }, tool, args);
    return server.projectCallToolResult(result, tool.outputSchema);
  };

  server.setRequestHandler("tools/call", async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const started = process.hrtime.bigint();
    // A name outside the catalog is counted as "unknown": the metric's labels stay a bounded set.
    const known = toolNamed(name) !== undefined || isDynamicTool(name);
    let outcome = "not_found";
    try {
      const result = await callTool(name, request.params.arguments ?? {});
      outcome = result.isError ? String((result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ?? "error") : "ok";
      return result;
    } finally {
      recordToolCall(known ? name : "unknown", outcome, secondsSince(started));
    }
  });

  server.setRequestHandler("resources/list", () => ({
    resources: deps.resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    ttlMs: HOUR,
    cacheScope: "public" as const,
  }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [], ttlMs: HOUR, cacheScope: "public" as const }));
  server.setRequestHandler("resources/read", async (request) => {
    const { uri } = request.params;
    const resource = deps.resources.find((r) => r.uri === uri);
    if (!resource) throw new ResourceNotFoundError(uri);
    let text: string;
    try {
      text = await resource.read({ db: deps.db, principal, now: deps.now(), requestId });
    } catch (err) {
      if (err instanceof ApiError) throw apiProtocolError(err, requestId, deps.docsUrl);
      deps.logger.error({ request_id: requestId, uri, err }, "resource read failed");
      throw apiProtocolError(toApiError(err), requestId, deps.docsUrl);
    }
    return { contents: [{ uri, mimeType: resource.mimeType, text }], ...resource.cache };
  });

  server.setRequestHandler("prompts/list", () => ({ prompts: [], ttlMs: HOUR, cacheScope: "public" as const }));
  return server;
}
