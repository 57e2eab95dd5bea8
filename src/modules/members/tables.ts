// The members area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";

export const membersTable = tenantTable("members", { team: "team_id", project: "project_id" });

export type MemberStatus = "lead" | "trialing" | "customer" | "churned" | "banned";

export interface MemberRow {
  id: string;
  team_id: string;
  project_id: string;
  connector_key: string | null;
  external_user_id: string | null;
  display_name: string | null;
  email: string | null;
  status: MemberStatus;
  ban_reason: string | null;
  banned_at: Date | null;
  platform_synced_at: Date | null;
  /** A ban the platform refused: failures since the last success, when the sweep tries again, the platform's words. */
  platform_attempts: number;
  platform_retry_at: Date | null;
  platform_error: string | null;
  joined_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
