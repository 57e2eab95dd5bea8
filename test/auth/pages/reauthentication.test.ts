// Changing how a creator signs in needs a recent confirmation that it is them (issue 32, item 5):
// with only a copied session cookie, every request that adds, replaces or removes a second factor
// (or shows one's secret) is refused with the confirmation form and changes nothing; the password
// or a current code opens changes for 10 minutes of the server's clock, in that session only;
// wrong passwords count toward the creator's wrong-codes limit.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { generate } from "otplib";
import { startAuth } from "../../helpers/auth.ts";
import { testDatabase } from "../../helpers/backends.ts";
import { TestClock } from "../../helpers/clock.ts";
import { createTestCreator, TEST_PASSWORD, type TestCreator } from "../../helpers/fixtures.ts";
import { FormBrowser } from "../../helpers/form-browser.ts";

const WINDOW_MS = 10 * 60_000;

describe("auth pages: re-authentication before a change to how the creator signs in", function () {
  this.timeout(60_000);
  // The wrong-codes windows are computed from this clock while their KV counters expire in real
  // time: starting just after a 15-minute window begins keeps a counter from vanishing mid-test.
  const clock = new TestClock(Math.floor(Date.now() / 900_000) * 900_000 + 1_000);
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth({ now: clock.now, clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  });
  after(() => auth?.close());

  async function signedIn(creator: TestCreator): Promise<FormBrowser> {
    const browser = new FormBrowser(auth.url);
    const res = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: "/" }, "/sign-in");
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/");
    return browser;
  }

  /** Another client holding only the session cookie (its own CSRF cookie, as an attacker's browser would have). */
  function copiedCookie(of: FormBrowser): FormBrowser {
    const thief = new FormBrowser(auth.url);
    const name = [...of.cookies.keys()].find((k) => k.endsWith("sb_session"))!;
    thief.cookies.set(name, of.cookies.get(name)!);
    return thief;
  }

  async function confirm(browser: FormBrowser, fields: Record<string, string>, returnTo = "/security"): Promise<Response> {
    return browser.post("/security/confirm", { ...fields, return_to: returnTo }, "/security");
  }

  const code = (secret: string) => generate({ secret, epoch: Math.floor(clock.nowMs() / 1000) });

  /** Signs in, confirms with the password and turns the authenticator app on; returns its secret. */
  async function withAuthenticatorApp(browser: FormBrowser): Promise<string> {
    assert.equal((await confirm(browser, { password: TEST_PASSWORD })).status, 302);
    assert.equal((await browser.post("/security/totp/start", {}, "/security")).status, 302);
    const page = await (await browser.get("/security/totp")).text();
    const secret = /id="totp-secret"[^>]*>([^<]+)</.exec(page)![1]!.replace(/\s/g, "");
    const on = await browser.post("/security/totp/confirm", { code: await code(secret) }, "/security/totp");
    assert.equal(on.status, 200);
    assert.match(await on.text(), /Save your recovery codes/);
    clock.advance(30_000); // the next code is a new step
    return secret;
  }

  async function expectConfirmationForm(res: Response, what: string): Promise<void> {
    const body = await res.text();
    assert.equal(res.status, 403, `${what}: ${body.slice(0, 300)}`);
    assert.match(body, /Confirm it is you/, what);
    assert.match(body, /action="\/security\/confirm"/, what);
  }

  async function factorsOf(creator: TestCreator) {
    const { db } = await testDatabase();
    const [totp, codes, passkeys] = await Promise.all([
      db("totp_factors").where({ user_id: creator.userId }).select("secret_sealed", "enabled_at"),
      db("recovery_codes").where({ user_id: creator.userId }).orderBy("code_hash").pluck("code_hash"),
      db("webauthn_credentials").where({ user_id: creator.userId }).orderBy("id").pluck("id"),
    ]);
    return JSON.stringify({ totp, codes, passkeys });
  }

  async function addPasskeyRow(creator: TestCreator): Promise<string> {
    const { db } = await testDatabase();
    const id = randomUUID();
    await db("webauthn_credentials").insert({
      id,
      user_id: creator.userId,
      credential_id: `cred-${id}`,
      public_key: "AAAA",
      counter: 0,
      transports: JSON.stringify(["internal"]),
      name: "Owner's phone",
      backed_up: false,
      created_at: clock.now(),
      last_used_at: null,
    });
    return id;
  }

  it("refuses every factor change with only a copied session cookie, and changes nothing", async () => {
    const creator = await createTestCreator({ label: "reauth-thief" });
    const owner = await signedIn(creator);
    await withAuthenticatorApp(owner);
    const passkey = await addPasskeyRow(creator);
    const before = await factorsOf(creator);
    clock.advance(WINDOW_MS);

    const thief = copiedCookie(owner);
    // The session works: the page shows where things stand, and the confirmation, without the change forms.
    const page = await thief.get("/security");
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Confirm it is you/);
    assert.doesNotMatch(html, /action="\/security\/(totp\/disable|recovery-codes|passkeys\/[^"]+\/remove)"/);
    assert.doesNotMatch(html, /data-passkey="register"/);

    await expectConfirmationForm(await thief.post("/security/totp/start", {}, "/security"), "start an authenticator app");
    await expectConfirmationForm(await thief.post("/security/totp/confirm", { code: "123456" }, "/security"), "confirm an authenticator app");
    await expectConfirmationForm(await thief.post("/security/totp/disable", { code: "123456" }, "/security"), "turn the app off");
    await expectConfirmationForm(await thief.post("/security/recovery-codes", {}, "/security"), "new recovery codes");
    await expectConfirmationForm(await thief.post(`/security/passkeys/${passkey}/remove`, {}, "/security"), "remove a passkey");
    await expectConfirmationForm(await thief.get("/security/totp"), "the set-up page (its secret)");
    await expectConfirmationForm(await thief.get("/security/recovery-codes/new"), "fresh recovery codes");
    for (const path of ["/security/passkeys/options", "/security/passkeys"]) {
      const res = await thief.postJson(path, { response: {}, name: "Thief's key" }, "/security");
      const body = (await res.json()) as { error: string; error_description: string };
      assert.equal(res.status, 403, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.error, "reauthentication_required");
      assert.match(body.error_description, /confirm it is you/i);
    }
    assert.equal(await factorsOf(creator), before, "nothing changed");
  });

  it("opens changes after the password or a current code, for 10 minutes, then asks again", async () => {
    const creator = await createTestCreator({ label: "reauth-window" });
    const owner = await signedIn(creator);
    // Signing in alone does not open changes.
    await expectConfirmationForm(await owner.post("/security/totp/start", {}, "/security"), "right after sign-in");
    // The confirmation brings the creator back where they were (a same-origin path only).
    const back = await confirm(owner, { password: TEST_PASSWORD }, "/security/totp");
    assert.equal(back.status, 302);
    assert.equal(back.headers.get("location"), "/security/totp");
    const offSite = await confirm(owner, { password: TEST_PASSWORD }, "https://evil.example/x");
    assert.equal(offSite.headers.get("location"), "/");
    const open = await (await owner.get("/security")).text();
    assert.match(open, /changes stay open until \d\d:\d\d UTC/);
    assert.match(open, /action="\/security\/totp\/start"/);

    // The window is the server's: just before its end a change works, at its end it is refused.
    clock.advance(WINDOW_MS - 1_000);
    assert.equal((await owner.post("/security/totp/start", {}, "/security")).status, 302);
    clock.advance(1_000);
    await expectConfirmationForm(await owner.get("/security/totp"), "after 10 minutes");

    // The thief's copy of the cookie shares the session row, not a flag it could set: a client-sent field changes nothing.
    const thief = copiedCookie(owner);
    await expectConfirmationForm(await thief.post("/security/totp/start", { reauthenticated: "1" }, "/security"), "a forged flag");

    // With an app on, a current code confirms too; then every change of the list works.
    const secret = await withAuthenticatorApp(owner);
    const passkey = await addPasskeyRow(creator);
    clock.advance(WINDOW_MS);
    await expectConfirmationForm(await owner.post("/security/recovery-codes", {}, "/security"), "window over");
    assert.equal((await confirm(owner, { code: await code(secret) })).status, 302);
    const codes = await owner.post("/security/recovery-codes", {}, "/security");
    assert.equal(codes.status, 200);
    assert.match(await codes.text(), /New recovery codes are ready/);
    const options = await owner.postJson("/security/passkeys/options", {}, "/security");
    assert.equal(options.status, 200);
    assert.ok(((await options.json()) as { challenge?: string }).challenge);
    const removed = await owner.post(`/security/passkeys/${passkey}/remove`, {}, "/security");
    assert.equal(removed.headers.get("location"), "/security?done=passkey-removed");
    clock.advance(30_000);
    const off = await owner.post("/security/totp/disable", { code: await code(secret) }, "/security");
    assert.equal(off.headers.get("location"), "/security?done=totp-off");
  });

  it("counts wrong passwords and codes toward the creator's wrong-codes limit", async () => {
    const creator = await createTestCreator({ label: "reauth-wrong" });
    const owner = await signedIn(creator);
    const thief = copiedCookie(owner);
    const empty = await confirm(thief, { password: "" });
    assert.equal(empty.status, 422);
    for (let i = 0; i < 5; i++) {
      const res = await confirm(thief, i % 2 ? { code: "000000" } : { password: `not the password ${i}` });
      assert.equal(res.status, 401);
      assert.match(await res.text(), /is not right|does not match/);
    }
    // The limit is the creator's, whatever the session: the owner's right password now waits too.
    const limited = await confirm(owner, { password: TEST_PASSWORD });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    assert.match(await limited.text(), /Too many wrong codes for this account/);
    await expectConfirmationForm(await owner.post("/security/totp/start", {}, "/security"), "still not confirmed");
  });
});
