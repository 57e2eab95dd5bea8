// Messages to people through a connector's bot, queued in the transaction that decides to send
// them: a message exists if and only if its cause committed. The bot message worker
// (src/workers/bot-messages) sends them within the connector's messaging limits and pacing.
import { randomUUID } from "node:crypto";
import type { DomainContext } from "../../db/tenant.ts";
import { renderPhrases, type Phrase } from "./phrases.ts";
import { botMessagesTable, type BotMessagePurpose } from "./tables.ts";

export interface BotMessage {
  /** The installation whose bot sends it (its project owns the message). */
  installation: { id: string; project_id: string; connector_key: string };
  /** The platform account the bot writes to (a Telegram user id is also their private chat). */
  recipient: string;
  /** Plain text, sent as written (a creator's own words)... */
  text?: string;
  /** ...or lines the worker translates into the sending installation's language (`text` records their English). */
  phrases?: readonly Phrase[];
  purpose: BotMessagePurpose;
  /** What the message is about, for the record. */
  subject?: { type: string; id: string };
  /** Names the message: queuing the same key again in the team is a no-op (producers that may run twice). */
  dedupeKey?: string;
  /** Not before this time (a reminder queued ahead); default now. */
  notBefore?: Date;
}

function rowOf(ctx: DomainContext, message: BotMessage, id: string) {
  return {
    id,
    project_id: message.installation.project_id,
    installation_id: message.installation.id,
    connector_key: message.installation.connector_key,
    recipient: message.recipient,
    text: message.phrases ? renderPhrases(message.phrases) : (message.text ?? ""),
    phrases: message.phrases ? JSON.stringify(message.phrases) : null,
    purpose: message.purpose,
    subject_type: message.subject?.type ?? null,
    subject_id: message.subject?.id ?? null,
    dedupe_key: message.dedupeKey ?? null,
    status: "queued",
    next_attempt_at: message.notBefore ?? ctx.now,
    created_at: ctx.now,
  };
}

/** Queues `message` in the caller's transaction; answers its id, or null when its dedupe key was queued before. */
export async function queueBotMessage(ctx: DomainContext, message: BotMessage): Promise<string | null> {
  const id = randomUUID();
  const inserted = (await botMessagesTable
    .insert(ctx, rowOf(ctx, message, id))
    .onConflict(["team_id", "dedupe_key"])
    .ignore()
    .returning("id")) as {
    id: string;
  }[];
  return inserted.length ? id : null;
}

/** Queues many messages with each one's own id (a broadcast's), a few statements for them all; answers the ids queued now. */
export async function queueBotMessages(ctx: DomainContext, messages: readonly (BotMessage & { id: string })[]): Promise<string[]> {
  const queued: string[] = [];
  // Bounded statements: PostgreSQL takes at most 65535 parameters in one.
  for (let i = 0; i < messages.length; i += 500) {
    const rows = messages.slice(i, i + 500).map((m) => rowOf(ctx, m, m.id));
    const inserted = (await botMessagesTable.insert(ctx, rows).onConflict(["team_id", "dedupe_key"]).ignore().returning("id")) as { id: string }[];
    queued.push(...inserted.map((r) => r.id));
  }
  return queued;
}
