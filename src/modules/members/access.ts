// A member's access, read from the access ledger (the same covering grants the connector sweep
// applies and checks joins against: LIVE_GRANT_STATUSES): per place the best of the member's live
// grants, across places the worst (MemberAccessState in members.yaml). One query says what state
// each place is in (placeStates); the list's filter and rows and the member page all read it.
import type { Knex } from "knex";
import { unscoped, type DomainContext } from "../../db/tenant.ts";
import { plansTable } from "../plans/tables.ts";
import { grantsTable, LIVE_GRANT_STATUSES } from "../subscriptions/tables.ts";

export type AccessState = "none" | "granted" | "pending" | "failed";

/** By rank: a place's state is its lowest-ranked live grant, a member's the highest-ranked place. */
const STATES: readonly AccessState[] = ["none", "granted", "pending", "failed"];

/** A live grant's rank: granted; failed when the connector's last platform call for it failed (it waits to try again); else pending. */
const GRANT_RANK = "case when access_grants.status = 'granted' then 1 when access_grants.platform_attempts > 0 then 3 else 2 end";

export interface PlaceState {
  member_id: string;
  resource_id: string;
  /** The live grant that decides the place's state. */
  grant_id: string;
  subscription_id: string;
  grant_mode: string;
  platform_error: string | null;
  rank: number;
}

export const stateOfRank = (rank: number | null | undefined): AccessState => STATES[rank ?? 0] ?? "none";

/** Each (member, place) of the project with a live grant, decided by its best grant (the newest among equals). */
export function placeStates(ctx: DomainContext, projectId: string, memberIds?: readonly string[]): Knex.QueryBuilder {
  const sql = unscoped(ctx, "a raw select expression of the scoped grants query");
  const query = grantsTable
    .rows(ctx)
    .where("access_grants.project_id", projectId)
    .whereIn("access_grants.status", [...LIVE_GRANT_STATUSES])
    .distinctOn(["access_grants.member_id", "access_grants.resource_id"])
    .select(
      "access_grants.member_id",
      "access_grants.resource_id",
      "access_grants.id as grant_id",
      "access_grants.subscription_id",
      "access_grants.grant_mode",
      "access_grants.platform_error",
      sql.raw(`${GRANT_RANK} as rank`),
    )
    .orderBy(["access_grants.member_id", "access_grants.resource_id"])
    .orderByRaw(`${GRANT_RANK}, access_grants.created_at desc`);
  if (memberIds) query.whereIn("access_grants.member_id", [...memberIds]);
  return query;
}

/** Each member of the project entitled to some place, with the rank of their access state. */
function memberRanks(ctx: DomainContext, projectId: string, memberIds?: readonly string[]): Knex.QueryBuilder {
  const over = unscoped(ctx, "a derived table over placeStates, which the tenant builder scopes");
  return over
    .from(placeStates(ctx, projectId, memberIds).as("p"))
    .groupBy("p.member_id")
    .select("p.member_id")
    .max({ rank: "p.rank" });
}

/** Narrows a query of the project's members (table `members`) to those in `state`. */
export function whereAccessState(query: Knex.QueryBuilder, ctx: DomainContext, projectId: string, state: AccessState): Knex.QueryBuilder {
  const entitled = memberRanks(ctx, projectId);
  if (state === "none") return query.whereNotIn("members.id", entitled.clearSelect().select("p.member_id"));
  return query.whereIn(
    "members.id",
    entitled
      .clearSelect()
      .select("p.member_id")
      .havingRaw("max(p.rank) = ?", [STATES.indexOf(state)]),
  );
}

/** The access state of each of `memberIds` (none for a member entitled to nothing). */
export async function accessStatesOf(ctx: DomainContext, projectId: string, memberIds: readonly string[]): Promise<Map<string, AccessState>> {
  const states = new Map<string, AccessState>(memberIds.map((id) => [id, "none"]));
  if (!memberIds.length) return states;
  for (const row of (await memberRanks(ctx, projectId, memberIds)) as { member_id: string; rank: number }[])
    states.set(row.member_id, stateOfRank(Number(row.rank)));
  return states;
}

/** The names of plans `ids` (the member's subscriptions' plans). */
export async function planNamesOf(ctx: DomainContext, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = (await plansTable
    .rows(ctx)
    .whereIn("id", [...new Set(ids)])
    .select("id", "name")) as { id: string; name: string }[];
  return new Map(rows.map((p) => [p.id, p.name]));
}
