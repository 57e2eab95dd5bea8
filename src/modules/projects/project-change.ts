// A change to a project, written with the change: its activity entry (subject_type "project") and
// its event project.<action>, both carrying the project as the API shows it.
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";

export type ProjectAction = "created" | "updated" | "archived" | "restored" | "deleted";
export type ProjectField = "name" | "handle" | "description" | "terms_url" | "privacy_url";

export async function recordProjectChange(
  ctx: DomainContext,
  action: ProjectAction,
  project: { id: string; name: string },
  extra: { changed_fields?: ProjectField[]; previous?: Partial<Record<ProjectField, unknown>> } = {},
): Promise<void> {
  const data = { project, ...extra };
  await recordActivity(ctx, {
    event: action,
    description: `Project ${project.name} ${action}`,
    subjectType: "project",
    subjectId: project.id,
    projectId: project.id,
    properties: data,
  });
  await emitEvent(ctx, { type: `project.${action}`, projectId: project.id, data });
}
