// Invitations: an address and a role. The invitee may have no account yet; a message with a link
// goes to the address (mail outbox), and the membership appears when a creator signed in with that
// address accepts within 7 days. The link's secret is stored only as a SHA-256.
import { randomUUID } from "node:crypto";
import { ApiError, notFound, validationFailed } from "../../errors.ts";
import type { Knex } from "knex";
import { createDomainContext, unscoped, type Db, type DomainContext } from "../../db/tenant.ts";
import type { PageWindow } from "../../db/pages.ts";
import { fetchPage, orderClause } from "../../db/pages.ts";
import { randomToken, sha256Hex } from "../../security/crypto.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { queueMail } from "../mail/outbox.ts";
import { oneLine } from "../../one-line.ts";
import { roleByCode } from "../roles/roles.ts";
import { invitationsTable, teamMembersTable, teamsTable, type TeamRow } from "./tables.ts";
import { requireInvitationBudget } from "./invitation-budget.ts";
import { requireGrowth } from "./tier.ts";
import { recordTeamChange } from "./team-change.ts";

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60_000;

interface InvitationRow {
  id: string;
  team_id: string;
  email: string;
  role_id: string;
  role: string;
  status: "pending" | "accepted" | "withdrawn" | "expired";
  invited_by_user_id: string | null;
  expires_at: Date;
  created_at: Date;
}

const iso = (d: Date) => new Date(d).toISOString();

export function presentInvitation(row: InvitationRow) {
  return {
    id: row.id,
    email: row.email,
    role_id: row.role_id,
    role: row.role,
    status: row.status,
    invited_by_user_id: row.invited_by_user_id,
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
  };
}

function invitations(ctx: DomainContext) {
  return invitationsTable.rows(ctx).join("roles", "roles.id", "team_invitations.role_id").select("team_invitations.*", "roles.code as role");
}

const INVITATION_SORT: Record<string, string> = {
  created_at: "team_invitations.created_at",
  email: "lower(team_invitations.email)",
  expires_at: "team_invitations.expires_at",
};

/** Pending invitations that have not expired. */
export async function listInvitations(ctx: DomainContext, window: PageWindow) {
  const query = invitations(ctx).where("team_invitations.status", "pending").where("team_invitations.expires_at", ">", ctx.now);
  const sort = INVITATION_SORT[window.sortBy] ?? INVITATION_SORT.created_at!;
  const { rows, total } = await fetchPage<InvitationRow>(
    query,
    window,
    `${orderClause(sort, window.sortDirection)}, team_invitations.id ${window.sortDirection}`,
  );
  return { rows: rows.map(presentInvitation), total };
}

/** Whether the address already belongs to the team (its owner or a member). */
async function alreadyInTeam(ctx: DomainContext, team: TeamRow, email: string): Promise<boolean> {
  const users = unscoped(ctx, "find the account an address belongs to: users belong to no team");
  const user = (await users("users").where({ email }).first("id")) as { id: string } | undefined;
  if (!user) return false;
  if (user.id === team.owner_user_id) return true;
  return (await teamMembersTable.rows(ctx).where({ user_id: user.id }).first("id")) !== undefined;
}

export interface InviteLinks {
  /** The address a person opens to accept, given the link's secret. */
  acceptUrl(secret: string): string;
}

export async function invite(ctx: DomainContext & { actor: { userId: string | null } }, input: { email: string; role: string }, links: InviteLinks) {
  await requireGrowth(ctx, "Inviting team members");
  const email = input.email.trim().toLowerCase();
  // Locked: the team's invitations take turns, so two at once cannot both take its budget's last place.
  const team = (await teamsTable.rows(ctx).forUpdate().first()) as TeamRow;
  const role = await roleByCode(ctx, input.role);
  if (!role) throw validationFailed({ role: [`the team has no role ${input.role}`] });
  if (await alreadyInTeam(ctx, team, email)) throw validationFailed({ email: ["already belongs to the team"] });
  const pending = invitationsTable.rows(ctx).where({ status: "pending" }).whereRaw("lower(email) = ?", [email]);
  if (await pending.clone().where("expires_at", ">", ctx.now).first("id")) throw validationFailed({ email: ["already has a pending invitation"] });
  await requireInvitationBudget(ctx, email);
  await pending.clone().update({ status: "expired" }); // an earlier one, past its date

  const secret = randomToken(40);
  const row = {
    id: randomUUID(),
    email,
    role_id: role.id,
    token_hash: sha256Hex(secret),
    invited_by_user_id: ctx.actor.userId,
    status: "pending",
    expires_at: new Date(ctx.now.getTime() + INVITATION_LIFETIME_MS),
    created_at: ctx.now,
  };
  await invitationsTable.insert(ctx, row);
  const invitation = presentInvitation({ ...row, team_id: team.id, role: role.code, status: "pending" });
  // The team's and role's names are the inviter's words: one line (names stored before the rule too), never a link (render.ts).
  const acceptUrl = links.acceptUrl(secret);
  await queueMail(ctx, {
    to: email,
    subject: `You're invited to join ${oneLine(team.name)} on SubBridge`,
    body: [
      `You have been invited to join the team ${oneLine(team.name)} on SubBridge as ${oneLine(role.name)}.`,
      ``,
      `Accept the invitation (sign in, or open an account, with this address): ${acceptUrl}`,
      ``,
      `The invitation expires on ${invitation.expires_at}.`,
    ].join("\n"),
    links: [acceptUrl],
  });
  await recordTeamChange(ctx, team, {
    activity: "member_invited",
    description: `${email} invited as ${role.code}`,
    properties: { invitation: { id: invitation.id, email, role: role.code } },
    event: "team.member.invited",
    data: {
      invitation: { id: invitation.id, email, role: role.code, expires_at: invitation.expires_at },
      invited_by_user_id: ctx.actor.userId,
    },
  });
  return invitation;
}

/** Withdraws a pending invitation: its link stops working at once. */
export async function withdrawInvitation(ctx: DomainContext, id: string): Promise<void> {
  const row = (await invitations(ctx).where("team_invitations.id", id).where("team_invitations.status", "pending").first()) as
    InvitationRow | undefined;
  if (!row) throw notFound("invitation");
  await invitationsTable.rows(ctx).where({ id }).update({ status: "withdrawn" });
  await recordActivity(ctx, {
    event: "invitation_withdrawn",
    description: `Invitation of ${row.email} withdrawn`,
    subjectType: "team",
    subjectId: row.team_id,
    properties: { invitation: { id, email: row.email, role: row.role } },
  });
}

/** Why an invitation link cannot be accepted (the pages say so in words). */
export type RefusedAcceptance = "unknown" | "expired" | "no_longer_pending" | "email_mismatch" | "already_member";

const refuse = (reason: RefusedAcceptance, message: string): never => {
  throw new ApiError("VALIDATION_FAILED", message, { context: { reason } });
};

/**
 * The invitation a link's secret names, while it can still be accepted (the rules the page that
 * shows it and the acceptance share): refused as unknown, no longer pending, or expired.
 */
async function openInvitation(db: Db, secret: string, now: Date, lock: boolean): Promise<InvitationRow> {
  const lookup = unscoped(db, "an invitee, not yet a member, opens the link: the secret names the team");
  const query = lookup("team_invitations").where({ token_hash: sha256Hex(secret) });
  const row = (await (lock ? query.forUpdate() : query).first()) as InvitationRow | undefined;
  if (!row) return refuse("unknown", "This invitation link is not valid.");
  if (row.status !== "pending") return refuse("no_longer_pending", "This invitation was already used or withdrawn.");
  if (new Date(row.expires_at).getTime() <= now.getTime()) return refuse("expired", "This invitation has expired; ask for a new one.");
  return row;
}

export interface InvitationSummary {
  teamId: string;
  teamName: string;
  /** The invited address (the link holder received it there). */
  email: string;
  role: string;
  roleName: string;
  expiresAt: string;
}

/**
 * What an invitation link offers, read-only, for the page that shows it before anyone accepts:
 * refused for the same reasons acceptInvitation refuses a link (unknown, no_longer_pending, expired).
 */
export async function describeInvitation(db: Db, input: { secret: string; now: Date }): Promise<InvitationSummary> {
  const row = await openInvitation(db, input.secret, input.now, false);
  const lookup = unscoped(db, "the team and role an invitation link names, shown to the invitee before they join");
  const team = (await lookup("teams").where({ id: row.team_id }).first("name")) as { name: string };
  const role = (await lookup("roles").where({ id: row.role_id }).first("code", "name")) as { code: string; name: string };
  return { teamId: row.team_id, teamName: team.name, email: row.email, role: role.code, roleName: role.name, expiresAt: iso(row.expires_at) };
}

/**
 * Accepts an invitation as the signed-in creator `userId` (whose address must be the invited one):
 * the membership exists with the invited role, and team.member.joined is emitted. Runs in a
 * transaction of its own.
 */
export async function acceptInvitation(db: Knex, input: { secret: string; userId: string; now: Date; requestId?: string | null }) {
  return db.transaction(async (trx) => {
    const row = await openInvitation(trx, input.secret, input.now, true);
    const lookup = unscoped(trx, "the invitee's account and the invited role, before the membership exists");
    const user = (await lookup("users").where({ id: input.userId }).first("email")) as { email: string } | undefined;
    if (!user || user.email.toLowerCase() !== row.email.toLowerCase())
      return refuse("email_mismatch", "This invitation was sent to another address.");
    const actor = {
      userId: input.userId,
      teamId: row.team_id,
      projectIds: null,
      kind: "human" as const,
      credentialKind: "session" as const,
      requestId: input.requestId ?? null,
    };
    const ctx = createDomainContext(trx, actor, input.now);
    const team = (await teamsTable.rows(ctx).first()) as TeamRow;
    if (await alreadyInTeam(ctx, team, user.email)) return refuse("already_member", "You already belong to this team.");
    const role = (await lookup("roles").where({ id: row.role_id }).first("code")) as { code: string };
    await teamMembersTable.insert(ctx, { id: randomUUID(), user_id: input.userId, role_id: row.role_id, created_at: input.now });
    await invitationsTable.rows(ctx).where({ id: row.id }).update({ status: "accepted", accepted_by_user_id: input.userId, accepted_at: input.now });
    const member = { user_id: input.userId, email: user.email, role: role.code };
    await recordTeamChange(ctx, team, {
      activity: "member_joined",
      description: `${user.email} joined the team as ${role.code}`,
      properties: { member },
      event: "team.member.joined",
      data: { member, invitation_id: row.id },
    });
    return { teamId: team.id, role: role.code };
  });
}
