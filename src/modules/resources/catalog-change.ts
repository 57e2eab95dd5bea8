// A change to what a project sells or hands over (a resource, a plan, a pass window, a coupon, a
// payment method): its activity entry and its event, written in the change's transaction.
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { assertProjectsVisible } from "../projects/projects.ts";

export interface CatalogChange {
  projectId: string;
  /** The activity log's subject: its alias (plan, coupon, project-resource, project) and id. */
  subjectType: string;
  subjectId: string;
  /** Activity entry name (plan_published) and its sentence. */
  activity: string;
  description: string;
  /** Event type (plan.published) and what its data carries, as the API shows it. */
  event: string;
  data: Record<string, unknown>;
}

export async function recordCatalogChange(ctx: DomainContext, change: CatalogChange): Promise<void> {
  await recordActivity(ctx, {
    event: change.activity,
    description: change.description,
    subjectType: change.subjectType,
    subjectId: change.subjectId,
    projectId: change.projectId,
    properties: change.data,
  });
  await emitEvent(ctx, { type: change.event, projectId: change.projectId, data: change.data });
}

/** The path's project must be one of the actor's team (404 otherwise; the allow-list is checked before). */
export async function requireProject(ctx: DomainContext, projectId: string): Promise<void> {
  await assertProjectsVisible(ctx, [projectId]);
}

/** ISO timestamp of a database time, or null. */
export function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
