// The resources area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";

export const resourcesTable = tenantTable("resources", { team: "team_id", project: "project_id" });

export type GrantMode = "bearer_link" | "membership" | "role" | "creator_task";

export interface ResourceRow {
  id: string;
  team_id: string;
  project_id: string;
  installation_id: string | null;
  connector_key: string;
  kind: string;
  grant_mode: GrantMode;
  title: string;
  description: string | null;
  platform_ref: string | null;
  early_admission_hold: boolean;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}
