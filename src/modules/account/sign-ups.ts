// Opening an account from the sign-up page: a person gives an address and a password, and the
// account exists once they open the link mailed to that address. Whether the address already has
// an account is never shown: both cases get the same page, and the mail says which it is (a new
// account's link, or a reminder that an account exists). No anonymous, agent or third-party
// identity sign-up exists.
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { isOneLine } from "../../one-line.ts";
import { hashPassword } from "../../security/passwords.ts";
import { randomToken, sha256Hex } from "../../security/crypto.ts";
import { unscoped, type Db } from "../../db/tenant.ts";
import { queueMailAt } from "../mail/outbox.ts";
import { AccountError, createCreatorWithHash, findCreatorByEmail, isEmailAddress, normalizeEmail, whyNotPassword, type Creator } from "./creators.ts";

/** A sign-up link works for a day. */
export const SIGN_UP_LIFETIME_MS = 24 * 3600_000;

const signUps = (db: Db) => unscoped(db, "sign-ups belong to a person, before any team exists")("account_sign_ups");

export interface SignUpLinks {
  confirmUrl(secret: string): string;
  signInUrl: string;
}

/** Field -> message for what the form must fix; empty when the request can go on. */
export function signUpProblems(input: { email: string; password: string; teamName?: string }): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!isEmailAddress(normalizeEmail(input.email))) problems.email = "Enter an email address, like name@example.com.";
  const password = whyNotPassword(input.password);
  if (password) problems.password = password.charAt(0).toUpperCase() + password.slice(1) + ".";
  if (input.teamName !== undefined && input.teamName.trim().length > 100) problems.team_name = "The team name must be at most 100 characters.";
  // The spec's rule for names (one line): the name goes into the invitations the team sends.
  else if (input.teamName !== undefined && !isOneLine(input.teamName.trim()))
    problems.team_name = "The team name must be one line, without line breaks or control characters.";
  return problems;
}

/** Records a sign-up and mails its link (or, for an address with an account, a reminder). */
export async function requestSignUp(
  db: Knex,
  input: { email: string; password: string; teamName?: string; returnTo?: string },
  links: SignUpLinks,
  now: Date,
): Promise<void> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  await db.transaction(async (trx) => {
    if (await findCreatorByEmail(trx, email)) {
      await queueMailAt(
        trx,
        {
          to: email,
          subject: "You already have a SubBridge account",
          body: `Someone, maybe you, asked to open a SubBridge account with this address. It already has one: sign in at ${links.signInUrl}.\n\nIf it was not you, you can ignore this message.`,
          links: [links.signInUrl],
        },
        now,
      );
      return;
    }
    const secret = randomToken(40);
    await signUps(trx).insert({
      id: randomUUID(),
      email,
      password_hash: passwordHash,
      team_name: input.teamName?.trim() || null,
      return_to: input.returnTo ?? null,
      token_hash: sha256Hex(secret),
      expires_at: new Date(now.getTime() + SIGN_UP_LIFETIME_MS),
      completed_at: null,
      created_at: now,
    });
    const confirmUrl = links.confirmUrl(secret);
    await queueMailAt(
      trx,
      {
        to: email,
        subject: "Confirm your SubBridge account",
        body: `Open this link to confirm your address and open your SubBridge account:\n\n${confirmUrl}\n\nThe link works for 24 hours. If you did not ask for an account, ignore this message.`,
        links: [confirmUrl],
      },
      now,
    );
  });
}

interface SignUpRow {
  id: string;
  email: string;
  password_hash: string;
  team_name: string | null;
  return_to: string | null;
  expires_at: Date;
  completed_at: Date | null;
}

async function pendingSignUp(db: Db, secret: string, now: Date, lock: boolean): Promise<SignUpRow> {
  const query = signUps(db).where({ token_hash: sha256Hex(secret) });
  const row = (await (lock ? query.forUpdate() : query).first()) as SignUpRow | undefined;
  if (!row) throw new AccountError("This link is not valid. Sign up again to get a new one.");
  if (row.completed_at) throw new AccountError("This link was already used: your account is open, sign in.");
  if (new Date(row.expires_at).getTime() <= now.getTime()) throw new AccountError("This link has expired. Sign up again to get a new one.");
  return row;
}

/** The address a sign-up link confirms (the confirmation page shows it). */
export async function describeSignUp(db: Db, secret: string, now: Date): Promise<{ email: string }> {
  return { email: (await pendingSignUp(db, secret, now, false)).email };
}

/** Opens the account a sign-up link confirms (once, atomically), on the free tier with its own team. */
export async function confirmSignUp(db: Knex, secret: string, now: Date): Promise<Creator & { returnTo: string | null }> {
  return db.transaction(async (trx) => {
    const row = await pendingSignUp(trx, secret, now, true);
    // Two links for one address: the first one opened opens the account.
    if (await findCreatorByEmail(trx, row.email)) throw new AccountError("An account with this address is already open: sign in.");
    await signUps(trx).where({ id: row.id }).update({ completed_at: now });
    const creator = await createCreatorWithHash(
      trx,
      { email: row.email, passwordHash: row.password_hash, tier: "free", ...(row.team_name ? { teamName: row.team_name } : {}) },
      now,
    );
    return { ...creator, returnTo: row.return_to };
  });
}
