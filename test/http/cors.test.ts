// CORS on the REST host (issue 32): browser clients and the reference site's "Test request" call
// it with a bearer token. Any origin, never credentials, preflight answered before authentication
// and routing, the headers a client reads exposed, on errors too.
import assert from "node:assert/strict";
import { useApiWithCreator } from "../helpers/suite.ts";

describe("rest cors", () => {
  const suite = useApiWithCreator();
  const origin = "https://reference.example";

  it("answers a preflight before authentication, without credentials", async () => {
    const res = await fetch(`${suite.api.url}/v1/projects`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, idempotency-key" },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("access-control-allow-methods"), "GET, POST, PUT, PATCH, DELETE, OPTIONS");
    const allowed = res.headers.get("access-control-allow-headers")!.split(", ");
    for (const header of ["Authorization", "Content-Type", "Idempotency-Key"]) assert.ok(allowed.includes(header), header);
    assert.equal(res.headers.get("access-control-max-age"), "86400");
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
    assert.equal(res.headers.get("x-ratelimit-limit"), null, "a preflight spends no budget");
  });

  it("lets a page on another origin read answers and their headers, refusals included", async () => {
    const ok = await fetch(`${suite.api.url}/v1/teams/current`, { headers: { origin, authorization: `Bearer ${suite.creator.token}` } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("access-control-allow-origin"), "*");
    const exposed = ok.headers.get("access-control-expose-headers")!.split(", ");
    for (const header of ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "Retry-After", "Idempotent-Replay"])
      assert.ok(exposed.includes(header), header);
    const refused = await fetch(`${suite.api.url}/v1/teams/current`, { headers: { origin } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("access-control-allow-origin"), "*");
    const unknown = await fetch(`${suite.api.url}/v1/nothing-here`, { headers: { origin } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("access-control-allow-origin"), "*");
  });
});
