// GET {site_url}/.well-known/http-message-signatures-directory: the JWKS of the keys that sign
// webhook deliveries (draft-meunier-http-message-signatures-directory), media type
// application/http-message-signatures-directory+json. Each JWK's kid is its RFC 7638 thumbprint,
// the keyid a delivery's Signature-Input names. The answer also proves possession of the active key
// as the draft recommends: a response signature (tag "http-message-signatures-directory") covering
// "@authority";req (the site's public host) and Content-Digest of the exact bytes served.
import type Koa from "koa";
import type { Db } from "../../db/tenant.ts";
import { activeSigningKey, signingKeyDirectory } from "../../modules/webhooks/signing-keys.ts";
import { contentDigest, signComponents } from "../../modules/webhooks/message-signature.ts";

export const SIGNATURE_DIRECTORY_PATH = "/.well-known/http-message-signatures-directory";
export const SIGNATURE_DIRECTORY_TYPE = "application/http-message-signatures-directory+json";
export const DIRECTORY_SIGNATURE_TAG = "http-message-signatures-directory";
/** The proof lasts as long as a cached copy of the directory (Cache-Control max-age). */
const PROOF_LIFETIME_MS = 3600_000;

export interface SignatureDirectoryDeps {
  db: Db;
  appKey: Buffer;
  now: () => Date;
  /** {site_url}: its host is the authority the response signature covers. */
  siteUrl: string;
}

export function signatureDirectory(deps: SignatureDirectoryDeps): Koa.Middleware {
  const authority = new URL(deps.siteUrl).host;
  return async (ctx) => {
    const now = deps.now();
    // Creates the key on a fresh database, so the directory is never empty when asked.
    const key = await activeSigningKey(deps.db, deps.appKey, now);
    const body = JSON.stringify(await signingKeyDirectory(deps.db));
    const digest = contentDigest(body);
    const proof = signComponents(
      key,
      "directory",
      [
        { name: "@authority", params: new Map([["req", true]]), value: authority },
        { name: "content-digest", value: digest },
      ],
      { created: now, expires: new Date(now.getTime() + PROOF_LIFETIME_MS), tag: DIRECTORY_SIGNATURE_TAG },
    );
    ctx.set({ "Content-Digest": digest, "Signature-Input": proof["signature-input"], Signature: proof.signature });
    ctx.type = SIGNATURE_DIRECTORY_TYPE;
    ctx.body = body;
  };
}
