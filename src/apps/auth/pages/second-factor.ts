// Which second factors a creator has set up. Sign-in asks for one of them after the password when
// any exists (TOTP codes, recovery codes, passkeys).
import type { Db } from "../../../db/tenant.ts";
import { factorTables } from "../../../modules/account/factor-changes.ts";

export interface SecondFactors {
  totp: boolean;
  passkeys: boolean;
}

export async function secondFactorsOf(db: Db, userId: string): Promise<SecondFactors> {
  const tables = factorTables(db);
  const [totp, passkey] = await Promise.all([
    tables("totp_factors").where({ user_id: userId }).whereNotNull("enabled_at").first("user_id"),
    tables("webauthn_credentials").where({ user_id: userId }).first("id"),
  ]);
  return { totp: Boolean(totp), passkeys: Boolean(passkey) };
}
