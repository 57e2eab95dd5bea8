// Projects (the first slice: creation for the operator CLI and the demo, and visibility checks
// every project-scoped operation relies on).
import { randomUUID } from "node:crypto";
import { randomToken } from "../../security/crypto.ts";
import { ApiError } from "../../errors.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { inAllowList, tenantTable, type DomainContext } from "../../db/tenant.ts";

function generatedHandle(name: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "project";
  return `${base}-${randomToken(6).toLowerCase()}`;
}

/** A project belongs to its team; the project allow-list names projects by their id. */
export const projectsTable = tenantTable("projects", { team: "team_id", project: "id" });

export async function createProject(ctx: DomainContext, input: { name: string; description?: string | null }) {
  const id = randomUUID();
  const handle = generatedHandle(input.name);
  await projectsTable.insert(ctx, {
    id,
    name: input.name,
    handle,
    description: input.description ?? null,
    active: true,
    created_at: ctx.now,
    updated_at: ctx.now,
  });
  await recordActivity(ctx, {
    event: "created",
    description: `Project ${input.name} created`,
    subjectType: "project",
    subjectId: id,
    projectId: id,
    properties: { name: input.name, handle },
  });
  return { id, handle };
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
