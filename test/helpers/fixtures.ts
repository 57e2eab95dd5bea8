// Creators, teams, projects and tokens made through the domain functions the product uses.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { createCreator } from "../../src/modules/account/creators.ts";
import type { Tier } from "../../src/modules/teams/tier.ts";
import { createProject } from "../../src/modules/projects/projects.ts";
import { mintTokenForCreator } from "../../src/operator.ts";
import { mintToken } from "../../src/modules/tokens/tokens.ts";
import { createDomainContext, systemActor } from "../../src/db/tenant.ts";
import type { PasswordCost } from "../../src/security/passwords.ts";
import { testDatabase } from "./backends.ts";
import { expectError, type TestResponse } from "./http.ts";

/** Every test creator's password (the pages sign in with it). */
export const TEST_PASSWORD = "correct horse battery";
/**
 * The scrypt cost of test creators' passwords: 1/16 of production's, since hashing is not what
 * these tests are about (the cost is stored with the hash, so sign-in verifies at this cost too).
 */
export const TEST_PASSWORD_COST: PasswordCost = { N: 1024, r: 8, p: 1 };

export interface TestCreator {
  email: string;
  userId: string;
  teamId: string;
  /** Projects created for the creator, in order. */
  projectIds: string[];
  /** A token with every grantable ability. */
  token: string;
  tokenId: string;
}

export function uniqueEmail(label = "creator"): string {
  return `${label}-${randomBytes(5).toString("hex")}@example.test`;
}

export async function createTestCreator(options: { tier?: Tier; projects?: number; label?: string } = {}): Promise<TestCreator> {
  const { db } = await testDatabase();
  const email = uniqueEmail(options.label);
  const now = new Date();
  const { userId, teamId } = await createCreator(db, { email, password: TEST_PASSWORD, tier: options.tier ?? "growth" }, now, TEST_PASSWORD_COST);
  const projectIds: string[] = [];
  for (let i = 0; i < (options.projects ?? 1); i++) {
    const actor = { ...systemActor(teamId), userId };
    const project = await db.transaction((trx) => createProject(createDomainContext(trx, actor, now), { name: `Project ${i + 1} of ${email}` }));
    projectIds.push(project.id);
  }
  const minted = await mintTokenForCreator(db, { email, abilities: "all" }, now);
  return { email, userId, teamId, projectIds, token: minted.token, tokenId: minted.id };
}

/** A token of `creator` with exactly these abilities (and, optionally, a project allow-list). */
export async function tokenFor(creator: TestCreator, abilities: string[], projectIds?: string[]): Promise<{ token: string; id: string }> {
  const { db } = await testDatabase();
  const minted = await mintTokenForCreator(db, { email: creator.email, abilities, ...(projectIds ? { projectIds } : {}) }, new Date());
  return { token: minted.token, id: minted.id };
}

/**
 * Makes `member` a member of `owner`'s team (as an accepted invitation would) and mints the member
 * a token on that team.
 */
export async function joinTeamWithToken(
  owner: TestCreator,
  member: TestCreator,
  abilities: string[],
  roleCode = "admin",
): Promise<{ token: string; id: string }> {
  const { db } = await testDatabase();
  const role = (await db("roles").where({ team_id: owner.teamId, code: roleCode }).first("id")) as { id: string };
  await db("team_members").insert({ id: randomUUID(), team_id: owner.teamId, user_id: member.userId, role_id: role.id, created_at: new Date() });
  const actor = { userId: member.userId, teamId: owner.teamId, projectIds: null, kind: "system" as const, credentialKind: null, requestId: null };
  const minted = await db.transaction((trx) => mintToken(createDomainContext(trx, actor, new Date()), { name: "member token", abilities }, null));
  return { token: minted.token, id: minted.data.id };
}

/**
 * A team below Growth that still holds a row of a Growth-only table (made while its owner was on
 * Growth: a downgrade keeps it), for the tier-gating tests. `fields` are the row's own columns.
 */
export async function downgradedTeamWith<F extends Record<string, unknown>>(
  table: string,
  tier: "free" | "starter",
  fields: (creator: TestCreator) => F,
): Promise<{ creator: TestCreator; kept: F & { id: string } }> {
  const creator = await createTestCreator({ tier, label: `${table}-${tier}` });
  const kept = { id: randomUUID(), team_id: creator.teamId, created_at: new Date(), updated_at: new Date(), ...fields(creator) };
  await (await testDatabase()).db(table).insert(kept);
  return { creator, kept };
}

/** A refusal for a tier below Growth: 403 TEAM_TIER_REQUIRED naming the required and the current tier. */
export function expectGrowthRequired(res: TestResponse, currentTier: string): void {
  const error = expectError(res, 403, "TEAM_TIER_REQUIRED");
  assert.deepEqual(error.context, { required_tier: "growth", current_tier: currentTier });
}
