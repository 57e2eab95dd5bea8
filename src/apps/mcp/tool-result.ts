/**
 * How a tool call answers: the MCP encoding of the REST responses.
 *
 * Success: `structuredContent` is the REST success body (it validates against the tool's
 * `outputSchema`) and `content` holds one text block with the same JSON. An operation without a
 * body (REST 204) answers a short text block and no `structuredContent`.
 *
 * Failure (anything REST would answer with its error envelope: a missing ability, a foreign id,
 * invalid arguments, a domain refusal): a normal JSON-RPC result with `isError: true`, so the model
 * sees it and can act on it, carrying the envelope itself:
 *
 *   structuredContent: {error: {code, message, docs_url, remediation, request_id, fields?, context?}}
 *   content: [{type: "text", text: JSON.stringify(<that envelope>)}]
 *
 * Match on `error.code` (the REST catalog's codes); `fields` maps each offending argument to its
 * messages (VALIDATION_FAILED), `context.required_ability` names a missing ability, `request_id`
 * equals the HTTP response's X-Request-Id.
 *
 * Unknown tools (or tools outside the connection's toolset selection) and protocol-level problems
 * stay JSON-RPC errors (-32602 and the transport's codes).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { errorEnvelope, type ApiError } from "../../errors.ts";

function structured(text: string, structuredContent: Record<string, unknown>, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent, ...(isError ? { isError: true } : {}) };
}

export function toolSuccess(toolName: string, output: unknown): CallToolResult {
  if (output === undefined || output === null) {
    return { content: [{ type: "text", text: `${toolName} succeeded; it returns no data.` }] };
  }
  return structured(JSON.stringify(output), output as Record<string, unknown>, false);
}

export function toolFailure(err: ApiError, requestId: string, docsUrl: string): CallToolResult {
  const envelope = errorEnvelope(err, requestId, docsUrl);
  return structured(JSON.stringify(envelope), envelope as unknown as Record<string, unknown>, true);
}
