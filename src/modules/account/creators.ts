// Creators (people with an account) and their personal team. There is no anonymous sign-up: an
// account is opened by a person (here through the operator CLI or the first-start demo).
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { hashPassword, PASSWORD_COST, type PasswordCost } from "../../security/passwords.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { createDomainContext, systemActor, unscoped, type Db } from "../../db/tenant.ts";
import { createTeamRecords } from "../teams/teams.ts";
import { TIERS, type Tier } from "../teams/tier.ts";

export class AccountError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether a (normalised) value can be a creator's email. */
export function isEmailAddress(email: string): boolean {
  return EMAIL.test(email) && email.length <= 255;
}

export interface Creator {
  userId: string;
  teamId: string;
}

/** Creators are people, not tenants: an account spans every team its creator owns or joins. */
const users = (from: Db) => unscoped(from, "users belong to no team")("users");

/** Why a password cannot be a creator's, or null when it can. */
export function whyNotPassword(password: string): string | null {
  if (password.length < 8) return "the password must be at least 8 characters";
  if (password.length > 256) return "the password must be at most 256 characters";
  return null;
}

/** `passwordCost` is the production cost unless a test passes a cheaper one (never from configuration). */
export async function createCreator(
  db: Knex,
  input: { email: string; password: string; tier: Tier; teamName?: string },
  now: Date,
  passwordCost: PasswordCost = PASSWORD_COST,
): Promise<Creator> {
  const refused = whyNotPassword(input.password);
  if (refused) throw new AccountError(refused);
  return createCreatorWithHash(db, { ...input, passwordHash: await hashPassword(input.password, passwordCost) }, now);
}

/** Opens an account whose password was hashed earlier (a sign-up confirmed by its link). */
export async function createCreatorWithHash(
  db: Knex,
  input: { email: string; passwordHash: string; tier: Tier; teamName?: string },
  now: Date,
): Promise<Creator> {
  const email = normalizeEmail(input.email);
  if (!isEmailAddress(email)) throw new AccountError(`"${input.email}" is not an email address`);
  if (!TIERS.includes(input.tier)) throw new AccountError(`tier must be one of ${TIERS.join(", ")}`);
  const { passwordHash } = input;
  return db.transaction(async (trx) => {
    if (await users(trx).where({ email }).first("id")) throw new AccountError(`a creator with the email ${email} already exists`);
    const userId = randomUUID();
    const teamId = randomUUID();
    await users(trx).insert({ id: userId, email, password_hash: passwordHash, tier: input.tier, created_at: now, updated_at: now });
    const name = input.teamName ?? `${email.split("@")[0]}'s team`;
    // The new team acts as its own tenant from its first row on.
    const team = createDomainContext(trx, systemActor(teamId), now);
    await createTeamRecords(team, { name, ownerUserId: userId, personal: true });
    await users(trx).where({ id: userId }).update({ current_team_id: teamId });
    await recordActivity(team, {
      event: "created",
      description: `Team ${name} created with the account of ${email}`,
      subjectType: "team",
      subjectId: teamId,
      properties: { owner_user_id: userId, personal: true, tier: input.tier },
    });
    return { userId, teamId };
  });
}

export async function findCreatorByEmail(db: Db, email: string): Promise<{ id: string; current_team_id: string | null; tier: Tier } | undefined> {
  return users(db)
    .where({ email: normalizeEmail(email) })
    .first("id", "current_team_id", "tier");
}

export async function countCreators(db: Knex): Promise<number> {
  const row = await users(db).count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}
