// The coupons area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";

export const couponsTable = tenantTable("coupons", { team: "team_id", project: "project_id" });

export interface CouponRow {
  id: string;
  team_id: string;
  project_id: string;
  code: string;
  name: string | null;
  percent_off: number | null;
  /** bigint: pg returns it as a string. */
  amount_off_minor: string | number | null;
  currency: string | null;
  plan_ids: string[];
  max_redemptions: number | null;
  redemptions_count: number;
  expires_at: Date | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}
