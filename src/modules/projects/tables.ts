// The projects area's tenant tables: projects, and every handle a project has held.
import { ApiError } from "../../errors.ts";
import { inAllowList, tenantTable, type DomainContext } from "../../db/tenant.ts";

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

/**
 * The ids among `projectIds` that are not projects of the actor's team (they answer 404
 * RESOURCE_NOT_FOUND), and those outside the actor's allow-list (404 TENANT_MISMATCH).
 */
export async function assertProjectsVisible(ctx: DomainContext, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  const found = new Set(
    (
      await projectsTable
        .teamRows(ctx)
        .whereIn("projects.id", [...projectIds])
        .select("projects.id")
    ).map((r: { id: string }) => r.id),
  );
  const missing = projectIds.filter((id) => !found.has(id));
  if (missing.length) {
    throw new ApiError("RESOURCE_NOT_FOUND", `No project with the id ${missing[0]} is visible to this token.`, {
      context: { project_id: missing[0] },
    });
  }
  const outside = projectIds.filter((id) => !inAllowList(ctx.actor, id));
  if (outside.length) {
    throw new ApiError("TENANT_MISMATCH", `The project ${outside[0]} is outside this token's project allow-list.`, {
      context: { project_id: outside[0] },
    });
  }
}

/** The handle of a project visible to the actor (404 as assertProjectsVisible otherwise): a download's name starts with it. */
export async function visibleProjectHandle(ctx: DomainContext, projectId: string): Promise<string> {
  await assertProjectsVisible(ctx, [projectId]);
  const row = (await projectsTable.teamRows(ctx).where("projects.id", projectId).first("projects.handle")) as { handle: string };
  return row.handle;
}
