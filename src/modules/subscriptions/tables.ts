// The subscriptions area's tenant tables: subscriptions and the access ledger.
import type { Knex } from "knex";
import { tenantTable } from "../../db/tenant.ts";
import type { GrantMode } from "../resources/tables.ts";

export const subscriptionsTable = tenantTable("subscriptions", { team: "team_id", project: "project_id" });
export const grantsTable = tenantTable("access_grants", { team: "team_id", project: "project_id" });

export type SubscriptionStatus = "trialing" | "active" | "past_due" | "canceled" | "expired";

/** The statuses of a member's one live subscription on a project (the unique index subscriptions_one_live). */
export const LIVE_STATUSES: readonly SubscriptionStatus[] = ["trialing", "active", "past_due"];
/** Whether the subscription still gives access at `now`. */
export function isLive(sub: Pick<SubscriptionRow, "status" | "ends_at">, now: Date): boolean {
  if (LIVE_STATUSES.includes(sub.status)) return true;
  return sub.status === "canceled" && sub.ends_at !== null && new Date(sub.ends_at) > now;
}

/** isLive as a condition on the subscriptions table (alias `table`), for queries that filter by it. */
export function whereLive(query: Knex.QueryBuilder, now: Date, table = "subscriptions"): Knex.QueryBuilder {
  return query.where((live) =>
    live
      .whereIn(`${table}.status`, [...LIVE_STATUSES])
      .orWhere((ending) => ending.where(`${table}.status`, "canceled").where(`${table}.ends_at`, ">", now)),
  );
}

export type GrantStatus = "pending" | "granted" | "revoked";

/** A grant in these statuses entitles its member to its resource (the access ledger's covering grants). */
export const LIVE_GRANT_STATUSES: readonly GrantStatus[] = ["pending", "granted"];

export interface SubscriptionRow {
  id: string;
  team_id: string;
  project_id: string;
  member_id: string;
  plan_id: string;
  status: SubscriptionStatus;
  source: string;
  started_at: Date;
  ends_at: Date | null;
  trial_ends_at: Date | null;
  canceled_at: Date | null;
  expired_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** The provider that bills it and its id there; null for an access code. */
  provider?: string | null;
  provider_subscription_id?: string | null;
  payment_method_id?: string | null;
  /** The pass window it was bought for: it ends with the window (the expiry job). */
  pass_window_id?: string | null;
  /** When its plan's grants are issued (a window's start, the pass-windows job); null once issued or when issued at creation. */
  grants_due_at?: Date | null;
}

/** No platform failure on record (a grant's, or a banned member's): the connector sweep tries it at once. */
export const PLATFORM_FAILURES_CLEARED = { platform_attempts: 0, platform_retry_at: null, platform_error: null } as const;

export interface GrantRow {
  id: string;
  team_id: string;
  project_id: string;
  subscription_id: string;
  member_id: string;
  resource_id: string;
  grant_mode: GrantMode;
  status: GrantStatus;
  granted_at: Date | null;
  revoked_at: Date | null;
  platform_synced_at: Date | null;
  /** Failed platform calls since the last success; the sweep waits until platform_retry_at to try again. */
  platform_attempts: number;
  platform_retry_at: Date | null;
  /** The platform's words for the last failure. */
  platform_error: string | null;
  created_at: Date;
  updated_at: Date;
}
