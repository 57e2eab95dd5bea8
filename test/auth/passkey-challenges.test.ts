// Anonymous passkey challenges (issue 32, item 2): POST /sign-in/passkey/options needs no sign-in,
// so it must cost no durable row and must spend the network's sign-in budget. The challenge is
// kept in the KV store under the session cookie's key and answered once; the whole ceremony with a
// virtual authenticator is in pages/security.browser.test.ts.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { startAuth } from "../helpers/auth.ts";
import { testDatabase } from "../helpers/backends.ts";
import { TestClock } from "../helpers/clock.ts";
import { FormBrowser } from "../helpers/form-browser.ts";
import { expectOAuthError } from "../helpers/agent-registration.ts";
import { sha256Hex } from "../../src/security/crypto.ts";
import { SIGN_IN_PER_IP } from "../../src/apps/auth/pages/account-pages.ts";
import { ANONYMOUS_SESSION_MS } from "../../src/apps/auth/pages/session.ts";
import { PENDING_SIGN_IN_MS } from "../../src/apps/auth/pages/two-factor-pages.ts";

describe("auth host: anonymous passkey challenges", () => {
  // Frozen just after a 15-minute window begins, so the budget's window cannot turn over mid-test.
  const clock = new TestClock(Math.floor(Date.now() / 900_000) * 900_000 + 1_000);
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth({ now: clock.now, clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  });
  after(() => auth.close());

  const sessionKeyOf = (browser: FormBrowser) => browser.cookies.get("sb_session");

  it("keeps each challenge in the KV store: many calls write no session row", async () => {
    const keys: string[] = [];
    for (let i = 0; i < 20; i++) {
      // A new browser each time, as a flood of clients without cookies would be.
      const browser = new FormBrowser(auth.url);
      const res = await browser.postJson("/sign-in/passkey/options", {}, "/sign-in");
      assert.equal(res.status, 200, await res.clone().text());
      assert.ok(((await res.json()) as { challenge?: string }).challenge, "a challenge");
      const key = sessionKeyOf(browser);
      assert.ok(key, "the challenge's session cookie");
      keys.push(key);
    }
    const { db } = await testDatabase();
    const rows = await db("auth_sessions").whereIn("key_hash", keys.map(sha256Hex)).count({ n: "*" });
    assert.equal(Number(rows[0]!.n), 0, "no auth_sessions row for an anonymous challenge");
  });

  it("answers a kept challenge once, and keeps none longer than an anonymous session lives", async () => {
    assert.ok(ANONYMOUS_SESSION_MS > PENDING_SIGN_IN_MS, "a pending sign-in outlives no anonymous session");
    const browser = new FormBrowser(auth.url);
    assert.equal((await browser.postJson("/sign-in/passkey/options", {}, "/sign-in")).status, 200);
    // The challenge is found (the response is checked and refused), then forgotten.
    const first = await browser.postJson("/sign-in/passkey", { response: { id: "x", rawId: "x", type: "public-key", response: {} } }, "/sign-in");
    assert.match(await expectOAuthError(first, 403, "access_denied"), /not registered with SubBridge/);
    const second = await browser.postJson("/sign-in/passkey", { response: { id: "x", rawId: "x", type: "public-key", response: {} } }, "/sign-in");
    assert.match(await expectOAuthError(second, 400, "invalid_request"), /The passkey request expired/);
  });

  it("spends the network's sign-in budget: past it, 429 too_many_requests with Retry-After", async () => {
    const ip = `10.2.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const limit = SIGN_IN_PER_IP[0]!.limit;
    const browser = new FormBrowser(auth.url);
    const token = await browser.csrfFrom("/sign-in");
    const ask = () =>
      browser.request(
        "POST",
        "/sign-in/passkey/options",
        undefined,
        { "content-type": "application/json", "x-csrf-token": token, "x-test-ip": ip },
        "{}",
      );
    for (let i = 0; i < limit; i++) assert.equal((await ask()).status, 200, `call ${i + 1}`);
    const refused = await ask();
    assert.match(await expectOAuthError(refused, 429, "too_many_requests"), /Too many sign-in attempts from this network/);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    // The same budget as the password form's: the network cannot sign in with a password either.
    const form = await browser.request("POST", "/sign-in", { _csrf: token, email: "ada@example.com", password: "x" }, { "x-test-ip": ip });
    assert.equal(form.status, 429);
  });
});
