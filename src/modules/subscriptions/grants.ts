// The access ledger: a subscription entitles its member to each resource its plan grants, one grant
// per resource in the plan's order. A creator_task grant opens a creator task and waits for the
// creator; any other grant waits for the connector (platform_synced_at null), which calls
// markGrantFulfilled once the member has access. Grants are revoked when the subscription ends or
// the member is banned (the connector removes access: platform_synced_at null again).
import { randomUUID } from "node:crypto";
import { domainRefusal, notFound } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { planResourcesTable, type PlanRow } from "../plans/tables.ts";
import { resourcesTable, type ResourceRow } from "../resources/tables.ts";
import { openCreatorTask, voidTasksOfGrants, type CreatorTask } from "../creator-tasks/tasks.ts";
import type { MemberRow } from "../members/tables.ts";
import { grantsTable, LIVE_GRANT_STATUSES, PLATFORM_FAILURES_CLEARED, type GrantRow, type SubscriptionRow } from "./tables.ts";
import { iso } from "./timestamps.ts";

export function presentGrant(row: GrantRow) {
  return {
    id: row.id,
    subscription_id: row.subscription_id,
    member_id: row.member_id,
    resource_id: row.resource_id,
    grant_mode: row.grant_mode,
    status: row.status,
    granted_at: iso(row.granted_at),
    revoked_at: iso(row.revoked_at),
    created_at: iso(row.created_at),
  };
}

export type Grant = ReturnType<typeof presentGrant>;

/** One pending grant per resource the plan grants (in order), and a task for each manual perk. */
export async function grantPlanResources(
  ctx: DomainContext,
  input: { subscription: SubscriptionRow; member: MemberRow; plan: PlanRow },
): Promise<{ grants: Grant[]; tasks: CreatorTask[] }> {
  const links = (await planResourcesTable.rows(ctx).where({ plan_id: input.plan.id }).orderBy("position").select("resource_id")) as {
    resource_id: string;
  }[];
  const resources = new Map(
    (
      (await resourcesTable
        .rows(ctx)
        .whereIn(
          "id",
          links.map((l) => l.resource_id),
        )
        .select("*")) as ResourceRow[]
    ).map((r) => [r.id, r]),
  );
  const grants: Grant[] = [];
  const tasks: CreatorTask[] = [];
  for (const { resource_id } of links) {
    const resource = resources.get(resource_id);
    if (!resource) continue;
    const row: GrantRow = {
      id: randomUUID(),
      team_id: ctx.actor.teamId,
      project_id: input.subscription.project_id,
      subscription_id: input.subscription.id,
      member_id: input.member.id,
      resource_id,
      grant_mode: resource.grant_mode,
      status: "pending",
      granted_at: null,
      revoked_at: null,
      platform_synced_at: null,
      ...PLATFORM_FAILURES_CLEARED,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await grantsTable.insert(ctx, { ...row });
    grants.push(presentGrant(row));
    if (resource.grant_mode === "creator_task")
      tasks.push(await openCreatorTask(ctx, { grant: row, member: input.member, resource, plan: input.plan }));
  }
  return { grants, tasks };
}

/** pending -> granted, and member.resource_added for the grant (the caller checked it may move). */
export async function issueGrant(ctx: DomainContext, grant: GrantRow): Promise<GrantRow> {
  const changes = { status: "granted" as const, granted_at: ctx.now, platform_synced_at: ctx.now, updated_at: ctx.now };
  await grantsTable.rows(ctx).where({ id: grant.id }).update(changes);
  const issued = { ...grant, ...changes };
  await emitEvent(ctx, { type: "member.resource_added", projectId: grant.project_id, data: { grant: presentGrant(issued) } });
  return issued;
}

export async function lockedGrant(ctx: DomainContext, id: string): Promise<GrantRow> {
  const row = (await grantsTable.rows(ctx).where({ id }).forUpdate().first()) as GrantRow | undefined;
  if (!row) throw notFound("grant");
  return row;
}

/**
 * The connector reports that the member now has the resource: pending -> granted and
 * member.resource_added. Already granted: nothing happens. A revoked grant, or a creator_task grant
 * (completed through its task), is refused.
 */
export async function markGrantFulfilled(ctx: DomainContext, grantId: string): Promise<Grant> {
  const grant = await lockedGrant(ctx, grantId);
  if (grant.status === "granted") return presentGrant(grant);
  if (grant.status === "revoked") throw domainRefusal("The grant was revoked.", { grant_id: grant.id });
  if (grant.grant_mode === "creator_task")
    throw domainRefusal("A creator_task grant is issued by completing its creator task.", { grant_id: grant.id });
  const issued = presentGrant(await issueGrant(ctx, grant));
  await recordActivity(ctx, {
    event: "grant_fulfilled",
    description: "The connector gave the member access to a resource",
    subjectType: "subscription",
    subjectId: grant.subscription_id,
    projectId: grant.project_id,
    properties: { grant: issued },
  });
  return issued;
}

/**
 * Revokes the live grants matching `where` (a subscription's, or a member's): each granted one emits
 * member.resource_removed, open tasks of pending ones become void, and the connector has work.
 */
export async function revokeGrants(ctx: DomainContext, where: { subscription_id: string } | { member_id: string }): Promise<GrantRow[]> {
  const live = (await grantsTable
    .rows(ctx)
    .where(where)
    .whereIn("status", [...LIVE_GRANT_STATUSES])
    .orderBy("created_at")
    .select("*")) as GrantRow[];
  if (!live.length) return [];
  // Taking access away is new work for the sweep: tried at once, a failed grant's earlier refusals forgotten.
  const changes = { status: "revoked" as const, revoked_at: ctx.now, platform_synced_at: null, ...PLATFORM_FAILURES_CLEARED, updated_at: ctx.now };
  await grantsTable
    .rows(ctx)
    .whereIn(
      "id",
      live.map((g) => g.id),
    )
    .update(changes);
  await voidTasksOfGrants(
    ctx,
    live.map((g) => g.id),
  );
  for (const grant of live.filter((g) => g.status === "granted")) {
    await emitEvent(ctx, { type: "member.resource_removed", projectId: grant.project_id, data: { grant: presentGrant({ ...grant, ...changes }) } });
  }
  return live;
}
