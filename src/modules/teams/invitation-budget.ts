// The invitation budget (issue 43): each invitation mails someone who may have no account, so a
// team sends at most INVITATIONS_PER_TEAM_PER_DAY and an address receives at most
// INVITATIONS_PER_ADDRESS_PER_DAY (from all teams together) in any 24 hours. It is counted from the
// invitations made, withdrawn ones too, in the database: exact, shared by every process, kept
// across restarts and independent of Redis. Beyond it, 429 RATE_LIMITED with Retry-After.
import type { Knex } from "knex";
import { ApiError } from "../../errors.ts";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { invitationsTable } from "./tables.ts";

export const INVITATIONS_PER_TEAM_PER_DAY = 20;
export const INVITATIONS_PER_ADDRESS_PER_DAY = 3;
export const INVITATION_BUDGET_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Refuses the invitation of `email` (lower case) when the team's or the address's budget is spent.
 * Call in the transaction that inserts the invitation, with the team's row locked: the address's
 * advisory lock makes two teams inviting one address take turns, so neither budget is overshot.
 */
export async function requireInvitationBudget(ctx: DomainContext, email: string): Promise<void> {
  const db = unscoped(ctx, "an address's invitations come from every team");
  await db.raw("select pg_advisory_xact_lock(hashtextextended(?, 43))", [`team-invitations:${email}`]);
  const since = new Date(ctx.now.getTime() - INVITATION_BUDGET_WINDOW_MS);
  const team = invitationsTable.rows(ctx).where("created_at", ">", since);
  await refuseBeyond(
    ctx,
    team,
    INVITATIONS_PER_TEAM_PER_DAY,
    "team_invitations",
    (limit) => `This team sent ${limit} invitations in the last 24 hours, the most it may`,
  );
  const address = db("team_invitations").whereRaw("lower(email) = ?", [email]).where("created_at", ">", since);
  await refuseBeyond(
    ctx,
    address,
    INVITATIONS_PER_ADDRESS_PER_DAY,
    "address_invitations",
    (limit) => `This address received ${limit} invitations in the last 24 hours, the most it may`,
  );
}

/**
 * Refuses when `made` (invitations inside the window) holds `limit` or more: the one whose 24 hours
 * end first among the newest `limit` says when the next invitation fits.
 */
async function refuseBeyond(
  ctx: DomainContext,
  made: Knex.QueryBuilder,
  limit: number,
  reason: "team_invitations" | "address_invitations",
  spent: (limit: number) => string,
): Promise<void> {
  const blocking = (await made
    .orderBy("created_at", "desc")
    .offset(limit - 1)
    .first("created_at")) as { created_at: Date } | undefined;
  if (!blocking) return;
  const retryAfter = Math.max(1, Math.ceil((new Date(blocking.created_at).getTime() + INVITATION_BUDGET_WINDOW_MS - ctx.now.getTime()) / 1000));
  throw new ApiError("RATE_LIMITED", `${spent(limit)}; the next one fits in ${retryAfter} seconds. Nothing was sent.`, {
    headers: { "Retry-After": String(retryAfter) },
    context: { reason, limit, retry_after: retryAfter },
  });
}
