// The service's Ed25519 signing key for deliveries' HTTP Message Signatures (RFC 9421), kept in
// the database (migration 20261125_01) so every process and machine on one PostgreSQL signs with
// the same key. The first caller creates it: several processes may start together, so each inserts
// a fresh key with "on conflict do nothing" (one active key at most, by a partial unique index) and
// then reads whichever key won. kid = the JWK SHA-256 thumbprint (RFC 7638), as the directory draft
// (draft-meunier-http-message-signatures-directory) asks, so a receiver can check the directory's
// labelling by recomputing it.
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import type { Db } from "../../db/tenant.ts";
import { decrypt, encrypt } from "../../security/crypto.ts";

export interface WebhookSigningKey {
  kid: string;
  privateKey: KeyObject;
  /** {kty: "OKP", crv: "Ed25519", x, kid, use: "sig"}: what the directory publishes. */
  publicJwk: Record<string, string>;
}

const TABLE = "webhook_signing_keys";

interface KeyRow {
  kid: string;
  public_x: string;
  private_key_sealed: string;
  created_at: Date | string;
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 over its required members in lexical order. */
export function ed25519Thumbprint(x: string): string {
  return createHash("sha256")
    .update(JSON.stringify({ crv: "Ed25519", kty: "OKP", x }), "utf8")
    .digest("base64url");
}

function publicJwk(x: string): Record<string, string> {
  return { kty: "OKP", crv: "Ed25519", x, kid: ed25519Thumbprint(x), use: "sig" };
}

/** What the private key's ciphertext is bound to: a sealed key copied to another row does not open. */
const bindingOf = (kid: string) => `webhook-signing-key:${kid}`;

function newKeyRow(appKey: Buffer, now: Date): KeyRow {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = publicKey.export({ format: "jwk" }).x!;
  const kid = ed25519Thumbprint(x);
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" }).toString("base64url");
  return { kid, public_x: x, private_key_sealed: encrypt(appKey, pkcs8, bindingOf(kid)), created_at: now };
}

function openKeyRow(row: KeyRow, appKey: Buffer): WebhookSigningKey {
  let pkcs8: string;
  try {
    pkcs8 = decrypt(appKey, row.private_key_sealed, bindingOf(row.kid));
  } catch {
    throw new Error(`webhook signing key ${row.kid} cannot be opened with this APP_KEY (was APP_KEY changed?)`);
  }
  const privateKey = createPrivateKey({ key: Buffer.from(pkcs8, "base64url"), format: "der", type: "pkcs8" });
  return { kid: row.kid, privateKey, publicJwk: publicJwk(row.public_x) };
}

const activeRow = (db: Db) => db<KeyRow>(TABLE).whereNull("retired_at").first();

/**
 * The active key, created when there is none. Not cached: activeSigningKey is what callers use;
 * this is exported for the test that races two "processes" against one database.
 */
export async function loadOrCreateSigningKey(db: Db, appKey: Buffer, now: Date): Promise<WebhookSigningKey> {
  let row = await activeRow(db);
  if (!row) {
    await db(TABLE).insert(newKeyRow(appKey, now)).onConflict().ignore();
    row = await activeRow(db);
    if (!row) throw new Error("webhook signing key: inserted, yet no active key is visible");
  }
  return openKeyRow(row, appKey);
}

// One per database handle: the key is read once per process (it would change only on a rotation,
// which is not built yet; one would have to keep the old key published until every process restarts).
const cache = new WeakMap<object, Promise<WebhookSigningKey>>();

/**
 * The key every delivery is signed with. Pass the shared knex, not a transaction: the key must be
 * committed before anything it signs leaves the process (a transaction's handle is not cached).
 */
export function activeSigningKey(db: Db, appKey: Buffer, now: Date): Promise<WebhookSigningKey> {
  if ((db as { isTransaction?: boolean }).isTransaction) return loadOrCreateSigningKey(db, appKey, now);
  let key = cache.get(db);
  if (!key) {
    key = loadOrCreateSigningKey(db, appKey, now);
    cache.set(db, key);
    // A failed load (database down, wrong APP_KEY) is tried again on the next call.
    key.catch(() => cache.delete(db));
  }
  return key;
}

/** Forgets the cached key of `db` (tests simulating a fresh process). */
export function forgetCachedSigningKey(db: Db): void {
  cache.delete(db);
}

/**
 * The JWKS the site publishes at /.well-known/http-message-signatures-directory: every key not
 * retired, oldest first. Empty until the first key exists (the site creates it before answering).
 */
export async function signingKeyDirectory(db: Db): Promise<{ keys: Record<string, string>[] }> {
  const rows = await db<KeyRow>(TABLE).select("public_x").whereNull("retired_at").orderBy("created_at");
  return { keys: rows.map((row) => publicJwk(row.public_x)) };
}
