// Every delivery's RFC 9421 signature: made by messageSignatureHeaders with the database's Ed25519
// key, it verifies with the SDK's verifier and with a third-party implementation
// (http-message-signatures), survives a real HTTP hop, and any tampering fails with its own reason.
// The key itself: created once however many processes race, sealed at rest, kid = RFC 7638 thumbprint.
import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { createVerifier, httpbis } from "http-message-signatures";
import { testDatabase } from "../../helpers/backends.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import { openDatabase } from "../../../src/db/database.ts";
import { deliveryHeaders } from "../../../src/modules/webhooks/signature.ts";
import { messageSignatureHeaders, signComponents, type CoveredComponent } from "../../../src/modules/webhooks/message-signature.ts";
import {
  activeSigningKey,
  ed25519Thumbprint,
  forgetCachedSigningKey,
  loadOrCreateSigningKey,
  signingKeyDirectory,
  type WebhookSigningKey,
} from "../../../src/modules/webhooks/signing-keys.ts";
import { verifyWebhookMessageSignature, WebhookVerificationError, type WebhookVerificationFailure } from "../../../sdk/src/index.ts";
import { startReceiver } from "./support.ts";

const URL_ = new URL("https://hooks.example.com/subbridge?team=1");
const BODY = JSON.stringify({ id: "evt_01JD2Q5V6W7X8Y9Z0ABCDEFGHJ", type: "subscription.created", data: { plan: "gold" } });

function signedDelivery(key: WebhookSigningKey, at: Date, url = URL_) {
  const base = deliveryHeaders({
    secret: "whsec_test",
    body: BODY,
    event: { id: "evt_01JD2Q5V6W7X8Y9Z0ABCDEFGHJ", type: "subscription.created" },
    release: "1.0.0",
    at,
  });
  return { ...base, ...messageSignatureHeaders(key, { method: "POST", url, body: BODY, headers: base, at }) };
}

/** The reason verification failed with ("passed" when it did not fail). */
const failure = (verification: Promise<unknown>): Promise<WebhookVerificationFailure | string> =>
  verification.then(
    () => "passed",
    (e: unknown) => (e instanceof WebhookVerificationError ? e.reason : `not a WebhookVerificationError: ${String(e)}`),
  );

/** http-message-signatures' verifier, keys looked up in the published directory by keyid. */
function thirdPartyVerify(headers: Record<string, string>, url: string, directory: { keys: Record<string, string>[] }) {
  return httpbis.verifyMessage(
    {
      keyLookup: async ({ keyid }) => {
        const jwk = directory.keys.find((k) => k.kid === keyid);
        return jwk ? { id: jwk.kid, algs: ["ed25519"], verify: createVerifier(createPublicKey({ key: jwk, format: "jwk" }), "ed25519") } : null;
      },
      requiredFields: ["@method", "@target-uri", "content-digest", "content-type", "sb-event-id"],
      requiredParams: ["created", "keyid", "alg"],
    },
    { method: "POST", url, headers },
  );
}

describe("webhook message signatures (RFC 9421)", () => {
  let key: WebhookSigningKey;
  let directory: { keys: Record<string, string>[] };
  before(async () => {
    const { db } = await testDatabase();
    key = await activeSigningKey(db, TEST_APP_KEY, new Date());
    directory = await signingKeyDirectory(db);
  });

  it("signs method, target URI, Content-Digest of the body and the SB headers, tagged, keyed by the thumbprint", () => {
    const at = new Date("2026-11-25T10:00:00Z");
    const headers = signedDelivery(key, at);
    assert.equal(headers["content-digest"], `sha-256=:${createHash("sha256").update(BODY).digest("base64")}:`);
    assert.equal(
      headers["signature-input"],
      `subbridge=("@method" "@target-uri" "content-digest" "content-type" "sb-event-id" "sb-event-name");created=1795600800;expires=1795601100;keyid="${key.kid}";alg="ed25519";tag="subbridge-webhook"`,
    );
    assert.match(headers.signature!, /^subbridge=:[A-Za-z0-9+/]{86}==:$/);
    assert.equal(key.kid, ed25519Thumbprint(key.publicJwk.x!));
    assert.deepEqual(directory.keys, [key.publicJwk]);
  });

  it("is accepted by the SDK's verifier and by http-message-signatures, also after a real HTTP hop", async () => {
    const at = new Date();
    const headers = signedDelivery(key, at);
    const verified = await verifyWebhookMessageSignature({ method: "POST", url: URL_.href, headers, body: BODY }, directory, { now: at });
    assert.equal(verified.keyid, key.kid);
    assert.equal(verified.label, "subbridge");
    assert.equal(verified.created, Math.floor(at.getTime() / 1000));
    assert.equal(await thirdPartyVerify(headers, URL_.href, directory), true);

    // As a receiver gets it: Node's req.headers and the raw body bytes.
    const receiver = await startReceiver();
    try {
      const target = new URL(receiver.url);
      const sent = signedDelivery(key, at, target);
      await fetch(target, { method: "POST", headers: sent, body: BODY });
      const [received] = receiver.received;
      const request = { method: "POST", url: receiver.url, headers: received!.headers, body: Buffer.from(received!.body) };
      await verifyWebhookMessageSignature(request, directory, { now: at });
      const flat = Object.fromEntries(Object.entries(received!.headers).map(([k, v]) => [k, String(v)]));
      assert.equal(await thirdPartyVerify(flat, receiver.url, directory), true);
    } finally {
      await receiver.close();
    }
  });

  it("refuses a changed body, covered header, method, URL or time with a precise reason", async () => {
    const at = new Date("2026-11-25T10:00:00Z");
    const headers = signedDelivery(key, at);
    const request = { method: "POST", url: URL_.href, headers, body: BODY };
    const verify = (changes: Partial<typeof request>, now: Date | number = at, toleranceSeconds?: number) =>
      failure(verifyWebhookMessageSignature({ ...request, ...changes }, directory, { now, ...(toleranceSeconds ? { toleranceSeconds } : {}) }));

    assert.equal(await verify({ body: BODY.replace("gold", "free") }), "content_digest_mismatch");
    assert.equal(await verify({ headers: { ...headers, "sb-event-name": "subscription.cancelled" } }), "signature_mismatch");
    assert.equal(await verify({ headers: { ...headers, "content-type": "text/plain" } }), "signature_mismatch");
    const digest = `sha-256=:${createHash("sha256").update("{}").digest("base64")}:`;
    assert.equal(await verify({ headers: { ...headers, "content-digest": digest }, body: "{}" }), "signature_mismatch");
    assert.equal(await verify({ method: "PUT" }), "signature_mismatch");
    assert.equal(await verify({ url: "https://hooks.example.com/subbridge?team=2" }), "signature_mismatch");
    assert.equal(await verify({ url: "https://other.example.com/subbridge?team=1" }), "signature_mismatch");
    assert.equal(await verify({}, new Date(at.getTime() + 301_000)), "timestamp_out_of_tolerance");
    assert.equal(await verify({}, Math.floor(at.getTime() / 1000) - 301), "timestamp_out_of_tolerance");
    assert.equal(await verify({}, new Date(at.getTime() + 400_000), 600), "signature_expired");
    const { "sb-event-id": _, ...withoutEventId } = headers;
    assert.equal(await verify({ headers: withoutEventId }), "missing_component");
    const { signature: __, ...unsigned } = headers;
    assert.equal(await verify({ headers: unsigned }), "missing_signature");
    assert.equal(await verify({ headers: { ...headers, signature: "subbridge=:bm90IGEgc2lnbmF0dXJl:" } }), "signature_mismatch");
    assert.equal(await verify({ headers: { ...headers, "signature-input": "subbridge=(" } }), "malformed_signature");
    // Within tolerance, both ways, it passes.
    await verifyWebhookMessageSignature(request, directory, { now: new Date(at.getTime() + 299_000) });
    await verifyWebhookMessageSignature(request, directory, { now: new Date(at.getTime() - 299_000) });

    // The third-party verifier agrees on a changed covered header and URL.
    const fresh = signedDelivery(key, new Date());
    assert.equal(await thirdPartyVerify(fresh, URL_.href, directory), true);
    assert.equal(await thirdPartyVerify({ ...fresh, "sb-event-id": "01JD2Q5V6W7X8Y9Z0ABCDEFGHK" }, URL_.href, directory), false);
    assert.equal(await thirdPartyVerify(fresh, "https://hooks.example.com/elsewhere", directory), false);
  });

  it("refuses a key the directory does not list, and a signature that covers less", async () => {
    const at = new Date("2026-11-25T10:00:00Z");
    const request = { method: "POST", url: URL_.href, headers: signedDelivery(key, at), body: BODY };
    const other = { keys: [{ ...key.publicJwk, x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }] };
    assert.equal(await failure(verifyWebhookMessageSignature(request, other, { now: at })), "unknown_key");

    const partial: CoveredComponent[] = [
      { name: "@method", value: "POST" },
      { name: "content-digest", value: request.headers["content-digest"]! },
    ];
    const fields = signComponents(key, "subbridge", partial, { created: at, expires: new Date(at.getTime() + 300_000), tag: "subbridge-webhook" });
    const weaker = { ...request, headers: { ...request.headers, ...fields } };
    assert.equal(await failure(verifyWebhookMessageSignature(weaker, directory, { now: at })), "missing_component");
  });

  it("finds the key by its RFC 7638 thumbprint (RFC 8037 test key), whatever kid label the directory shows", async () => {
    // RFC 8037 appendix A.1 key; A.3 gives its thumbprint.
    const jwk = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
    const kid = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";
    assert.equal(ed25519Thumbprint(jwk.x), kid);
    const rfcKey: WebhookSigningKey = { kid, privateKey: createPrivateKey({ key: jwk, format: "jwk" }), publicJwk: {} };
    const at = new Date("2026-11-25T10:00:00Z");
    const request = { method: "POST", url: URL_.href, headers: signedDelivery(rfcKey, at), body: BODY };
    const published = { keys: [{ kty: "OKP", crv: "Ed25519", x: jwk.x, kid: "some-label" }] };
    assert.equal((await verifyWebhookMessageSignature(request, published, { now: at })).keyid, kid);
  });
});

describe("webhook signing key", () => {
  it("is created once when processes race on an empty table, and cached after", async () => {
    const { db, databaseUrl } = await testDatabase();
    // A second connection pool to the same database, as another process would have (PostgreSQL).
    const other = databaseUrl ? openDatabase({ url: databaseUrl }) : db;
    try {
      for (let round = 0; round < 4; round++) {
        await db("webhook_signing_keys").delete();
        forgetCachedSigningKey(db);
        const now = new Date();
        const keys = await Promise.all([
          loadOrCreateSigningKey(db, TEST_APP_KEY, now),
          loadOrCreateSigningKey(other, TEST_APP_KEY, now),
          activeSigningKey(db, TEST_APP_KEY, now),
          loadOrCreateSigningKey(other, TEST_APP_KEY, now),
        ]);
        assert.deepEqual(new Set(keys.map((k) => k.kid)).size, 1, `round ${round}: ${keys.map((k) => k.kid).join(", ")}`);
        assert.equal(Number((await db("webhook_signing_keys").count({ n: "*" }))[0]!.n), 1);
      }
      const cached = await activeSigningKey(db, TEST_APP_KEY, new Date());
      assert.equal(await activeSigningKey(db, TEST_APP_KEY, new Date()), cached);
      assert.deepEqual(
        (await signingKeyDirectory(db)).keys.map((k) => k.kid),
        [cached.kid],
      );
    } finally {
      if (other !== db) await other.destroy();
      forgetCachedSigningKey(db);
    }
  });

  it("keeps the private key sealed with APP_KEY: the row holds neither the key nor its seed", async () => {
    const { db } = await testDatabase();
    const key = await activeSigningKey(db, TEST_APP_KEY, new Date());
    const row = await db("webhook_signing_keys").where({ kid: key.kid }).first();
    const pkcs8 = key.privateKey.export({ format: "der", type: "pkcs8" });
    const seed = key.privateKey.export({ format: "jwk" }).d!;
    const stored = JSON.stringify(row);
    for (const secret of [
      pkcs8.toString("base64url"),
      pkcs8.toString("base64"),
      pkcs8.toString("hex"),
      seed,
      Buffer.from(seed, "base64url").toString("hex"),
    ])
      assert.ok(!stored.includes(secret), "the private key is stored in clear");
    assert.match(row.private_key_sealed, /^v1\./);
    assert.equal(row.public_x, key.publicJwk.x);
    await assert.rejects(loadOrCreateSigningKey(db, Buffer.alloc(32, 9), new Date()), /cannot be opened with this APP_KEY/);
  });
});
