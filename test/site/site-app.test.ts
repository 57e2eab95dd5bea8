// The site surface ({site_url}): the webhook signing-key directory as the directory draft and the
// description's discovery rules want it (media type, Cache-Control, CORS, HEAD, the possession
// proof), the key a delivery's keyid names, /up, and the error envelope for anything else.
import assert from "node:assert/strict";
import { createHash, createPublicKey } from "node:crypto";
import { createVerifier, httpbis } from "http-message-signatures";
import { testDatabase, testKv } from "../helpers/backends.ts";
import { DOCS_URL, serveOnFreePort, TEST_APP_KEY, testLogger } from "../helpers/server.ts";
import { marketingTestDeps } from "../helpers/site.ts";
import { createSiteApp } from "../../src/apps/site/site-app.ts";
import { activeSigningKey } from "../../src/modules/webhooks/signing-keys.ts";
import { messageSignatureHeaders } from "../../src/modules/webhooks/message-signature.ts";
import { fetchSigningKeyDirectory, verifyWebhookMessageSignature } from "../../sdk/src/index.ts";

const PATH = "/.well-known/http-message-signatures-directory";
const TYPE = "application/http-message-signatures-directory+json";

describe("site surface", () => {
  let site: { url: string; close(): Promise<void> };
  before(async () => {
    const { db } = await testDatabase();
    const kv = await testKv();
    site = await serveOnFreePort((url) =>
      createSiteApp({
        db,
        kv,
        appKey: TEST_APP_KEY,
        now: () => new Date(),
        release: "test",
        logger: testLogger,
        siteUrl: url,
        docsUrl: DOCS_URL,
        ...marketingTestDeps(),
      }),
    );
  });
  after(() => site.close());

  it("publishes the signing key as a JWKS whose kid is the keyid deliveries are signed with", async () => {
    const res = await fetch(site.url + PATH);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type")?.split(";")[0], TYPE);
    assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.ok(res.headers.get("x-request-id"));
    const text = await res.text();
    const directory = JSON.parse(text) as { keys: Record<string, string>[] };
    const { db } = await testDatabase();
    const key = await activeSigningKey(db, TEST_APP_KEY, new Date());
    assert.equal(directory.keys.length, 1);
    const [jwk] = directory.keys;
    assert.deepEqual(Object.keys(jwk!).sort(), ["crv", "kid", "kty", "use", "x"]);
    assert.equal(jwk!.kid, key.kid);
    // The kid is the RFC 7638 thumbprint, recomputed here from the served key.
    const thumbprint = createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${jwk!.x}"}`).digest("base64url");
    assert.equal(jwk!.kid, thumbprint);

    // A delivery signed now verifies with the directory as served.
    const at = new Date();
    const url = new URL("https://hooks.example.com/in");
    const body = '{"id":"evt_01JD2Q5V6W7X8Y9Z0ABCDEFGHJ","type":"subscription.created"}';
    const base = { "content-type": "application/json", "sb-event-id": "01JD2Q5V6W7X8Y9Z0ABCDEFGHJ", "sb-event-name": "subscription.created" };
    const headers = { ...base, ...messageSignatureHeaders(key, { method: "POST", url, body, headers: base, at }) };
    await verifyWebhookMessageSignature({ method: "POST", url: url.href, headers, body }, directory, { now: at });
  });

  it("proves possession of the key: a response signature over the site's authority and the body's digest", async () => {
    const res = await fetch(site.url + PATH);
    const text = await res.text();
    const headers = Object.fromEntries(res.headers);
    assert.equal(headers["content-digest"], `sha-256=:${createHash("sha256").update(text).digest("base64")}:`);
    assert.match(
      headers["signature-input"]!,
      /^directory=\("@authority";req "content-digest"\);created=\d+;expires=\d+;keyid="[\w-]{43}";alg="ed25519";tag="http-message-signatures-directory"$/,
    );
    const [jwk] = (JSON.parse(text) as { keys: Record<string, string>[] }).keys;
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: async ({ keyid }) =>
          keyid === jwk!.kid
            ? { id: keyid, algs: ["ed25519"], verify: createVerifier(createPublicKey({ key: jwk!, format: "jwk" }), "ed25519") }
            : null,
      },
      { status: res.status, headers },
      { method: "GET", url: site.url + PATH, headers: {} },
    );
    assert.equal(verified, true);
    const elsewhere = await httpbis.verifyMessage(
      {
        keyLookup: async () => ({
          id: jwk!.kid,
          algs: ["ed25519"],
          verify: createVerifier(createPublicKey({ key: jwk!, format: "jwk" }), "ed25519"),
        }),
      },
      { status: res.status, headers },
      { method: "GET", url: "https://mirror.example.com" + PATH, headers: {} },
    );
    assert.equal(elsewhere, false, "the proof is bound to the site's authority");
  });

  it("answers HEAD with the same headers and no body", async () => {
    const res = await fetch(site.url + PATH, { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type")?.split(";")[0], TYPE);
    assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.ok(Number(res.headers.get("content-length")) > 50);
    assert.equal(await res.text(), "");
  });

  it("serves /up, and the error envelope for other paths and methods", async () => {
    const up = await fetch(site.url + "/up");
    assert.equal(up.status, 200);
    assert.deepEqual(await up.json(), { status: "up", release: "test" });
    const missing = await fetch(site.url + "/nope");
    assert.equal(missing.status, 404);
    const body = (await missing.json()) as { error: { code: string; request_id: string; docs_url: string } };
    assert.equal(body.error.code, "RESOURCE_NOT_FOUND");
    assert.equal(body.error.request_id, missing.headers.get("x-request-id"));
    assert.equal(body.error.docs_url, `${DOCS_URL}/errors#resource_not_found`);
    const post = await fetch(site.url + PATH, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(((await post.json()) as { error: { code: string } }).error.code, "METHOD_NOT_ALLOWED");
    assert.deepEqual(post.headers.get("allow")?.split(", ").sort(), ["GET", "HEAD"]);
  });

  it("is what the SDK's fetchSigningKeyDirectory reads, once per max-age", async () => {
    let calls = 0;
    const counting = (input: string, init?: RequestInit) => {
      calls++;
      return fetch(input, init);
    };
    const siteUrl = site.url.replace("127.0.0.1", "localhost");
    const first = await fetchSigningKeyDirectory(siteUrl, { fetch: counting });
    const again = await fetchSigningKeyDirectory(siteUrl, { fetch: counting });
    assert.equal(calls, 1);
    assert.equal(again, first);
    await fetchSigningKeyDirectory(siteUrl, { fetch: counting, refresh: true });
    assert.equal(calls, 2);
    assert.equal(first.keys.length, 1);
    const missing = await fetchSigningKeyDirectory(siteUrl + "/", { fetch: async () => new Response("no", { status: 404 }), refresh: true }).catch(
      (e: { reason: string }) => e.reason,
    );
    assert.equal(missing, "directory_unavailable");
  });
});
