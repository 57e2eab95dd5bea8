// CORS on the MCP host, as the service description sets it: any origin, no credentials (bearer
// tokens only; cookies are never read), preflight answered before authentication and cached
// for a day. Allow-Headers adds to the described list the headers a 2026-07-28 client must send
// (Mcp-Method, Mcp-Name) and the tool selection headers; without them a browser's preflight for
// every 2026-07-28 request would fail.
import { bearerCors } from "../../http/cors.ts";

export const CORS_ALLOW_METHODS = "POST, GET, DELETE, OPTIONS";
export const CORS_ALLOW_HEADERS =
  "Authorization, Content-Type, Accept, MCP-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, X-MCP-Toolsets, X-MCP-Readonly";
export const CORS_EXPOSE_HEADERS = "MCP-Session-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, WWW-Authenticate";

export const mcpCors = () => bearerCors({ allowMethods: CORS_ALLOW_METHODS, allowHeaders: CORS_ALLOW_HEADERS, exposeHeaders: CORS_EXPOSE_HEADERS });
