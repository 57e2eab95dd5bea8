// Creator tasks (rule 6): a purchase entitling a member to a manual perk (grant mode creator_task)
// opens a task naming member and perk; completing it issues the grant (creator_task.completed then
// member.resource_added for the same grant) and sends the member nothing. A task whose grant was
// revoked first (purchase ended, member banned) becomes void and cannot be completed.
import { randomUUID } from "node:crypto";
import type { DomainContext } from "../../db/tenant.ts";
import { alertCreatorTask } from "../alerts/producers.ts";
import { fetchPage, orderClause, type PageWindow } from "../../db/pages.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";
import { passWindowsTable, type PassWindowRow, type PlanRow } from "../plans/tables.ts";
import { resourcesTable, type ResourceRow } from "../resources/tables.ts";
import type { GrantRow } from "../subscriptions/tables.ts";
import { creatorTasksTable, type CreatorTaskRow } from "./tables.ts";
import { iso } from "../subscriptions/timestamps.ts";

function presentTask(
  row: CreatorTaskRow,
  member: Pick<MemberRow, "id" | "display_name"> | undefined,
  resource: Pick<ResourceRow, "id" | "title"> | undefined,
) {
  return {
    id: row.id,
    project_id: row.project_id,
    grant_id: row.grant_id,
    subscription_id: row.subscription_id,
    status: row.status,
    member: { id: row.member_id, display_name: member?.display_name ?? null },
    perk: { resource_id: row.resource_id, title: resource?.title ?? "" },
    instructions: row.instructions,
    due_at: iso(row.due_at),
    completed_at: iso(row.completed_at),
    completed_by_user_id: row.completed_by_user_id,
    created_at: iso(row.created_at),
  };
}

export type CreatorTask = ReturnType<typeof presentTask>;

/** The tasks as the API shows them (member and perk looked up once per page). */
export async function presentTasks(ctx: DomainContext, rows: CreatorTaskRow[]): Promise<CreatorTask[]> {
  const ids = (key: "member_id" | "resource_id") => [...new Set(rows.map((r) => r[key]))];
  const members = new Map(
    ((await membersTable.rows(ctx).whereIn("id", ids("member_id")).select("id", "display_name")) as MemberRow[]).map((m) => [m.id, m]),
  );
  const resources = new Map(
    ((await resourcesTable.rows(ctx).whereIn("id", ids("resource_id")).select("id", "title")) as ResourceRow[]).map((r) => [r.id, r]),
  );
  return rows.map((r) => presentTask(r, members.get(r.member_id), resources.get(r.resource_id)));
}

/** A dated pass's task is due when the plan's next window starts; continuous access has no due date. */
async function dueAt(ctx: DomainContext, planId: string): Promise<Date | null> {
  const window = (await passWindowsTable
    .rows(ctx)
    .where({ plan_id: planId })
    .where("ends_at", ">", ctx.now)
    .orderBy("starts_at")
    .first("starts_at")) as Pick<PassWindowRow, "starts_at"> | undefined;
  return window ? new Date(window.starts_at) : null;
}

export async function openCreatorTask(
  ctx: DomainContext,
  input: { grant: GrantRow; member: MemberRow; resource: ResourceRow; plan: PlanRow },
): Promise<CreatorTask> {
  const who = input.member.display_name ?? `${input.member.connector_key ?? "platform"} user ${input.member.external_user_id ?? input.member.id}`;
  const row: CreatorTaskRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: input.grant.project_id,
    grant_id: input.grant.id,
    subscription_id: input.grant.subscription_id,
    member_id: input.member.id,
    resource_id: input.resource.id,
    instructions: `Hand "${input.resource.title}" over to ${who}, who joined the plan ${input.plan.name}, then mark this task complete.`,
    due_at: await dueAt(ctx, input.plan.id),
    status: "open",
    completed_at: null,
    completed_by_user_id: null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await creatorTasksTable.insert(ctx, { ...row });
  await alertCreatorTask(ctx, row);
  return presentTask(row, input.member, input.resource);
}

/** The open tasks of revoked grants can no longer be completed. */
export async function voidTasksOfGrants(ctx: DomainContext, grantIds: string[]): Promise<void> {
  await creatorTasksTable.rows(ctx).whereIn("grant_id", grantIds).where({ status: "open" }).update({ status: "void", updated_at: ctx.now });
}

export type TaskFilter = "open" | "completed" | "all";
const TASK_SORT: Record<string, string> = { created_at: "created_at", due_at: "due_at" };

export async function listCreatorTasks(ctx: DomainContext, projectId: string, status: TaskFilter, window: PageWindow) {
  await assertProjectsVisible(ctx, [projectId]);
  const query = creatorTasksTable.rows(ctx).where({ project_id: projectId }).select("*");
  if (status !== "all") query.where({ status });
  const sort = TASK_SORT[window.sortBy] ?? TASK_SORT.created_at!;
  const { rows, total } = await fetchPage<CreatorTaskRow>(query, window, `${orderClause(sort, window.sortDirection)}, id ${window.sortDirection}`);
  return { rows: await presentTasks(ctx, rows), total };
}
