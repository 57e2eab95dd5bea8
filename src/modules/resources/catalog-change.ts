// A change to what a project sells or hands over (a resource, a plan, a pass window, a coupon, a
// payment method): its activity entry and its event, written in the change's transaction.
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { assertProjectsVisible } from "../projects/tables.ts";

export interface CatalogChange {
  /** The entity as events name it (plan, pass_window): event <entity>.<action>, entry <entity>_<action>. */
  entity: string;
  action: string;
  /** What the entry's sentence calls it (its name, title or code). */
  label: string;
  /** The entity as the API shows it: the event's data is {<entity>: shown}, also the entry's properties. */
  shown: { project_id: string };
  /** The activity log's subject (alias and id): the entity's own, or the one its entries belong to. */
  subject: [alias: string, id: string];
}

export async function recordCatalogChange(ctx: DomainContext, change: CatalogChange): Promise<void> {
  const data = { [change.entity]: change.shown };
  const projectId = change.shown.project_id;
  const noun = change.entity.replace(/_/g, " ");
  await recordActivity(ctx, {
    event: `${change.entity}_${change.action}`,
    description: `${noun[0]!.toUpperCase()}${noun.slice(1)} ${change.label} ${change.action}`,
    subjectType: change.subject[0],
    subjectId: change.subject[1],
    projectId,
    properties: data,
  });
  await emitEvent(ctx, { type: `${change.entity}.${change.action}`, projectId, data });
}

/** The path's project must be one of the actor's team (404 otherwise; the allow-list is checked before). */
export async function requireProject(ctx: DomainContext, projectId: string): Promise<void> {
  await assertProjectsVisible(ctx, [projectId]);
}

/** ISO timestamp of a database time, or null. */
export function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
