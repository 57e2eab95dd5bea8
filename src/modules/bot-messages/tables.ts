// The bot messages area's tenant table: every message the service sends a person through a
// connector's bot (alerts to creators, support replies, member notices, members' invite links), queued durably.
import { tenantTable } from "../../db/tenant.ts";

export const botMessagesTable = tenantTable("bot_messages", { team: "team_id", project: "project_id" });

/** Why a message was sent (the reader of the outbox, and the test of each producer, filter by it). */
export type BotMessagePurpose = "alert" | "support_reply" | "notice" | "access_link";
