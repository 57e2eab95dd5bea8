// The one place a member's status is derived (memberpass 5.2): banned stays banned until an unban;
// otherwise customer while a paid (active, past_due in its grace, or canceled but not yet ended) subscription lives,
// trialing while only a trial lives, churned once the last live subscription has ended after the
// member ever joined, lead before that. A move to churned emits member.churned.
import type { DomainContext } from "../../db/tenant.ts";
import { isLive, subscriptionsTable, type SubscriptionRow } from "../subscriptions/tables.ts";
import { memberById, recordMemberChange, updateMember } from "./members.ts";
import type { MemberRow, MemberStatus } from "./tables.ts";

export { isLive };

export function deriveMemberStatus(
  member: Pick<MemberRow, "status" | "joined_at">,
  subscriptions: Pick<SubscriptionRow, "status" | "ends_at">[],
  now: Date,
): MemberStatus {
  if (member.status === "banned") return "banned";
  const live = subscriptions.filter((s) => isLive(s, now));
  if (live.some((s) => s.status !== "trialing")) return "customer";
  if (live.length) return "trialing";
  return member.joined_at ? "churned" : "lead";
}

/** Derives the member's status again after a change to its subscriptions, and records a churn. */
export async function refreshMemberStatus(ctx: DomainContext, projectId: string, memberId: string): Promise<MemberRow> {
  const member = await memberById(ctx, projectId, memberId);
  const subscriptions = (await subscriptionsTable.rows(ctx).where({ member_id: memberId }).select("status", "ends_at")) as SubscriptionRow[];
  const status = deriveMemberStatus(member, subscriptions, ctx.now);
  if (status === member.status) return member;
  const updated = await updateMember(ctx, member, { status });
  if (status === "churned") {
    await recordMemberChange(ctx, updated, { event: "churned", description: `Member ${member.display_name ?? member.id} churned`, data: {} });
  }
  return updated;
}
