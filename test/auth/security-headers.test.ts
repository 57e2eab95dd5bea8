// Headers the hosts send for the browser's protection (issue 32, item 9): Strict-Transport-Security
// on every answer of a surface whose public address is https; the auth pages' CSP sends forms to
// this host only (form-action 'self'), except that the consent page lets its answer reach the app's
// registered redirect URI; the consent page says a private-use redirect URI is an app, not a website.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Koa from "koa";
import { startAuth } from "../helpers/auth.ts";
import { createTestCreator, TEST_PASSWORD } from "../helpers/fixtures.ts";
import { FormBrowser } from "../helpers/form-browser.ts";
import { newVerifier, registerClient } from "../helpers/oauth.ts";
import { serveOnFreePort, testLogger } from "../helpers/server.ts";
import { docsTestAddresses } from "../helpers/site.ts";
import { requestContext, STRICT_TRANSPORT_SECURITY } from "../../src/http/request.ts";
import { ApiError } from "../../src/errors.ts";
import { createDocsApp } from "../../src/apps/docs/docs-app.ts";
import { s256 } from "../../src/modules/oauth/authorization.ts";

const HSTS = "strict-transport-security";

describe("security headers: HSTS", () => {
  it("is sent on every answer, errors included, when the surface's public address is https, and never over http", async () => {
    for (const [publicUrl, expected] of [
      ["https://api.subbridge.test", STRICT_TRANSPORT_SECURITY],
      ["http://127.0.0.1:4000", null],
      [undefined, null],
    ] as const) {
      const running = await serveOnFreePort(() => {
        const app = new Koa();
        app.use(requestContext({ logger: testLogger, docsUrl: "http://docs.test", surface: "test", ...(publicUrl ? { publicUrl } : {}) }));
        app.use(async (ctx) => {
          if (ctx.path === "/fail") throw new ApiError("RESOURCE_NOT_FOUND", "No.");
          ctx.body = "ok";
        });
        return app;
      });
      try {
        for (const path of ["/", "/fail"]) {
          const res = await fetch(`${running.url}${path}`);
          assert.equal(res.headers.get(HSTS), expected, `${publicUrl} ${path}`);
        }
      } finally {
        await running.close();
      }
    }
    assert.equal(STRICT_TRANSPORT_SECURITY, "max-age=31536000");
  });

  it("is sent by the auth host and the reference site on https", async () => {
    const auth = await startAuth({ authUrl: "https://auth.subbridge.test" });
    const docs = await serveOnFreePort(() =>
      createDocsApp({ logger: testLogger, docsUrl: "https://docs.subbridge.test", baseUrl: "https://api.subbridge.test", ...docsTestAddresses() }),
    );
    try {
      for (const url of [`${auth.url}/sign-in`, `${auth.url}/up`, `${auth.url}/nowhere`, `${docs.url}/`, `${docs.url}/nowhere`]) {
        assert.equal((await fetch(url)).headers.get(HSTS), STRICT_TRANSPORT_SECURITY, url);
      }
    } finally {
      await auth.close();
      await docs.close();
    }
  });

  it("is configured on every surface: each app tells requestContext its public address", () => {
    const apps = join(process.cwd(), "src", "apps");
    const calls = readdirSync(apps, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .flatMap((file) => {
        const text = readFileSync(join(apps, file), "utf8");
        return [...text.matchAll(/requestContext\(\{[^)]*\}\)/gs)].map((m) => ({ file, call: m[0] }));
      });
    assert.ok(calls.length >= 6, `found ${calls.length} surfaces`);
    for (const { file, call } of calls) assert.match(call, /publicUrl: deps\.\w+Url/, file);
  });
});

describe("security headers: the auth pages' form-action", () => {
  let auth: Awaited<ReturnType<typeof startAuth>>;
  before(async () => {
    auth = await startAuth({ clientIp: (req) => String(req.headers["x-test-ip"] ?? "127.0.0.1") });
  });
  after(() => auth.close());

  const formActionOf = (res: Response) => /form-action ([^;]+)/.exec(res.headers.get("content-security-policy") ?? "")?.[1];

  it("sends a page's forms to this host only", async () => {
    for (const path of ["/sign-in", "/sign-up", "/nowhere"]) {
      const res = await fetch(`${auth.url}${path}`, { headers: { accept: "text/html" } });
      assert.equal(formActionOf(res), "'self'", path);
    }
  });

  it("lets the consent page's answer reach the app's redirect URI, and names a private-use URI as an app", async () => {
    const creator = await createTestCreator({ label: "form-action" });
    const browser = new FormBrowser(auth.url);
    assert.equal((await browser.post("/sign-in", { email: creator.email, password: TEST_PASSWORD }, "/sign-in")).status, 302);
    const cases: [string, string, RegExp][] = [
      ["http://127.0.0.1:33418/callback", "'self' http://127.0.0.1:33418", /<dd><code>127\.0\.0\.1:33418<\/code><\/dd>/],
      ["https://app.example/oauth/cb", "'self' https://app.example", /<dd><code>app\.example<\/code><\/dd>/],
      // Chromium takes no IPv6 literal as a source: the scheme lets the answer through.
      ["http://[::1]:33418/callback", "'self' http:", /<code>\[::1\]:33418<\/code>/],
      [
        "vscode://github.com/cb",
        "'self' vscode:",
        /<code>vscode:\/\/github\.com\/cb<\/code>\s*<span class="hint">An app on this device that opens vscode: addresses, not a website\.<\/span>/,
      ],
    ];
    for (const [redirectUri, formAction, shown] of cases) {
      const registered = await registerClient({ url: auth.url }, { client_name: "Editor", redirect_uris: [redirectUri] });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      const query = new URLSearchParams({
        response_type: "code",
        client_id: registered.body.client_id,
        redirect_uri: redirectUri,
        scope: "mcp:use",
        state: "s",
        code_challenge: s256(newVerifier()),
        code_challenge_method: "S256",
      });
      const res = await browser.get(`/oauth/authorize?${query}`);
      const page = await res.text();
      assert.equal(res.status, 200, page.slice(0, 500));
      assert.equal(formActionOf(res), formAction, redirectUri);
      assert.match(page, shown, redirectUri);
    }
  });
});
