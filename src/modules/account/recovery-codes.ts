// Recovery codes: ten single-use codes that stand in for the second factor when the app or the
// passkey is lost. Shown once when issued; stored as SHA-256 only (each carries 50 random bits and
// sign-in limits wrong codes, so a fast hash is enough). Issuing a new set voids the old one.
import { randomInt, randomUUID } from "node:crypto";
import { sha256Hex } from "../../security/crypto.ts";
import type { Db } from "../../db/tenant.ts";
import { factorTables, recordFactorChange, type FactorOwner } from "./factor-changes.ts";

export const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: codes are copied by hand.
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

function newCode(): string {
  let out = "";
  for (let i = 0; i < 10; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

/** What is hashed: case, spaces and dashes do not matter when a code is typed back. */
function codeHash(code: string): string {
  return sha256Hex(`recovery:${code.toLowerCase().replace(/[\s-]/g, "")}`);
}

/** A new set of codes (the old set is gone); returns them in clear, to be shown once. Runs inside the caller's transaction. */
export async function issueRecoveryCodes(trx: Db, owner: FactorOwner): Promise<string[]> {
  const db = factorTables(trx);
  await db("recovery_codes").where({ user_id: owner.userId }).delete();
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await db("recovery_codes").insert(
    codes.map((code) => ({ id: randomUUID(), user_id: owner.userId, code_hash: codeHash(code), used_at: null, created_at: owner.now })),
  );
  return codes;
}

/** Replaces the creator's codes (the security page), recorded in the activity log. */
export function regenerateRecoveryCodes(owner: FactorOwner): Promise<string[]> {
  return owner.db.transaction(async (trx) => {
    const codes = await issueRecoveryCodes(trx, owner);
    await recordFactorChange(trx, owner, "recovery_codes_regenerated", "Recovery codes replaced");
    return codes;
  });
}

export async function deleteRecoveryCodes(trx: Db, userId: string): Promise<void> {
  await factorTables(trx)("recovery_codes").where({ user_id: userId }).delete();
}

/** Spends a code: true once for each issued code, false for anything else. */
export async function useRecoveryCode(db: Db, userId: string, code: string, now: Date): Promise<boolean> {
  if (!/^[a-z0-9\s-]{10,20}$/i.test(code.trim())) return false;
  const spent = await factorTables(db)("recovery_codes")
    .where({ user_id: userId, code_hash: codeHash(code) })
    .whereNull("used_at")
    .update({ used_at: now });
  return spent === 1;
}

export async function unusedRecoveryCodeCount(db: Db, userId: string): Promise<number> {
  const row = (await factorTables(db)("recovery_codes").where({ user_id: userId }).whereNull("used_at").count({ n: "*" }).first()) as {
    n: string | number;
  };
  return Number(row.n);
}
