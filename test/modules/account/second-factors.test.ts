// The second-factor rules without a browser: the TOTP secret sealed to its creator, a code never
// accepted twice, one step of clock drift either way, recovery codes single use and replaced as a
// set, the activity entries, and recovery codes leaving with the last second factor.
import assert from "node:assert/strict";
import { generate } from "otplib";
import { testDatabase } from "../../helpers/backends.ts";
import { createTestCreator, type TestCreator } from "../../helpers/fixtures.ts";
import { TEST_APP_KEY } from "../../helpers/server.ts";
import type { FactorOwner } from "../../../src/modules/account/factor-changes.ts";
import { regenerateRecoveryCodes, unusedRecoveryCodeCount, useRecoveryCode } from "../../../src/modules/account/recovery-codes.ts";
import {
  checkTotpCode,
  confirmTotpEnrolment,
  disableTotp,
  pendingTotpEnrolment,
  startTotpEnrolment,
  totpEnabled,
} from "../../../src/modules/account/totp.ts";
import { secondFactorsOf } from "../../../src/apps/auth/pages/second-factor.ts";
import { decrypt } from "../../../src/security/crypto.ts";

const epochOf = (date: Date) => Math.floor(date.getTime() / 1000);

async function ownerOf(creator: TestCreator, now: Date): Promise<FactorOwner> {
  const { db } = await testDatabase();
  return { db, userId: creator.userId, teamId: creator.teamId, requestId: null, appKey: TEST_APP_KEY, now };
}

async function enrolled(creator: TestCreator, now: Date): Promise<{ secret: string; codes: string[] }> {
  const owner = await ownerOf(creator, now);
  await startTotpEnrolment(owner);
  const { secret } = (await pendingTotpEnrolment(owner, creator.email))!;
  const codes = await confirmTotpEnrolment(owner, await generate({ secret, epoch: epochOf(now) }));
  assert.ok(codes);
  return { secret, codes };
}

describe("account: second factors", () => {
  it("seals the TOTP secret to its creator and turns it on only with a right code", async () => {
    const creator = await createTestCreator({ label: "2fa-seal" });
    const { db } = await testDatabase();
    const now = new Date();
    const owner = await ownerOf(creator, now);
    await startTotpEnrolment(owner);
    const pending = (await pendingTotpEnrolment(owner, creator.email))!;
    assert.match(pending.uri, /^otpauth:\/\/totp\/SubBridge:.*secret=/);
    const row = (await db("totp_factors").where({ user_id: creator.userId }).first()) as { secret_sealed: string };
    assert.equal(decrypt(TEST_APP_KEY, row.secret_sealed, `totp:${creator.userId}`), pending.secret);
    assert.throws(() => decrypt(TEST_APP_KEY, row.secret_sealed, "totp:someone-else"));
    assert.equal((await secondFactorsOf(db, creator.userId)).totp, false, "pending is not on");

    assert.equal(await confirmTotpEnrolment(owner, "12345"), null);
    const codes = await confirmTotpEnrolment(owner, await generate({ secret: pending.secret, epoch: epochOf(now) }));
    assert.equal(codes?.length, 10);
    assert.deepEqual(await secondFactorsOf(db, creator.userId), { totp: true, passkeys: false });
    await assert.rejects(() => startTotpEnrolment(owner), /already on/);
    const entry = await db("activity_log").where({ team_id: creator.teamId, event: "two_factor_enabled", subject_id: creator.userId }).first();
    assert.ok(entry, "an activity entry on the session's team");
  });

  it("accepts a code once, one step early or late, never an older step", async () => {
    const creator = await createTestCreator({ label: "2fa-replay" });
    const { db } = await testDatabase();
    const t0 = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
    const { secret } = await enrolled(creator, t0);
    const at = (seconds: number) => generate({ secret, epoch: epochOf(t0) + seconds });
    const check = (code: string, now: Date) => checkTotpCode(db, TEST_APP_KEY, creator.userId, code, now);
    const later = new Date(t0.getTime() + 120_000); // step +4
    assert.equal(await check(await at(0), later), false, "too old");
    assert.equal(await check(await at(150), later), true, "one step ahead (drift)");
    assert.equal(await check(await at(150), later), false, "the same code twice");
    assert.equal(await check(await at(90), later), false, "a step before the last accepted one");
    assert.equal(await check(await at(180), new Date(later.getTime() + 90_000)), true, "one step behind (drift)");
    assert.equal(await check("abcdef", later), false);
  });

  it("spends each recovery code once and replaces the whole set", async () => {
    const creator = await createTestCreator({ label: "2fa-recovery" });
    const { db } = await testDatabase();
    const now = new Date();
    const { codes } = await enrolled(creator, now);
    assert.equal(
      await useRecoveryCode(db, creator.userId, ` ${codes[3]!.toUpperCase().replace("-", " ")} `, now),
      true,
      "case and separators do not matter",
    );
    assert.equal(await useRecoveryCode(db, creator.userId, codes[3]!, now), false);
    assert.equal(await unusedRecoveryCodeCount(db, creator.userId), 9);
    const other = await createTestCreator({ label: "2fa-recovery-other" });
    assert.equal(await useRecoveryCode(db, other.userId, codes[4]!, now), false, "another creator's code");

    const fresh = await regenerateRecoveryCodes(await ownerOf(creator, now));
    assert.equal(await useRecoveryCode(db, creator.userId, codes[4]!, now), false, "the old set is void");
    assert.equal(await useRecoveryCode(db, creator.userId, fresh[0]!, now), true);
  });

  it("turns the app off only with a current code, and its recovery codes go with it", async () => {
    const creator = await createTestCreator({ label: "2fa-off" });
    const { db } = await testDatabase();
    const t0 = new Date();
    const { secret } = await enrolled(creator, t0);
    const later = new Date(t0.getTime() + 90_000);
    const owner = await ownerOf(creator, later);
    const right = await generate({ secret, epoch: epochOf(later) });
    assert.equal(await disableTotp(owner, right.slice(0, 5) + String((Number(right[5]) + 5) % 10)), false);
    assert.equal(await totpEnabled(db, creator.userId), true);
    assert.equal(await disableTotp(owner, right), true);
    assert.equal(await totpEnabled(db, creator.userId), false);
    assert.equal(await unusedRecoveryCodeCount(db, creator.userId), 0);
    assert.ok(await db("activity_log").where({ team_id: creator.teamId, event: "two_factor_disabled" }).first());
  });
});
