// Authenticator-app codes (TOTP, RFC 6238: SHA-1, 6 digits, 30 seconds, what every app speaks) with
// otplib. Enrolment keeps a pending secret until the creator types a code from the app; only then
// is it on, and ten recovery codes are issued. The secret is sealed with APP_KEY and bound to its
// creator. A code is accepted one step early or late (clock drift) and never twice: the last
// accepted time step is kept and later codes must come after it.
import { generateSecret, generateURI, verify } from "otplib";
import { decrypt, encrypt } from "../../security/crypto.ts";
import type { Db } from "../../db/tenant.ts";
import { AccountError } from "./creators.ts";
import { factorTables, recordFactorChange, type FactorOwner } from "./factor-changes.ts";
import { deleteRecoveryCodes, issueRecoveryCodes } from "./recovery-codes.ts";

export const TOTP_ISSUER = "SubBridge";
const DRIFT_SECONDS = 30;

interface TotpRow {
  user_id: string;
  secret_sealed: string;
  enabled_at: Date | null;
  last_step: string | number | null;
}

const boundTo = (userId: string) => `totp:${userId}`;
const open = (appKey: Buffer, row: TotpRow) => decrypt(appKey, row.secret_sealed, boundTo(row.user_id));

/** Whether the code matches the secret at `now`, after `lastStep`; the matched step, or null. */
async function matchingStep(secret: string, code: string, now: Date, lastStep: number | null): Promise<number | null> {
  const token = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const result = await verify({
    secret,
    token,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: DRIFT_SECONDS,
    ...(lastStep === null ? {} : { afterTimeStep: lastStep }),
  });
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}

export async function totpEnabled(db: Db, userId: string): Promise<boolean> {
  return Boolean(await factorTables(db)("totp_factors").where({ user_id: userId }).whereNotNull("enabled_at").first("user_id"));
}

/** Starts (or restarts) an enrolment: a new pending secret. Refused while an app is on. */
export async function startTotpEnrolment(owner: FactorOwner): Promise<void> {
  const db = factorTables(owner.db);
  if (await totpEnabled(owner.db, owner.userId))
    throw new AccountError("An authenticator app is already on. Turn it off before setting up another one.");
  const secret = generateSecret();
  await db("totp_factors")
    .insert({
      user_id: owner.userId,
      secret_sealed: encrypt(owner.appKey, secret, boundTo(owner.userId)),
      enabled_at: null,
      last_step: null,
      created_at: owner.now,
    })
    .onConflict("user_id")
    .merge(["secret_sealed", "enabled_at", "last_step", "created_at"]);
}

/** The pending enrolment's secret and otpauth URI (for the QR code), or null when none is pending. */
export async function pendingTotpEnrolment(owner: FactorOwner, label: string): Promise<{ secret: string; uri: string } | null> {
  const row = (await factorTables(owner.db)("totp_factors").where({ user_id: owner.userId }).whereNull("enabled_at").first()) as TotpRow | undefined;
  if (!row) return null;
  const secret = open(owner.appKey, row);
  return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label, secret }) };
}

/** Turns the pending secret on when `code` comes from it; returns the recovery codes (shown once), or null for a wrong code. */
export function confirmTotpEnrolment(owner: FactorOwner, code: string): Promise<string[] | null> {
  return owner.db.transaction(async (trx) => {
    const row = (await factorTables(trx)("totp_factors").where({ user_id: owner.userId }).forUpdate().first()) as TotpRow | undefined;
    if (!row || row.enabled_at) throw new AccountError("There is no authenticator app set-up in progress. Start again from the security page.");
    const step = await matchingStep(open(owner.appKey, row), code, owner.now, null);
    if (step === null) return null;
    await factorTables(trx)("totp_factors").where({ user_id: owner.userId }).update({ enabled_at: owner.now, last_step: step });
    const codes = await issueRecoveryCodes(trx, owner);
    await recordFactorChange(trx, owner, "two_factor_enabled", "Authenticator app turned on");
    return codes;
  });
}

/** Spends a code of the creator's app: true when it matches and was not used before. */
export function checkTotpCode(db: Db, appKey: Buffer, userId: string, code: string, now: Date): Promise<boolean> {
  return db.transaction(async (trx) => {
    const row = (await factorTables(trx)("totp_factors").where({ user_id: userId }).whereNotNull("enabled_at").forUpdate().first()) as
      TotpRow | undefined;
    if (!row) return false;
    const step = await matchingStep(open(appKey, row), code, now, row.last_step === null ? null : Number(row.last_step));
    if (step === null) return false;
    await factorTables(trx)("totp_factors").where({ user_id: userId }).update({ last_step: step });
    return true;
  });
}

/**
 * Turns the app off when `code` is a current one. Recovery codes go too unless a passkey remains
 * (they stand in for a second factor, and none would be left). False for a wrong code.
 */
export async function disableTotp(owner: FactorOwner, code: string): Promise<boolean> {
  if (!(await checkTotpCode(owner.db, owner.appKey, owner.userId, code, owner.now))) return false;
  await owner.db.transaction(async (trx) => {
    await factorTables(trx)("totp_factors").where({ user_id: owner.userId }).delete();
    const passkey = await factorTables(trx)("webauthn_credentials").where({ user_id: owner.userId }).first("id");
    if (!passkey) await deleteRecoveryCodes(trx, owner.userId);
    await recordFactorChange(trx, owner, "two_factor_disabled", "Authenticator app turned off");
  });
  return true;
}
