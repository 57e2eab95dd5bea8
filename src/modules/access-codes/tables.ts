// The access-codes area's tenant table.
import { tenantTable } from "../../db/tenant.ts";

export const accessCodesTable = tenantTable("access_codes", { team: "team_id", project: "project_id" });

export type AccessCodeStatus = "unredeemed" | "redeemed" | "expired";

export interface AccessCodeRow {
  id: string;
  team_id: string;
  project_id: string;
  plan_id: string;
  batch_id: string;
  code_hash: string;
  code_masked: string;
  status: AccessCodeStatus;
  expires_at: Date | null;
  redeemed_at: Date | null;
  redeemed_by_member_id: string | null;
  subscription_id: string | null;
  expired_at: Date | null;
  created_by_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}
