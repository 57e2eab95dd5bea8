// The authorization host's pages without a browser: cookie flags on an https auth_url, and the
// answer for an address with no page (a page for a browser, the OAuth error shape for a client).
import assert from "node:assert/strict";
import { startAuth } from "../../helpers/auth.ts";

describe("auth pages: cookies on an https auth_url", () => {
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth({ authUrl: "https://auth.subbridge.test" });
  });
  after(() => auth.close());

  it("are Secure, HttpOnly, SameSite=Lax and __Host- prefixed", async () => {
    const res = await fetch(`${auth.url}/sign-in`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-sb_csrf="));
    assert.ok(cookie, res.headers.getSetCookie().join("; "));
    assert.match(cookie, /; path=\//);
    assert.match(cookie, /; secure/i);
    assert.match(cookie, /; samesite=lax/i);
    assert.match(cookie, /; httponly/i);
    assert.doesNotMatch(cookie, /domain=/i);
  });
});

describe("auth pages: an address with no page", () => {
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth();
  });
  after(() => auth.close());

  it("is a page for a browser and {error, error_description} for a client", async () => {
    const page = await fetch(`${auth.url}/no-such-page`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    assert.equal(page.status, 404);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await page.text(), /There is no page at this address\./);
    const api = await fetch(`${auth.url}/no-such-page`, { headers: { accept: "application/json" } });
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { error: string }).error, "not_found");
  });
});
