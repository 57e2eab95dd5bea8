// The plans area's tenant tables: plans, the resources each grants, and pass windows.
import { tenantTable } from "../../db/tenant.ts";

export const plansTable = tenantTable("plans", { team: "team_id", project: "project_id" });
export const planResourcesTable = tenantTable("plan_resources", { team: "team_id", project: "project_id" });
export const passWindowsTable = tenantTable("pass_windows", { team: "team_id", project: "project_id" });

export type BillingCycle = "day" | "week" | "month" | "year" | "lifetime";
export type PlanStatus = "draft" | "published" | "archived";

export interface PlanRow {
  id: string;
  team_id: string;
  project_id: string;
  name: string;
  description: string | null;
  /** bigint: pg returns it as a string. */
  amount_minor: string | number;
  currency: string;
  billing_cycle: BillingCycle;
  billing_cycle_count: number;
  trial_days: number;
  status: PlanStatus;
  access_codes_only: boolean;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface PassWindowRow {
  id: string;
  team_id: string;
  project_id: string;
  plan_id: string;
  name: string;
  starts_at: Date;
  ends_at: Date;
  capacity: number | null;
  created_at: Date;
  updated_at: Date;
}
