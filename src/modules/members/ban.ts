// Banning a member: status banned, every live subscription cancelled with access ending now
// (subscription.cancelled), every grant revoked (member.resource_removed for the granted ones,
// open creator tasks void), then member.banned. The connector side is recorded, not performed here:
// platform_synced_at null on the member (remove from every resource of the project and revoke the
// member's links, as the bot's "ban confirm" does) and on each revoked grant; the connector driver
// applies it and sets the timestamps. Banning a banned member changes nothing. Unbanning moves the
// member back to churned (or lead if they never joined); old subscriptions are not restored.
import type { DomainContext } from "../../db/tenant.ts";
import { domainRefusal } from "../../errors.ts";
import { assertProjectsVisible } from "../projects/tables.ts";
import { revokeGrants } from "../subscriptions/grants.ts";
import { cancelSubscriptionRow } from "../subscriptions/subscriptions.ts";
import { PLATFORM_FAILURES_CLEARED, subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { memberById, presentMember, recordMemberChange, updateMember } from "./members.ts";
import { deriveMemberStatus, isLive } from "./status.ts";

/** A ban or an unban is new work for the connector: tried at once, earlier refusals forgotten. */
const PLATFORM_AFRESH = { platform_synced_at: null, ...PLATFORM_FAILURES_CLEARED };

export async function banMember(ctx: DomainContext, projectId: string, id: string, input: { reason?: string | null }) {
  await assertProjectsVisible(ctx, [projectId]);
  const member = await memberById(ctx, projectId, id, true);
  if (member.status === "banned") return presentMember(member);
  const subscriptions = (await subscriptionsTable.rows(ctx).where({ member_id: id }).orderBy("created_at").select("*")) as SubscriptionRow[];
  for (const sub of subscriptions.filter((s) => isLive(s, ctx.now))) await cancelSubscriptionRow(ctx, sub, { endsNow: true });
  await revokeGrants(ctx, { member_id: id });
  const reason = input.reason ?? null;
  const banned = await updateMember(ctx, member, { status: "banned", banned_at: ctx.now, ban_reason: reason, ...PLATFORM_AFRESH });
  await recordMemberChange(ctx, banned, {
    event: "banned",
    description: `Member ${member.display_name ?? member.id} banned`,
    properties: { reason },
    data: { reason },
  });
  return presentMember(banned);
}

export async function unbanMember(ctx: DomainContext, projectId: string, id: string) {
  await assertProjectsVisible(ctx, [projectId]);
  const member = await memberById(ctx, projectId, id, true);
  if (member.status !== "banned") throw domainRefusal("The member is not banned.", { member_id: member.id });
  const subscriptions = (await subscriptionsTable.rows(ctx).where({ member_id: id }).select("status", "ends_at")) as SubscriptionRow[];
  const status = deriveMemberStatus({ status: "lead", joined_at: member.joined_at }, subscriptions, ctx.now);
  const unbanned = await updateMember(ctx, member, { status, banned_at: null, ban_reason: null, ...PLATFORM_AFRESH });
  await recordMemberChange(ctx, unbanned, { event: "unbanned", description: `Member ${member.display_name ?? member.id} unbanned` });
  return presentMember(unbanned);
}
