// The bot messages area's tenant table: every message the service sends a person through a
// connector's bot (alerts to creators, support replies, member notices, members' invite links), queued durably.
import { tenantTable } from "../../db/tenant.ts";

export const botMessagesTable = tenantTable("bot_messages", { team: "team_id", project: "project_id" });

/** Why a message was sent (the reader of the outbox, and the test of each producer, filter by it). */
export type BotMessagePurpose = "alert" | "support_reply" | "support_relay" | "notice" | "access_link" | "log" | "broadcast";
// "support_relay": a member's support message forwarded to a linked creator (connectors/bot/creator-relay.ts).
// "log": a line for an installation's log channel (the recipient is the channel, connectors/log-channel.ts).
// "broadcast": one recipient's copy of a creator's broadcast (subject broadcast_recipient, modules/broadcasts).
