// The roster and memberships. The owner heads the roster but is not a membership: owner rows are
// never re-roled or removed (404). Removing a member is never tier-gated; re-roling needs Growth.
// A member's tokens follow a change at once (their cached resolution is marked changed).
import { notFound, validationFailed } from "../../errors.ts";
import { afterCommit, unscoped, type DomainContext } from "../../db/tenant.ts";
import { tokensTable } from "../tokens/tables.ts";
import { roleByCode } from "../roles/roles.ts";
import { leaveGroups } from "../groups/groups.ts";
import { revokeConnectionsOf } from "../oauth/tokens.ts";
import { unassignConversationsOf } from "../support/conversations.ts";
import { teamMembersTable, teamsTable, type TeamRow } from "./tables.ts";
import { requireGrowth } from "./tier.ts";
import { recordTeamChange } from "./team-change.ts";

export interface RosterRow {
  user_id: string;
  email?: string;
  role_id: string | null;
  role: string | null;
  is_owner: boolean;
  joined_at: string;
}

interface MemberRow {
  user_id: string;
  email: string;
  role_id: string;
  role: string;
  created_at: Date;
}

const iso = (d: Date) => new Date(d).toISOString();

async function team(ctx: DomainContext): Promise<TeamRow> {
  const row = (await teamsTable.rows(ctx).first()) as TeamRow | undefined;
  if (!row) throw notFound("team");
  return row;
}

/** Members with their email and role code (the owner excluded: not a membership). */
function members(ctx: DomainContext) {
  return teamMembersTable
    .rows(ctx)
    .join("users", "users.id", "team_members.user_id")
    .join("roles", "roles.id", "team_members.role_id")
    .select("team_members.user_id", "users.email", "team_members.role_id", "roles.code as role", "team_members.created_at");
}

/** Owner first, then members by join date; `email` only when the caller may see it. */
export async function roster(ctx: DomainContext, withEmail: boolean): Promise<RosterRow[]> {
  const owned = await team(ctx);
  const users = unscoped(ctx, "the owner's address: users belong to no team");
  const owner = (await users("users").where({ id: owned.owner_user_id }).first("email")) as { email: string };
  const rows = (await members(ctx).orderBy([{ column: "team_members.created_at" }, { column: "team_members.user_id" }])) as MemberRow[];
  const withOptionalEmail = (row: Omit<RosterRow, "email">, email: string): RosterRow => (withEmail ? { ...row, email } : row);
  return [
    withOptionalEmail({ user_id: owned.owner_user_id, role_id: null, role: null, is_owner: true, joined_at: iso(owned.created_at) }, owner.email),
    ...rows.map((m) =>
      withOptionalEmail({ user_id: m.user_id, role_id: m.role_id, role: m.role, is_owner: false, joined_at: iso(m.created_at) }, m.email),
    ),
  ];
}

async function membership(ctx: DomainContext, userId: string): Promise<MemberRow> {
  const row = (await members(ctx).where("team_members.user_id", userId).first()) as MemberRow | undefined;
  if (!row) throw notFound("member");
  return row;
}

const presentMembership = (m: MemberRow) => ({
  user_id: m.user_id,
  email: m.email,
  role_id: m.role_id,
  role: m.role,
  is_owner: false as const,
  joined_at: iso(m.created_at),
});

export async function getMembership(ctx: DomainContext, userId: string) {
  return presentMembership(await membership(ctx, userId));
}

/** The member's tokens on this team resolve again from their next request. */
async function memberTokensChanged(ctx: DomainContext, userId: string) {
  const tokenIds: (string | number)[] = await tokensTable.rows(ctx).where({ user_id: userId }).pluck("id");
  afterCommit(ctx, { kind: "credentials-changed", tokenIds: tokenIds.map(String) });
}

/**
 * A removed member's tokens and OAuth connections on this team end for good: joining again later
 * must not revive credentials minted under the old membership.
 */
async function revokeMemberCredentials(ctx: DomainContext, userId: string) {
  const tokenIds: (string | number)[] = await tokensTable.rows(ctx).where({ user_id: userId }).whereNull("revoked_at").pluck("id");
  await tokensTable.rows(ctx).whereIn("id", tokenIds).update({ revoked_at: ctx.now });
  await revokeConnectionsOf(ctx, userId);
  afterCommit(ctx, { kind: "credentials-revoked", tokenIds: tokenIds.map(String) });
}

/** Ends a membership: access to the team's projects and settings ends at once. */
export async function removeMember(ctx: DomainContext, userId: string): Promise<void> {
  const member = await membership(ctx, userId);
  const owned = await team(ctx);
  await teamMembersTable.rows(ctx).where({ user_id: userId }).delete();
  await leaveGroups(ctx, userId);
  await unassignConversationsOf(ctx, userId);
  await revokeMemberCredentials(ctx, userId);
  const ref = { user_id: member.user_id, email: member.email, role: member.role };
  await recordTeamChange(ctx, owned, {
    activity: "member_removed",
    description: `${member.email} removed from the team`,
    properties: { member: ref },
    event: "team.member.removed",
    data: { member: ref },
  });
}

/** Gives a member another of the team's roles (Growth). */
export async function changeMemberRole(ctx: DomainContext, userId: string, code: string) {
  await requireGrowth(ctx, "Changing a member's role");
  const member = await membership(ctx, userId);
  const role = await roleByCode(ctx, code);
  if (!role) throw validationFailed({ role: [`the team has no role ${code}`] });
  if (role.id === member.role_id) return presentMembership(member);
  await teamMembersTable.rows(ctx).where({ user_id: userId }).update({ role_id: role.id });
  await memberTokensChanged(ctx, userId);
  const owned = await team(ctx);
  const ref = { user_id: member.user_id, email: member.email, role: role.code };
  await recordTeamChange(ctx, owned, {
    activity: "member_role_changed",
    description: `${member.email} now holds the role ${role.code}`,
    properties: { member: ref, previous_role: member.role },
    event: "team.member.role_changed",
    data: { member: ref, previous_role: member.role },
  });
  return presentMembership({ ...member, role_id: role.id, role: role.code });
}
