// A member's first subscription makes them joined (joined_at, member.joined); every new
// subscription derives their status again. One path for every way in: an access code, a payment.
import type { DomainContext } from "../../db/tenant.ts";
import { recordMemberChange, updateMember } from "./members.ts";
import { refreshMemberStatus } from "./status.ts";
import type { MemberRow } from "./tables.ts";

export async function memberSubscribed(
  ctx: DomainContext,
  member: MemberRow,
  input: { subscriptionId: string; planId: string; through: string },
): Promise<MemberRow> {
  if (member.joined_at) return refreshMemberStatus(ctx, member.project_id, member.id);
  const joined = await refreshMemberStatus(ctx, member.project_id, (await updateMember(ctx, member, { joined_at: ctx.now })).id);
  await recordMemberChange(ctx, joined, {
    event: "joined",
    description: `Member ${joined.display_name ?? joined.id} joined through ${input.through}`,
    data: { subscription_id: input.subscriptionId, plan_id: input.planId },
  });
  return joined;
}
