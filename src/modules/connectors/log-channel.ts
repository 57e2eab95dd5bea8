// An installation's log channel (Discord's `log_channel_id` setting): joins, removals and failed
// role changes are posted there as one short line each. The line is queued in the bot message
// outbox (purpose "log", the channel as recipient) in the transaction that records the change, so
// it is posted only if the change committed, within the bot's pacing, and a post that fails never
// undoes or delays the grant (docs/decisions.md, issue 45).
import type { DomainContext } from "../../db/tenant.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import type { InstallationRow } from "./tables.ts";

/** The installation's log channel, when its settings name one. */
export function logChannelOf(installation: Pick<InstallationRow, "settings">): string | null {
  const channel = installation.settings?.log_channel_id;
  return typeof channel === "string" && channel.length > 0 ? channel : null;
}

/** Discord's mention of a user: the log shows the member's name, not a bare id. */
export const mention = (user: string | null) => (user ? `<@${user}>` : "a member");

/** Queues `text` for the installation's log channel, if it has one (in the caller's transaction). */
export async function queueLogLine(
  ctx: DomainContext,
  installation: Pick<InstallationRow, "id" | "project_id" | "connector_key" | "settings">,
  text: string,
  subject?: { type: string; id: string },
  /** Posts the line once (a refusal retried every hour is told the first time). */
  dedupeKey?: string,
): Promise<void> {
  const channel = logChannelOf(installation);
  if (!channel) return;
  await queueBotMessage(ctx, {
    installation,
    recipient: channel,
    text,
    purpose: "log",
    ...(subject ? { subject } : {}),
    ...(dedupeKey ? { dedupeKey } : {}),
  });
}
