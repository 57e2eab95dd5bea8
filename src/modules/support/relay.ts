// A member's message arriving through a connector's support relay (capability support_relay): it
// joins the member's open conversation with the project, or opens one. Platforms deliver it (the
// Telegram bot relays a private message that is not a command); nothing else creates
// conversations. Dropped, with nothing written: empty text, a connector without the relay, a
// banned member.
import { randomUUID } from "node:crypto";
import type { DomainContext } from "../../db/tenant.ts";
import { alertSupportMessage } from "../alerts/producers.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import type { InstallationRow } from "../connectors/tables.ts";
import { findOrCreateMember, type PlatformAccount } from "../members/members.ts";
import { presentConversation, presentMessage, recordSupportChange, type Conversation, type Message } from "./conversations.ts";
import { conversationsTable, messagesTable, type ConversationRow, type MessageRow } from "./tables.ts";

/** The longest message body kept (a Telegram message); longer text is cut. */
export const MAX_BODY = 4096;
const SUBJECT_LENGTH = 80;
export const PREVIEW_LENGTH = 140;

export interface SupportMessageInput {
  installation: InstallationRow;
  /** The member's platform account (the member is found or created as a lead). */
  account: PlatformAccount;
  text: string;
}

export type SupportReceipt =
  { kind: "dropped"; reason: "empty" | "no_relay" | "member_banned" } | { kind: "opened" | "appended"; conversation: Conversation; message: Message };

/** `text` on one line, cut to `length` characters (an ellipsis marks a cut). */
export function cut(text: string, length: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

export function relaysSupport(connectors: Pick<ConnectorRegistry, "packages">, connectorKey: string): boolean {
  return connectors.packages.get(connectorKey)?.manifest.capabilities?.includes("support_relay") ?? false;
}

/** Records a member's message; the change, its activity entry and its event join `ctx`'s transaction. */
export async function receiveSupportMessage(
  ctx: DomainContext,
  connectors: Pick<ConnectorRegistry, "packages">,
  input: SupportMessageInput,
): Promise<SupportReceipt> {
  const body = input.text.trim().slice(0, MAX_BODY);
  if (!body) return { kind: "dropped", reason: "empty" };
  const { installation } = input;
  if (!relaysSupport(connectors, installation.connector_key)) return { kind: "dropped", reason: "no_relay" };
  const projectId = installation.project_id;
  // The member's row stays locked to the end of the transaction: one member's messages queue.
  const { member } = await findOrCreateMember(ctx, projectId, input.account);
  if (member.status === "banned") return { kind: "dropped", reason: "member_banned" };
  const open = (await conversationsTable.rows(ctx).where({ project_id: projectId, member_id: member.id, status: "open" }).first()) as
    ConversationRow | undefined;
  const last = {
    last_message_preview: cut(body, PREVIEW_LENGTH),
    last_message_direction: "in" as const,
    last_message_at: ctx.now,
    updated_at: ctx.now,
  };
  const row: ConversationRow = open
    ? { ...open, ...last, message_count: open.message_count + 1, installation_id: installation.id }
    : {
        id: randomUUID(),
        team_id: ctx.actor.teamId,
        project_id: projectId,
        member_id: member.id,
        installation_id: installation.id,
        connector_key: installation.connector_key,
        subject: cut(body.split("\n")[0]!, SUBJECT_LENGTH),
        status: "open",
        assignee_id: null,
        message_count: 1,
        closed_at: null,
        created_at: ctx.now,
        ...last,
      };
  if (open) {
    const { message_count, installation_id } = row;
    await conversationsTable
      .rows(ctx)
      .where({ id: open.id })
      .update({ ...last, message_count, installation_id });
  } else {
    const { team_id: _team, ...owned } = row;
    await conversationsTable.insert(ctx, owned);
  }
  const message: MessageRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: projectId,
    conversation_id: row.id,
    direction: "in",
    body,
    author_user_id: null,
    created_at: ctx.now,
  };
  const { team_id: _team, ...stored } = message;
  await messagesTable.insert(ctx, stored);
  const conversation = presentConversation(row, member.display_name);
  const shown = presentMessage(message);
  const who = member.display_name ?? member.external_user_id ?? member.id;
  await recordSupportChange(
    ctx,
    conversation,
    open
      ? { type: "support.message.received", description: `${who} wrote in conversation ${row.subject}`, data: { message: shown } }
      : { type: "support.conversation.opened", description: `${who} opened conversation ${row.subject}`, data: { message: shown } },
  );
  await alertSupportMessage(ctx, { conversation: row, member: who, preview: last.last_message_preview, opened: !open });
  return { kind: open ? "appended" : "opened", conversation, message: shown };
}
