// The authorization host's readers apply the REST pipeline's input rules (issue 32, item 6): a NUL,
// an unpaired surrogate or percent-encoding that is not UTF-8 in a query string, a form or a JSON
// body is refused in the endpoint's own shape (a page with the error, or {error,
// error_description}), never a 500, never an error-level log line.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import pino from "pino";
import { startAuth } from "../helpers/auth.ts";
import { FormBrowser } from "../helpers/form-browser.ts";
import { newClient, newVerifier, REDIRECT_URI } from "../helpers/oauth.ts";
import { expectOAuthError } from "../helpers/agent-registration.ts";
import { s256 } from "../../src/modules/oauth/authorization.ts";

const NUL = "\u0000";
const ip = () => `10.32.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

/** Each field of `fields` in turn holding a NUL (inside a value a person could type), then a key holding one. */
function withNul<T extends Record<string, unknown>>(fields: T): [string, Record<string, unknown>][] {
  const variants: [string, Record<string, unknown>][] = Object.keys(fields).map((name) => [
    name,
    { ...fields, [name]: Array.isArray(fields[name]) ? [`a${NUL}b`] : `${String(fields[name])}${NUL}` },
  ]);
  variants.push(["a key", { ...fields, [`x${NUL}`]: "y" }]);
  return variants;
}

describe("auth host: input rules", () => {
  const logged: { level: number; status?: number }[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString()) as { level: number });
        done();
      },
    }),
  );
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth({ logger, clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  });
  after(() => auth.close());
  beforeEach(() => {
    logged.length = 0;
  });
  afterEach(() => {
    const errors = logged.filter((line) => line.level >= 50);
    assert.deepEqual(errors, [], "no error-level log line");
    assert.ok(logged.length > 0, "the requests were logged");
    assert.ok(
      logged.every((line) => line.status === undefined || line.status < 500),
      "no 5xx",
    );
  });

  /** A page refusing what it was sent: HTML with the reason, the status given. */
  async function expectRefusalPage(res: Response, status: number, what: string): Promise<void> {
    const page = await res.text();
    assert.equal(res.status, status, `${what}: ${page.slice(0, 300)}`);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/, what);
    assert.match(page, /role="alert"/, what);
  }

  it("GET /oauth/authorize: a NUL or undecodable bytes in any parameter is a page that says so", async () => {
    const clientId = await newClient(auth);
    const valid = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: "mcp:use",
      state: "st-1",
      code_challenge: s256(newVerifier()),
      code_challenge_method: "S256",
    };
    for (const [name, params] of withNul(valid)) {
      const res = await fetch(`${auth.url}/oauth/authorize?${new URLSearchParams(params as Record<string, string>)}`, { redirect: "manual" });
      assert.equal(res.headers.get("location"), null, name);
      await expectRefusalPage(res, 400, name);
    }
    const res = await fetch(`${auth.url}/oauth/authorize?client_id=%00`, { redirect: "manual" });
    const page = await res.text();
    assert.equal(res.status, 400);
    assert.match(page, /client_id must not contain the NUL character/);
    for (const query of ["client_id=%FF", "state=%ED%A0%80", "client_id=sbc_1&%00=x"]) {
      await expectRefusalPage(await fetch(`${auth.url}/oauth/authorize?${query}`, { redirect: "manual" }), 400, query);
    }
  });

  it("pages read by GET refuse a NUL in their parameters", async () => {
    for (const path of [
      "/sign-in?return_to=%00",
      "/sign-up?return_to=/%00",
      "/sign-up/confirm?token=%00",
      "/invitations/accept?token=a%00",
      "/agent/claim?registration_id=%00",
    ]) {
      await expectRefusalPage(await fetch(`${auth.url}${path}`, { redirect: "manual" }), 400, path);
    }
  });

  it("sign-in and sign-up: a NUL in any field is a page that says so", async () => {
    const forms: [string, Record<string, string>][] = [
      ["/sign-in", { email: "ada@example.com", password: "correct horse battery", return_to: "/" }],
      ["/sign-up", { email: "ada@example.com", password: "correct horse battery", team_name: "Night Owls", return_to: "/" }],
      ["/oauth/authorize", { decision: "approve", client_id: "sbc_1", redirect_uri: REDIRECT_URI, state: "s" }],
    ];
    for (const [path, fields] of forms) {
      for (const [name, form] of withNul(fields)) {
        const browser = new FormBrowser(auth.url);
        const res = await browser.post(path, form as Record<string, string>, "/sign-in");
        await expectRefusalPage(res, 400, `${path} ${name}`);
      }
    }
    const browser = new FormBrowser(auth.url);
    const token = await browser.csrfFrom("/sign-in");
    const res = await browser.request(
      "POST",
      "/sign-in",
      undefined,
      { "content-type": "application/x-www-form-urlencoded" },
      `_csrf=${encodeURIComponent(token)}&email=%FF`,
    );
    await expectRefusalPage(res, 400, "undecodable email");
  });

  it("POST /agent/identity and /agent/identity/claim: invalid_request naming the field", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${auth.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-test-ip": ip() }, body: JSON.stringify(body) });
    const identity = { type: "service_auth", login_hint: "ada@example.com", client_name: "Release bot", scope: "project:view" };
    const legacy = { type: "identity_assertion", assertion_type: "verified_email", assertion: "ada@example.com", client_name: "Bot" };
    for (const body of [identity, legacy]) {
      for (const [name, sent] of withNul(body)) {
        const description = await expectOAuthError(await post("/agent/identity", sent), 400, "invalid_request");
        assert.match(description, /must not contain the NUL character/, name);
      }
    }
    assert.match(
      await expectOAuthError(await post("/agent/identity", { ...identity, client_name: "\ud800" }), 400, "invalid_request"),
      /client_name must be valid Unicode/,
    );
    for (const [name, sent] of withNul({ claim_token: `sbc_${"a".repeat(40)}`, email: "ada@example.com" })) {
      assert.match(await expectOAuthError(await post("/agent/identity/claim", sent), 400, "invalid_request"), /NUL/, name);
    }
  });

  it("POST /oauth/register: invalid_client_metadata naming the field (RFC 7591)", async () => {
    const register = (body: unknown) =>
      fetch(`${auth.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-ip": ip() },
        body: JSON.stringify(body),
      });
    for (const [name, sent] of withNul({ client_name: "Editor", redirect_uris: [REDIRECT_URI] })) {
      assert.match(await expectOAuthError(await register(sent), 400, "invalid_client_metadata"), /NUL/, name);
    }
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = [deep];
    assert.match(
      await expectOAuthError(await register({ client_name: "Deep", redirect_uris: [REDIRECT_URI], extra: deep }), 400, "invalid_client_metadata"),
      /nests arrays or objects deeper/,
    );
    assert.match(
      await expectOAuthError(await register({ client_name: "\udfff", redirect_uris: [REDIRECT_URI] }), 400, "invalid_client_metadata"),
      /unpaired UTF-16 surrogate/,
    );
  });

  it("POST /oauth/token: invalid_request naming the parameter", async () => {
    const fields = { grant_type: "authorization_code", client_id: "sbc_1", code: "c", redirect_uri: REDIRECT_URI, code_verifier: newVerifier() };
    for (const [name, sent] of withNul(fields)) {
      const res = await fetch(`${auth.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(sent as Record<string, string>).toString(),
      });
      assert.match(await expectOAuthError(res, 400, "invalid_request"), /NUL/, name);
    }
    const res = await fetch(`${auth.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&refresh_token=%C0",
    });
    assert.match(await expectOAuthError(res, 400, "invalid_request"), /refresh_token is not valid UTF-8/);
  });

  it("the passkey endpoints: invalid_request naming the field", async () => {
    const browser = new FormBrowser(auth.url);
    const res = await browser.postJson("/sign-in/passkey", { response: { id: NUL }, return_to: "/" }, "/sign-in");
    assert.match(await expectOAuthError(res, 400, "invalid_request"), /response\.id must not contain the NUL character/);
  });
});
