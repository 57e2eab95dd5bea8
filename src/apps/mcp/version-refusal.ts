// The -32022 refusal (Unsupported protocol version) made to say how to connect. The SDK's handler
// answers a 2025-era request (an `initialize` from a 1.x client or a v2 client left at its default
// "legacy" negotiation) and a request naming another revision with `Unsupported protocol version:
// <requested>` and data {supported, requested}; a person reading that in a client's log learns
// neither which version to use nor how to make the official client use it (issue 47). The
// answer keeps its status, code, id and data keys (a negotiating client reads `supported`) and
// gains a message and data fields that name 2026-07-28, the client setting and the MCP guide.

/** The one protocol revision served (a leaf here, so the resources and the server card can name it without a cycle). */
export const MCP_PROTOCOL_VERSION = "2026-07-28";

/** JSON-RPC error code of the refusal (the SDK's ProtocolErrorCode.UnsupportedProtocolVersion). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The guide section that shows every client's configuration. */
export const protocolGuideUrl = (docsUrl: string) => `${docsUrl}/guides/mcp#protocol-version`;

/** What to change, in one sentence a client shows its user. */
export const VERSION_REMEDIATION =
  `Use a client that speaks MCP ${MCP_PROTOCOL_VERSION}: with the official TypeScript SDK (@modelcontextprotocol/client 2.x) ` +
  `pass versionNegotiation: { mode: "auto" } to new Client(...); 1.x clients and hosts that only send initialize cannot connect directly.`;

/** The refusal's message: the version the request named (if any), the one served, the setting and the guide. */
export function versionRefusalMessage(requested: string | undefined, docsUrl: string): string {
  const named = requested ? `Unsupported protocol version ${requested}` : "The request named no 2026-era protocol version";
  return `${named}: this server speaks MCP ${MCP_PROTOCOL_VERSION} only. ${VERSION_REMEDIATION} See ${protocolGuideUrl(docsUrl)}`;
}

interface RpcError {
  jsonrpc?: unknown;
  id?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/**
 * The SDK's JSON answer with the -32022 refusal explained, or null when the answer is not that
 * refusal (any other error, a result, a stream) and goes out as the SDK wrote it.
 */
export function explainVersionRefusal(status: number, contentType: string | null, body: Buffer, docsUrl: string): Buffer | null {
  if (status !== 400 || !contentType?.startsWith("application/json")) return null;
  let answer: RpcError;
  try {
    answer = JSON.parse(body.toString("utf8")) as RpcError;
  } catch {
    return null;
  }
  if (answer?.error?.code !== UNSUPPORTED_PROTOCOL_VERSION) return null;
  const data = (answer.error.data && typeof answer.error.data === "object" ? answer.error.data : {}) as Record<string, unknown>;
  const requested = typeof data.requested === "string" && data.requested !== "unknown" ? data.requested : undefined;
  const explained: RpcError = {
    ...answer,
    error: {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: versionRefusalMessage(requested, docsUrl),
      data: { ...data, docs_url: protocolGuideUrl(docsUrl), remediation: VERSION_REMEDIATION },
    },
  };
  return Buffer.from(JSON.stringify(explained));
}
