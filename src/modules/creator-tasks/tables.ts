// The creator-tasks area's tenant table.
import { tenantTable } from "../../db/tenant.ts";

export const creatorTasksTable = tenantTable("creator_tasks", { team: "team_id", project: "project_id" });

export type CreatorTaskStatus = "open" | "completed" | "void";

export interface CreatorTaskRow {
  id: string;
  team_id: string;
  project_id: string;
  grant_id: string;
  subscription_id: string;
  member_id: string;
  resource_id: string;
  instructions: string;
  due_at: Date | null;
  status: CreatorTaskStatus;
  completed_at: Date | null;
  completed_by_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}
