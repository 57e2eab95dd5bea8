// Passkeys (WebAuthn credentials) with @simplewebauthn/server. The relying party is {auth_url}: its
// hostname is the RP ID and its origin the only expected origin. Credentials are discoverable
// (resident keys) so a passkey can sign in without an address; the user handle is the creator's
// id. A passkey used with user verification counts as both factors; as the second step after a
// password, presence is enough. The signature counter is kept: a counter that goes backwards
// (a cloned authenticator) is refused.
import { randomUUID } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Db } from "../../db/tenant.ts";
import { AccountError } from "./creators.ts";
import { factorTables, recordFactorChange, type FactorOwner } from "./factor-changes.ts";
import { deleteRecoveryCodes, issueRecoveryCodes } from "./recovery-codes.ts";
import { totpEnabled } from "./totp.ts";

/**
 * The library, loaded on the first passkey ceremony: with its dependencies it holds about 25 MB
 * that every process would otherwise keep from its start (docs/performance.md).
 */
const webauthn = () => import("@simplewebauthn/server");

export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export function relyingPartyOf(authUrl: string): RelyingParty {
  const url = new URL(authUrl);
  return { id: url.hostname, name: "SubBridge", origin: url.origin };
}

export interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: string | number;
  transports: string[] | string;
  name: string;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

export const PASSKEY_NAME_MAX = 60;
const transportsOf = (row: PasskeyRow): string[] => (typeof row.transports === "string" ? (JSON.parse(row.transports) as string[]) : row.transports);

export async function passkeysOf(db: Db, userId: string): Promise<PasskeyRow[]> {
  return (await factorTables(db)("webauthn_credentials")
    .where({ user_id: userId })
    .orderBy([{ column: "created_at" }, { column: "id" }])) as PasskeyRow[];
}

/** Options for navigator.credentials.create; the challenge inside must be kept for the answer. */
export async function passkeyRegistrationOptions(
  db: Db,
  rp: RelyingParty,
  creator: { userId: string; email: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await passkeysOf(db, creator.userId);
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: creator.email,
    userID: new TextEncoder().encode(creator.userId),
    attestationType: "none",
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: transportsOf(row) })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
}

/**
 * Stores the credential the browser created, when it answers `challenge`; refuses anything else.
 * A creator's first second factor comes with recovery codes (returned in clear, to be shown once).
 */
export async function addPasskey(
  owner: FactorOwner,
  rp: RelyingParty,
  input: { response: unknown; challenge: string; name: string },
): Promise<{ passkey: PasskeyRow; recoveryCodes: string[] | null }> {
  const { verifyRegistrationResponse } = await webauthn();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    verified = null;
  }
  if (!verified?.verified) throw new AccountError("The passkey could not be verified. Try adding it again.");
  const { credential, credentialBackedUp } = verified.registrationInfo;
  const name = input.name.trim().slice(0, PASSKEY_NAME_MAX) || `Passkey added ${owner.now.toISOString().slice(0, 10)}`;
  return owner.db.transaction(async (trx) => {
    const taken = await factorTables(trx)("webauthn_credentials").where({ credential_id: credential.id }).first("id");
    if (taken) throw new AccountError("This passkey is already registered.");
    const first =
      !(await factorTables(trx)("webauthn_credentials").where({ user_id: owner.userId }).first("id")) && !(await totpEnabled(trx, owner.userId));
    const row = {
      id: randomUUID(),
      user_id: owner.userId,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: JSON.stringify(credential.transports ?? []),
      name,
      backed_up: credentialBackedUp,
      created_at: owner.now,
      last_used_at: null,
    };
    await factorTables(trx)("webauthn_credentials").insert(row);
    await recordFactorChange(trx, owner, "passkey_added", `Passkey "${name}" added`, { passkey: { id: row.id, name } });
    const recoveryCodes = first ? await issueRecoveryCodes(trx, owner) : null;
    return { passkey: { ...row, transports: credential.transports ?? [] } as PasskeyRow, recoveryCodes };
  });
}

/** Removes one of the creator's passkeys; recovery codes go with the last second factor. False when it is not theirs. */
export function removePasskey(owner: FactorOwner, id: string): Promise<boolean> {
  return owner.db.transaction(async (trx) => {
    const row = (await factorTables(trx)("webauthn_credentials").where({ id, user_id: owner.userId }).first()) as PasskeyRow | undefined;
    if (!row) return false;
    await factorTables(trx)("webauthn_credentials").where({ id }).delete();
    const left = await factorTables(trx)("webauthn_credentials").where({ user_id: owner.userId }).first("id");
    if (!left && !(await totpEnabled(trx, owner.userId))) await deleteRecoveryCodes(trx, owner.userId);
    await recordFactorChange(trx, owner, "passkey_removed", `Passkey "${row.name}" removed`, { passkey: { id: row.id, name: row.name } });
    return true;
  });
}

/**
 * Options for navigator.credentials.get. For a known creator (the step after the password) their
 * credentials are listed; without one the browser offers any discoverable passkey for this site
 * and user verification is required (the passkey is then both factors).
 */
export async function passkeyAuthenticationOptions(db: Db, rp: RelyingParty, userId: string | null): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = userId ? (await passkeysOf(db, userId)).map((row) => ({ id: row.credential_id, transports: transportsOf(row) })) : [];
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({ rpID: rp.id, allowCredentials: allow, userVerification: userId ? "preferred" : "required" });
}

/**
 * The creator whose passkey signed `challenge`, or null. With `userId` only that creator's
 * passkeys count; without it user verification is required.
 */
export async function verifyPasskey(
  db: Db,
  rp: RelyingParty,
  input: { response: unknown; challenge: string; userId: string | null; now: Date },
): Promise<string | null> {
  const response = input.response as AuthenticationResponseJSON;
  if (typeof response?.id !== "string") return null;
  const { verifyAuthenticationResponse } = await webauthn();
  return db.transaction(async (trx) => {
    const row = (await factorTables(trx)("webauthn_credentials").where({ credential_id: response.id }).forUpdate().first()) as PasskeyRow | undefined;
    if (!row || (input.userId && row.user_id !== input.userId)) return null;
    // A discoverable credential names its creator too: it must be the row's.
    const handle = response.response?.userHandle;
    if (handle && Buffer.from(handle, "base64url").toString("utf8") !== row.user_id) return null;
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: input.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: row.credential_id,
          publicKey: Buffer.from(row.public_key, "base64url"),
          counter: Number(row.counter),
          transports: transportsOf(row),
        },
        requireUserVerification: input.userId === null,
      });
    } catch {
      return null;
    }
    if (!verified.verified) return null;
    await factorTables(trx)("webauthn_credentials").where({ id: row.id }).update({
      counter: verified.authenticationInfo.newCounter,
      last_used_at: input.now,
      backed_up: verified.authenticationInfo.credentialBackedUp,
    });
    return row.user_id;
  });
}
