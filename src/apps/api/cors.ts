// CORS on the REST host (issue 32): browser clients and the reference site's "Test request" call
// it with a bearer token, so it follows the MCP host's rules (src/http/cors.ts) with REST's methods
// and headers: Idempotency-Key in, the request id, budget and replay headers out.
import { bearerCors } from "../../http/cors.ts";

export const API_CORS = {
  allowMethods: "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  allowHeaders: "Authorization, Content-Type, Accept, Idempotency-Key",
  exposeHeaders: "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, WWW-Authenticate, Idempotent-Replay, Allow",
} as const;

export const apiCors = () => bearerCors(API_CORS);
