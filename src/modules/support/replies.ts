// The team's reply in a support conversation: recorded as an outbound message and queued to the
// member through the conversation's installation's bot in the same transaction, so a recorded
// reply is always sent (by the bot message worker) and a refused one never is.
import { randomUUID } from "node:crypto";
import { addFieldError, domainRefusal, emptyFieldErrors, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { queueBotMessage } from "../bot-messages/outbox.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { installationsTable, type InstallationRow } from "../connectors/tables.ts";
import { membersTable } from "../members/tables.ts";
import { requireProject } from "../resources/catalog-change.ts";
import { conversationById, present, presentMessage, recordSupportChange, type Message } from "./conversations.ts";
import { cut, PREVIEW_LENGTH } from "./relay.ts";
import { cannedRepliesTable, conversationsTable, messagesTable, type CannedReplyRow, type ConversationRow, type MessageRow } from "./tables.ts";

export interface ReplyInput {
  body?: string;
  canned_reply_id?: string;
}

/** Exactly one of body and canned_reply_id (the schema already refuses an empty body). */
function checkShape(input: ReplyInput): void {
  const fields = emptyFieldErrors();
  if (input.body !== undefined && input.canned_reply_id !== undefined) addFieldError(fields, "canned_reply_id", "cannot be given together with body");
  if (input.body === undefined && input.canned_reply_id === undefined) addFieldError(fields, "body", "is required unless canned_reply_id is given");
  if (Object.keys(fields).length) throw validationFailed(fields);
}

/** Refuses a reply nobody would read: a closed conversation (naming the member's open one), or no bot to carry it. */
async function checkReachable(ctx: DomainContext, row: ConversationRow): Promise<InstallationRow> {
  if (row.status === "closed") {
    const open = (await conversationsTable.rows(ctx).where({ project_id: row.project_id, member_id: row.member_id, status: "open" }).first("id")) as
      { id: string } | undefined;
    throw domainRefusal(
      "The conversation is closed; reopen it to reply (status open), or answer in the member's open conversation.",
      open ? { conversation_id: open.id } : undefined,
    );
  }
  const installation = row.installation_id
    ? ((await installationsTable.rows(ctx).where({ id: row.installation_id }).first()) as InstallationRow | undefined)
    : undefined;
  if (!installation) throw domainRefusal("The installation that relayed this conversation was removed; nothing can reach the member.");
  return installation;
}

/** The member's account on the installation's platform (the bot writes to it). */
async function recipientOf(ctx: DomainContext, row: ConversationRow, installation: InstallationRow): Promise<string> {
  const member = (await membersTable.rows(ctx).where({ id: row.member_id }).first("connector_key", "external_user_id")) as
    { connector_key: string | null; external_user_id: string | null } | undefined;
  if (!member?.external_user_id || member.connector_key !== installation.connector_key)
    throw domainRefusal(`The member has no ${installation.connector_key} account the bot can write to.`);
  return member.external_user_id;
}

/** The text sent: the body, or the canned reply's (which the message then names). */
async function replyText(
  ctx: DomainContext,
  projectId: string,
  input: ReplyInput,
): Promise<{ text: string; field: string; cannedReplyId: string | null }> {
  if (input.body !== undefined) return { text: input.body.trim(), field: "body", cannedReplyId: null };
  const canned = (await cannedRepliesTable.rows(ctx).where({ id: input.canned_reply_id!, project_id: projectId }).first("id", "body")) as
    Pick<CannedReplyRow, "id" | "body"> | undefined;
  if (!canned) throw notFound("canned reply");
  return { text: canned.body, field: "canned_reply_id", cannedReplyId: canned.id };
}

export async function replyToConversation(
  ctx: DomainContext,
  connectors: Pick<ConnectorRegistry, "packages">,
  projectId: string,
  conversationId: string,
  input: ReplyInput,
): Promise<Message> {
  checkShape(input);
  await requireProject(ctx, projectId);
  // Locked to the end of the transaction: replies and the member's messages update the counts in turn.
  const row = await conversationById(ctx, projectId, conversationId, true);
  const { text, field, cannedReplyId } = await replyText(ctx, projectId, input);
  const installation = await checkReachable(ctx, row);
  const limit = connectors.packages.get(installation.connector_key)?.manifest.messaging.max_length;
  if (limit === undefined) throw domainRefusal(`The ${installation.connector_key} connector is not available on this deployment.`);
  if (text.length > limit)
    throw validationFailed({ [field]: [`is longer than a ${installation.connector_key} message allows (${limit} characters)`] });
  const recipient = await recipientOf(ctx, row, installation);

  const message: MessageRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: projectId,
    conversation_id: row.id,
    direction: "out",
    body: text,
    author_user_id: ctx.actor.userId,
    canned_reply_id: cannedReplyId,
    created_at: ctx.now,
  };
  const { team_id: _team, ...stored } = message;
  await messagesTable.insert(ctx, stored);
  const last = {
    last_message_preview: cut(text, PREVIEW_LENGTH),
    last_message_direction: "out" as const,
    last_message_at: ctx.now,
    updated_at: ctx.now,
    message_count: row.message_count + 1,
  };
  await conversationsTable.rows(ctx).where({ id: row.id }).update(last);
  await queueBotMessage(ctx, {
    installation: { id: installation.id, project_id: projectId, connector_key: installation.connector_key },
    recipient,
    text,
    purpose: "support_reply",
    subject: { type: "support_message", id: message.id },
  });
  const shown = presentMessage(message);
  await recordSupportChange(ctx, await present(ctx, { ...row, ...last }), {
    type: "support.message.sent",
    description: `Reply sent in conversation ${row.subject}`,
    data: { message: shown },
  });
  return shown;
}
