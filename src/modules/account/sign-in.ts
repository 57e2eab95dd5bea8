// Checking a creator's email and password for the sign-in page. An unknown address costs the same
// scrypt work as a known one and gets the same answer, so the page says nothing about whether an
// address has an account.
import { hashPassword, verifyPassword } from "../../security/passwords.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { normalizeEmail } from "./creators.ts";

let decoy: Promise<string> | null = null;

/** The creator's id when the password is theirs, otherwise null. */
export async function checkPassword(db: Db, email: string, password: string): Promise<string | null> {
  const users = unscoped(db, "sign-in: an address names its creator before any session exists");
  const row = (await users("users")
    .where({ email: normalizeEmail(email) })
    .first("id", "password_hash")) as { id: string; password_hash: string | null } | undefined;
  if (!row?.password_hash) {
    decoy ??= hashPassword("decoy password, never matches");
    await verifyPassword(password, await decoy);
    return null;
  }
  return (await verifyPassword(password, row.password_hash)) ? row.id : null;
}
