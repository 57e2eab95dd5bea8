// The common tools/call, answered without the SDK's per-request machinery (a Server, a web Request,
// a transport, zod passes over the message and the result, a web Response: most of an MCP call's
// cost). Only a request the SDK would serve exactly so is taken here, and the answer is the one the
// SDK would send, byte for byte (test/mcp/direct-tool-call.test.ts compares the two):
//   - the SDK's own classifier (classifyInboundRequest: envelope, header/body cross-checks) says
//     "modern request" for the one revision served, and the three standard headers are present and
//     equal to the body (the SDK's presence checks then pass);
//   - the message carries nothing this path does not handle: only jsonrpc/id/method/params, params
//     only name/arguments/_meta, _meta only the three envelope keys;
//   - the tool exists and is in the connection's selection (else the SDK answers -32602).
// Anything else returns null and the SDK serves the request as before.
import type Koa from "koa";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  type CallToolResult,
} from "@modelcontextprotocol/server";
import { MCP_PROTOCOL_VERSION, SERVER_NAME, SERVER_TITLE, type McpRequestState } from "./mcp-server.ts";
import { toolNamed } from "./tool-catalog.ts";
import { isSelected } from "./tool-selection.ts";
import { invokeTool, type ToolCallDeps } from "./tool-call.ts";
import { structuredContentJson } from "./tool-result.ts";
import { perValue } from "./per-value.ts";

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAM_KEYS = new Set(["name", "arguments", "_meta"]);
const META_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** Tool names are snake_case: no Base64 sentinel or other Mcp-Name encoding to decode. */
const PLAIN_NAME = /^[A-Za-z0-9_]+$/;

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain => value !== null && typeof value === "object" && !Array.isArray(value);
const onlyKeys = (value: Plain, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));

interface DirectCall {
  id: string | number;
  name: string;
  args: Plain;
}

/** The call, when the SDK would serve it exactly as this path does; else null. */
export function directToolCall(ctx: Koa.Context, body: unknown): DirectCall | null {
  if (!isPlain(body) || body.method !== "tools/call" || body.jsonrpc !== "2.0" || !onlyKeys(body, MESSAGE_KEYS)) return null;
  const { id, params } = body;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return null;
  if (!isPlain(params) || !onlyKeys(params, PARAM_KEYS)) return null;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string" || !PLAIN_NAME.test(name) || !(args === undefined || isPlain(args))) return null;
  if (!isPlain(meta) || !onlyKeys(meta, META_KEYS) || meta[PROTOCOL_VERSION_META_KEY] !== MCP_PROTOCOL_VERSION) return null;
  if (!isJsonContentType(ctx.get("content-type"))) return null;
  const protocolVersionHeader = ctx.get("mcp-protocol-version").trim();
  const mcpMethodHeader = ctx.get("mcp-method").trim();
  const mcpNameHeader = ctx.get("mcp-name").trim();
  if (protocolVersionHeader !== MCP_PROTOCOL_VERSION || mcpMethodHeader !== "tools/call" || mcpNameHeader !== name) return null;
  if (!classifiedModern(meta, () => classifyInboundRequest({ httpMethod: "POST", protocolVersionHeader, mcpMethodHeader, mcpNameHeader, body })))
    return null;
  return { id, name, args: args ?? {} };
}

/**
 * The SDK classifier's verdict, remembered per `_meta`. Once the checks above have passed, the
 * verdict depends on nothing else: the classifier's schemas look at jsonrpc, id, method and
 * params._meta (a request with a result or error key is not one of ours), and the cross-checks
 * at the headers, which are pinned equal to the body. A client sends the same `_meta` on every
 * call, so its zod passes (two of them failing ones) run once per client rather than per call.
 */
const verdictPerMeta = perValue<boolean>();

function classifiedModern(meta: Plain, classify: () => ReturnType<typeof classifyInboundRequest>): boolean {
  return verdictPerMeta(JSON.stringify(meta), () => {
    const route = classify();
    return route.kind === "modern" && route.messageKind === "request" && route.classification.revision === MCP_PROTOCOL_VERSION;
  });
}

/** What the SDK's 2026-07-28 codec does to a tools/call result on its way out. */
function encodeResult(result: CallToolResult, release: string): Plain {
  const sc = result.structuredContent as unknown;
  let projected: Plain = result;
  // The codec's text fallback for a non-object structuredContent (our bodies are objects).
  if (sc !== undefined && !isPlain(sc) && !(result.content?.some((c) => c.type === "text") ?? false)) {
    projected = { ...result, content: [...(result.content ?? []), { type: "text", text: JSON.stringify(sc) }] };
  }
  return { ...projected, resultType: "complete", _meta: serverMeta(release) };
}

const serverMeta = (release: string) => ({ [SERVER_INFO_META_KEY]: { name: SERVER_NAME, title: SERVER_TITLE, version: release } });

/**
 * The JSON-RPC response, exactly as JSON.stringify({result: encodeResult(result), jsonrpc, id})
 * writes it. A result of tool-result.ts carries its structuredContent's JSON as its text block:
 * that text is spliced in rather than the object serialized a second time (an object, so the
 * codec adds nothing to it).
 */
function responseText(result: CallToolResult, id: string | number, release: string): string {
  const structured = structuredContentJson(result);
  if (structured === null || !isPlain(result.structuredContent)) return JSON.stringify({ result: encodeResult(result, release), jsonrpc: "2.0", id });
  return (
    `{"result":{"content":${JSON.stringify(result.content)},"structuredContent":${structured}${result.isError ? ',"isError":true' : ""}` +
    `,"resultType":"complete","_meta":${JSON.stringify(serverMeta(release))}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`
  );
}

/**
 * Answers `body` when it is a direct tool call (see directToolCall): the JSON-RPC response text,
 * sent as the SDK sends it (200, application/json). Null: let the SDK serve the request.
 */
export async function answerDirectToolCall(deps: ToolCallDeps, ctx: Koa.Context, body: unknown, state: McpRequestState): Promise<string | null> {
  const call = directToolCall(ctx, body);
  if (!call) return null;
  const tool = toolNamed(call.name);
  if (!tool || !isSelected(tool, state.selection)) return null;
  let result: CallToolResult;
  try {
    result = await invokeTool(deps, { principal: state.principal, requestId: state.requestId }, tool, call.args);
  } catch (err) {
    // invokeTool answers every failure as a tool result; this is the SDK's answer to a handler that threw.
    deps.logger.error({ request_id: state.requestId, tool: call.name, err }, "tool call failed");
    return JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: -32603, message: "Internal error" } });
  }
  return responseText(result, call.id, deps.release);
}
