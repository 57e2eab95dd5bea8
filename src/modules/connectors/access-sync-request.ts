// A creator's "re-sync access" for one member (sync_member_access): what the connector sweep has
// still to do for the member (pending grants to give, revoked ones to take away, a ban to apply)
// is made due now, a failed item's back-off skipped once (its attempt count kept, so the next
// failure waits as long as it would have), and the sweep runs for the member after the commit
// (the connectors.sync-access job catches up with what it cannot do then). Granted grants are in
// line already; the sweep has nothing to apply for them.
import { afterCommit, type DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { memberById } from "../members/members.ts";
import { membersTable } from "../members/tables.ts";
import { resourcesTable } from "../resources/tables.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { grantsTable, LIVE_GRANT_STATUSES, type GrantRow } from "../subscriptions/tables.ts";
import { FULFILLED } from "./access-sync.ts";

type NotQueued = "already_applied" | "creator_task" | "platform_account_not_linked";

export async function requestAccessSync(ctx: DomainContext, projectId: string, memberId: string) {
  await assertProjectsVisible(ctx, [projectId]);
  const member = await memberById(ctx, projectId, memberId, true);
  const grants = (await grantsTable
    .rows(ctx)
    .where({ member_id: member.id })
    .where((due) =>
      due.whereIn("status", [...LIVE_GRANT_STATUSES]).orWhere((removal) =>
        removal
          .where("status", "revoked")
          .whereNull("platform_synced_at")
          .whereIn("grant_mode", [...FULFILLED]),
      ),
    )
    .orderBy([{ column: "created_at" }, { column: "id" }])
    .select("*")) as GrantRow[];
  const titles = new Map(
    (
      (await resourcesTable
        .rows(ctx)
        .whereIn(
          "id",
          grants.map((g) => g.resource_id),
        )
        .select("id", "title", "connector_key")) as { id: string; title: string; connector_key: string }[]
    ).map((r) => [r.id, r]),
  );
  const queued: { grant_id: string; resource_id: string; resource_title: string; action: "give" | "remove"; previous_attempts: number }[] = [];
  const notQueued: { grant_id: string; resource_id: string; resource_title: string; reason: NotQueued }[] = [];
  for (const grant of grants) {
    const resource = titles.get(grant.resource_id);
    const item = { grant_id: grant.id, resource_id: grant.resource_id, resource_title: resource?.title ?? "" };
    // The sweep reaches only the member's account on the resource's platform (access-sync.ts workItems).
    const reachable = member.external_user_id !== null && member.connector_key === resource?.connector_key;
    if (!(FULFILLED as readonly string[]).includes(grant.grant_mode)) notQueued.push({ ...item, reason: "creator_task" });
    else if (grant.status === "granted") notQueued.push({ ...item, reason: "already_applied" });
    else if (!reachable) notQueued.push({ ...item, reason: "platform_account_not_linked" });
    else queued.push({ ...item, action: grant.status === "pending" ? "give" : "remove", previous_attempts: grant.platform_attempts });
  }
  if (queued.length)
    await grantsTable
      .rows(ctx)
      .whereIn(
        "id",
        queued.map((q) => q.grant_id),
      )
      .update({ platform_retry_at: null, updated_at: ctx.now });
  const banQueued = member.status === "banned" && member.platform_synced_at === null;
  if (banQueued) await membersTable.rows(ctx).where({ id: member.id }).update({ platform_retry_at: null });
  await recordActivity(ctx, {
    event: "access_sync_requested",
    description: `Access sync requested for member ${member.display_name ?? member.id}: ${queued.length} place${queued.length === 1 ? "" : "s"} queued`,
    subjectType: "member",
    subjectId: member.id,
    projectId,
    properties: { queued, not_queued: notQueued, ban_queued: banQueued },
  });
  if (queued.length || banQueued) afterCommit(ctx, { kind: "access-sync", memberIds: [member.id] });
  return { member_id: member.id, queued, ban_queued: banQueued, not_queued: notQueued };
}
