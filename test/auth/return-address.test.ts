// Return addresses on the authorization host (issue 32): a return_to is followed only to a path on
// the same host. The rule (src/http/return-address.ts) against every payload that led elsewhere,
// then the sign-in page's redirects for a signed-in creator and after the password.
import assert from "node:assert/strict";
import { safeReturnTo } from "../../src/http/return-address.ts";
import { startAuth } from "../helpers/auth.ts";
import { createTestCreator, TEST_PASSWORD } from "../helpers/fixtures.ts";
import { FormBrowser } from "../helpers/form-browser.ts";

const ORIGIN = "http://127.0.0.1:4002";

/** Values that must never leave the host: each answers "/". */
const ELSEWHERE = [
  "/.//evil.example/login",
  `${ORIGIN}//evil.example`,
  `${ORIGIN}/\\evil.example`,
  `${ORIGIN}/%5Cevil.example`,
  `${ORIGIN}/%5cevil.example`,
  "/a/..//evil.example",
  "/a/../..//evil.example",
  "/././/evil.example",
  "//evil.example",
  "///evil.example",
  "////evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "/\u0000/evil.example",
  "/\u007f/evil.example",
  "\t//evil.example",
  " //evil.example",
  "/%2F%2Fevil.example",
  "/%2f/evil.example",
  "/%5C/evil.example",
  "https:evil.example",
  "https://evil.example/login",
  "http:\\\\evil.example",
  "//127.0.0.1:4002@evil.example",
  "http://127.0.0.1:4002@evil.example/",
  "http://127.0.0.1:4003/",
  "https://127.0.0.1:4002/",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "mailto:someone@evil.example",
  "http://[::1",
  "",
];

/** Values that stay on the host: the path and query they are sent on as. */
const HERE: [string, string][] = [
  ["/", "/"],
  ["/tokens", "/tokens"],
  ["/?via=passkey", "/?via=passkey"],
  [
    "/oauth/authorize?client_id=sbc_1&redirect_uri=http%3A%2F%2F127.0.0.1%3A3000%2Fcb",
    "/oauth/authorize?client_id=sbc_1&redirect_uri=http%3A%2F%2F127.0.0.1%3A3000%2Fcb",
  ],
  [`${ORIGIN}/tokens?team=1`, "/tokens?team=1"],
  ["/a/../tokens", "/tokens"],
  ["/tokens#section", "/tokens"],
  ["tokens", "/tokens"],
  // The same scheme without a host is a path here, as a browser resolves it.
  ["http:/evil.example", "/evil.example"],
  ["/next?to=//evil.example", "/next?to=//evil.example"],
];

describe("return addresses: the rule", () => {
  for (const value of ELSEWHERE) {
    it(`sends ${JSON.stringify(value)} home`, () => {
      assert.equal(safeReturnTo(value, ORIGIN), "/");
    });
  }
  for (const [value, path] of HERE) {
    it(`keeps ${JSON.stringify(value)} as ${path}`, () => {
      assert.equal(safeReturnTo(value, ORIGIN), path);
    });
  }
  it("sends nothing home", () => {
    assert.equal(safeReturnTo(undefined, ORIGIN), "/");
    assert.equal(safeReturnTo(null, ORIGIN), "/");
  });
  it("never answers a path another host could be read from, whatever the value", () => {
    // Every payload with each prefix a browser might add or strip.
    for (const value of ELSEWHERE) {
      for (const variant of [value, `/${value}`, `/.${value}`, encodeURI(value), value.toUpperCase()]) {
        const path = safeReturnTo(variant, ORIGIN);
        assert.ok(path.startsWith("/"), `${JSON.stringify(variant)} -> ${path}`);
        assert.doesNotMatch(path, /^\/[/\\]|^\/%(2f|5c)|[\u0000-\u001f\\]/i, `${JSON.stringify(variant)} -> ${path}`);
        assert.equal(new URL(path, ORIGIN).origin, ORIGIN, `${JSON.stringify(variant)} -> ${path}`);
      }
    }
  });
});

describe("return addresses: the sign-in page", () => {
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth({ clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  });
  after(() => auth.close());

  const payloads = (base: string) => [
    "/.//evil.example/login",
    `${base}//evil.example`,
    `${base}/\\evil.example`,
    `${base}/%5Cevil.example`,
    "/a/..//evil.example",
  ];

  it("redirects a signed-in creator only to a path on this host", async () => {
    const creator = await createTestCreator({ label: "return-to" });
    const browser = new FormBrowser(auth.url);
    const signedIn = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: "/tokens" }, "/sign-in");
    assert.equal(signedIn.status, 302);
    assert.equal(signedIn.headers.get("location"), "/tokens");
    for (const value of payloads(auth.url)) {
      const res = await browser.get(`/sign-in?return_to=${encodeURIComponent(value)}`);
      assert.equal(res.status, 302, value);
      assert.equal(res.headers.get("location"), "/", value);
    }
    const kept = await browser.get(`/sign-in?return_to=${encodeURIComponent("/tokens?x=1")}`);
    assert.equal(kept.headers.get("location"), "/tokens?x=1");
  });

  it("redirects after the password only to a path on this host, and the page carries only such a path", async () => {
    const creator = await createTestCreator({ label: "return-to-post" });
    for (const value of payloads(auth.url)) {
      const browser = new FormBrowser(auth.url);
      const page = await (await browser.get(`/sign-in?return_to=${encodeURIComponent(value)}`)).text();
      assert.match(page, /name="return_to" value="\/"/, value);
      const res = await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD, return_to: value }, "/sign-in");
      assert.equal(res.status, 302, value);
      assert.equal(res.headers.get("location"), "/", value);
    }
  });
});
