// Password reset for creators: a request mails a one-time link (an hour) to the account's address;
// the link sets a new password, and every browser session of the account ends (whoever held one,
// perhaps the person who learned the old password, signs in again). A request for an address with
// no account mails nothing and answers the same, so the form tells no one who has an account.
import { hashPassword } from "../../security/passwords.ts";
import { randomToken, sha256Hex } from "../../security/crypto.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { queueMailAt } from "../mail/outbox.ts";
import { AccountError, findCreatorByEmail, isEmailAddress, normalizeEmail, whyNotPassword } from "./creators.ts";

export const PASSWORD_RESET_LIFETIME_MS = 3600_000;

const people = (db: Db) => unscoped(db, "password resets belong to a person, not a team");

export interface PasswordResetLinks {
  resetUrl(secret: string): string;
}

const INVALID = "This reset link is not valid any more (used, expired, or mistyped). Ask for a new one.";

/** Mails a reset link when `email` has an account; answers nothing either way. */
export async function requestPasswordReset(db: Db, email: string, links: PasswordResetLinks, now: Date): Promise<void> {
  const address = normalizeEmail(email);
  if (!isEmailAddress(address)) throw new AccountError("Enter the email address of your account.");
  await people(db).transaction(async (trx) => {
    const creator = await findCreatorByEmail(trx, address);
    if (!creator) return;
    const secret = randomToken(40);
    await trx("password_resets").insert({
      token_hash: sha256Hex(secret),
      user_id: creator.id,
      expires_at: new Date(now.getTime() + PASSWORD_RESET_LIFETIME_MS),
      used_at: null,
      created_at: now,
    });
    const resetUrl = links.resetUrl(secret);
    await queueMailAt(
      trx,
      {
        to: address,
        subject: "Reset your SubBridge password",
        body: `Someone, maybe you, asked to reset the password of your SubBridge account. Choose a new one here:\n\n${resetUrl}\n\nThe link works for one hour, once; every browser signed in to the account will have to sign in again. If it was not you, ignore this message: your password stays as it is.`,
        links: [resetUrl],
      },
      now,
    );
  });
}

async function usableReset(db: Db, secret: string, now: Date) {
  const row = (await db("password_resets")
    .join("users", "users.id", "password_resets.user_id")
    .where("password_resets.token_hash", sha256Hex(secret))
    .whereNull("password_resets.used_at")
    .where("password_resets.expires_at", ">", now)
    .first("password_resets.user_id", "users.email")) as { user_id: string; email: string } | undefined;
  if (!row) throw new AccountError(INVALID);
  return row;
}

/** The account a reset link is for (its address), or an AccountError when the link does not work. */
export async function describePasswordReset(db: Db, secret: string, now: Date): Promise<{ email: string }> {
  const { email } = await usableReset(people(db), secret, now);
  return { email };
}

/** Sets the new password through a reset link, uses the link up and ends every session of the account. */
export async function resetPassword(db: Db, secret: string, password: string, now: Date): Promise<{ userId: string; email: string }> {
  const problem = whyNotPassword(password);
  if (problem) throw new AccountError(problem);
  const passwordHash = await hashPassword(password);
  return people(db).transaction(async (trx) => {
    const row = await usableReset(trx, secret, now);
    // The row lock makes a link race with itself safely: the second use finds it used.
    const used = await trx("password_resets")
      .where({ token_hash: sha256Hex(secret) })
      .whereNull("used_at")
      .update({ used_at: now });
    if (used === 0) throw new AccountError(INVALID);
    await trx("users").where({ id: row.user_id }).update({ password_hash: passwordHash, updated_at: now });
    // Other links of the account stop working too: the password they would replace is gone.
    await trx("password_resets").where({ user_id: row.user_id }).whereNull("used_at").update({ used_at: now });
    await trx("auth_sessions").where({ user_id: row.user_id }).delete();
    return { userId: row.user_id, email: row.email };
  });
}
