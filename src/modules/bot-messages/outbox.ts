// Messages to people through a connector's bot, queued in the transaction that decides to send
// them: a message exists if and only if its cause committed. The bot message worker
// (src/workers/bot-messages) sends them within the connector's messaging limits and pacing.
import { randomUUID } from "node:crypto";
import type { DomainContext } from "../../db/tenant.ts";
import { botMessagesTable, type BotMessagePurpose } from "./tables.ts";

export interface BotMessage {
  /** The installation whose bot sends it (its project owns the message). */
  installation: { id: string; project_id: string; connector_key: string };
  /** The platform account the bot writes to (a Telegram user id is also their private chat). */
  recipient: string;
  text: string;
  purpose: BotMessagePurpose;
  /** What the message is about, for the record. */
  subject?: { type: string; id: string };
  /** Names the message: queuing the same key again in the team is a no-op (producers that may run twice). */
  dedupeKey?: string;
  /** Not before this time (a reminder queued ahead); default now. */
  notBefore?: Date;
}

/** Queues `message` in the caller's transaction; answers its id, or null when its dedupe key was queued before. */
export async function queueBotMessage(ctx: DomainContext, message: BotMessage): Promise<string | null> {
  const id = randomUUID();
  const row = {
    id,
    project_id: message.installation.project_id,
    installation_id: message.installation.id,
    connector_key: message.installation.connector_key,
    recipient: message.recipient,
    text: message.text,
    purpose: message.purpose,
    subject_type: message.subject?.type ?? null,
    subject_id: message.subject?.id ?? null,
    dedupe_key: message.dedupeKey ?? null,
    status: "queued",
    next_attempt_at: message.notBefore ?? ctx.now,
    created_at: ctx.now,
  };
  const inserted = (await botMessagesTable.insert(ctx, row).onConflict(["team_id", "dedupe_key"]).ignore().returning("id")) as { id: string }[];
  return inserted.length ? id : null;
}
