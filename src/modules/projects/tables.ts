// The projects area's tenant tables: projects, and every handle a project has held.
import { tenantTable } from "../../db/tenant.ts";

/** A project belongs to its team; the project allow-list names projects by their id. */
export const projectsTable = tenantTable("projects", { team: "team_id", project: "id" });

/**
 * Every handle ever claimed (current: retired_at null). Handles are unique across the service, so
 * availability is read without the tenant filter (handles.ts); a team's own rows through here.
 */
export const projectHandlesTable = tenantTable("project_handles", { team: "team_id", project: "project_id" });

export interface ProjectRow {
  id: string;
  team_id: string;
  name: string;
  handle: string;
  description: string | null;
  terms_url: string | null;
  privacy_url: string | null;
  active: boolean;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
