// The broadcasts area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";
import type { SubscriptionStatus } from "../subscriptions/tables.ts";

export const broadcastsTable = tenantTable("broadcasts", { team: "team_id", project: "project_id" });
export const recipientsTable = tenantTable("broadcast_recipients", { team: "team_id", project: "project_id" });

export type StoredBroadcastStatus = "scheduled" | "started" | "canceled";
export type RecipientStatus = "queued" | "sent" | "blocked" | "failed" | "opted_out";
export const RECIPIENT_STATUSES: readonly RecipientStatus[] = ["queued", "sent", "blocked", "failed", "opted_out"];

export interface BroadcastButton {
  label: string;
  target: string;
}

export interface Segment {
  plan_ids: string[];
  subscription_statuses: SubscriptionStatus[];
  connectors: string[];
  joined_after: string | null;
  joined_before: string | null;
}

export interface BroadcastRow {
  id: string;
  team_id: string;
  project_id: string;
  text: string;
  image_url: string | null;
  buttons: BroadcastButton[][];
  segment: Segment;
  test: boolean;
  status: StoredBroadcastStatus;
  send_at: Date;
  started_at: Date | null;
  canceled_at: Date | null;
  created_by_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface RecipientRow {
  id: string;
  team_id: string;
  project_id: string;
  broadcast_id: string;
  member_id: string | null;
  connector_key: string;
  platform_user_id: string;
  status: RecipientStatus;
  bot_message_id: string | null;
  error: string | null;
  sent_at: Date | null;
  position: number;
  created_at: Date;
  updated_at: Date;
}
