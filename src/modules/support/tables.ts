// The support area's tenant tables.
import { tenantTable } from "../../db/tenant.ts";

export const conversationsTable = tenantTable("support_conversations", { team: "team_id", project: "project_id" });
export const messagesTable = tenantTable("support_messages", { team: "team_id", project: "project_id" });
export const cannedRepliesTable = tenantTable("support_canned_replies", { team: "team_id", project: "project_id" });

export type ConversationStatus = "open" | "closed";
export type MessageDirection = "in" | "out";

export interface ConversationRow {
  id: string;
  team_id: string;
  project_id: string;
  member_id: string;
  installation_id: string | null;
  connector_key: string;
  subject: string;
  status: ConversationStatus;
  assignee_id: string | null;
  message_count: number;
  last_message_preview: string;
  last_message_direction: MessageDirection;
  last_message_at: Date;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  team_id: string;
  project_id: string;
  conversation_id: string;
  direction: MessageDirection;
  body: string;
  author_user_id: string | null;
  /** The canned reply a team's message was sent with (absent on a member's). */
  canned_reply_id?: string | null;
  created_at: Date;
}

export interface CannedReplyRow {
  id: string;
  team_id: string;
  project_id: string;
  title: string;
  body: string;
  created_by_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}
