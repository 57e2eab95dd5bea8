// Completing a creator task issues the grant it stood for: the one place the tasks and the grants
// meet in that direction (grants.ts opens tasks; tasks.ts knows nothing of grants).
import { domainRefusal, notFound } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { isLive } from "../members/status.ts";
import { issueGrant, lockedGrant } from "../subscriptions/grants.ts";
import { subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { creatorTasksTable, type CreatorTaskRow } from "./tables.ts";
import { presentTasks, type CreatorTask } from "./tasks.ts";

/**
 * Completes an open task whose purchase still stands: the grant is issued, the task records who
 * completed it; creator_task.completed then member.resource_added. Otherwise 422 with task_id.
 */
export async function completeCreatorTask(
  ctx: DomainContext & { actor: { userId: string } },
  projectId: string,
  taskId: string,
): Promise<CreatorTask> {
  await assertProjectsVisible(ctx, [projectId]);
  const task = (await creatorTasksTable.rows(ctx).where({ id: taskId, project_id: projectId }).forUpdate().first()) as CreatorTaskRow | undefined;
  if (!task) throw notFound("creator task");
  const refuse = (why: string) => domainRefusal(why, { task_id: task.id });
  if (task.status === "completed") throw refuse("The task is already completed.");
  const grant = await lockedGrant(ctx, task.grant_id);
  const subscription = (await subscriptionsTable.rows(ctx).where({ id: task.subscription_id }).first()) as SubscriptionRow;
  if (task.status !== "open" || grant.status !== "pending" || !isLive(subscription, ctx.now))
    throw refuse("The purchase behind this task has ended.");
  const changes = { status: "completed" as const, completed_at: ctx.now, completed_by_user_id: ctx.actor.userId, updated_at: ctx.now };
  await creatorTasksTable.rows(ctx).where({ id: task.id }).update(changes);
  const [completed] = await presentTasks(ctx, [{ ...task, ...changes }]);
  await recordActivity(ctx, {
    event: "creator_task_completed",
    description: `Creator task for ${completed!.perk.title} completed`,
    subjectType: "subscription",
    subjectId: task.subscription_id,
    projectId,
    properties: { task: completed },
  });
  await emitEvent(ctx, { type: "creator_task.completed", projectId, data: { task: completed } });
  await issueGrant(ctx, grant);
  return completed!;
}
