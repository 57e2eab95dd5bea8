// A member's opt-out of broadcasts: /stop in their private chat with the project's bot sets
// members.broadcasts_opted_out_at (they stay in every segment, counted as opted_out and sent
// nothing); /resume clears it. /start never opts back in: a member who said stop said it once.
// Notices about their own subscription (reminders, access links) are not broadcasts and still go.
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import type { PlatformAccount } from "../members/members.ts";
import { membersTable, type MemberRow } from "../members/tables.ts";

export type BroadcastCommand = "stop" | "resume";

/** The broadcast command of a message (/stop or /resume, optionally @bot), or null. */
export function broadcastCommandOf(text: string): BroadcastCommand | null {
  const match = /^\/(stop|resume)(?:@\w+)?\s*$/.exec(text.trim());
  return match ? (match[1] as BroadcastCommand) : null;
}

export const STOP_TEXT = "You will no longer receive broadcasts from this project. Send /resume to receive them again.";
export const RESUME_TEXT = "You will receive this project's broadcasts again. Send /stop to stop them.";
const UNKNOWN_TEXT = "You are not a member of this project yet, so it sends you no broadcasts.";

/** Sets or clears the member's opt-out (once: repeating it changes nothing); answers what the bot says. */
export async function runBroadcastCommand(
  ctx: DomainContext,
  projectId: string,
  account: PlatformAccount,
  command: BroadcastCommand,
): Promise<string> {
  const member = (await membersTable
    .rows(ctx)
    .where({ project_id: projectId, connector_key: account.connectorKey, external_user_id: account.externalUserId })
    .first("id", "broadcasts_opted_out_at")) as (Pick<MemberRow, "id"> & { broadcasts_opted_out_at: Date | null }) | undefined;
  if (!member) return UNKNOWN_TEXT;
  const stop = command === "stop";
  if (stop === (member.broadcasts_opted_out_at !== null)) return stop ? STOP_TEXT : RESUME_TEXT;
  await membersTable
    .rows(ctx)
    .where({ id: member.id })
    .update({ broadcasts_opted_out_at: stop ? ctx.now : null, updated_at: ctx.now });
  await recordActivity(ctx, {
    event: stop ? "member_broadcasts_opted_out" : "member_broadcasts_opted_in",
    description: stop ? "Member opted out of broadcasts" : "Member opted back in to broadcasts",
    subjectType: "member",
    subjectId: member.id,
    projectId,
    properties: { member_id: member.id, connector: account.connectorKey },
  });
  return stop ? STOP_TEXT : RESUME_TEXT;
}
