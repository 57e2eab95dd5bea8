// Support conversations as the team reads and handles them: listed, read with their messages,
// assigned to a person of the team's roster, closed and reopened. A conversation is opened by a
// member's message (relay.ts). Asking for the state a conversation already has changes nothing.
import type { components } from "../../../generated/openapi.d.ts";
import { addFieldError, domainRefusal, emptyFieldErrors, notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { fetchPage, orderClause, sortedPage, type PageWindow } from "../../db/pages.ts";
import { uniquely } from "../../db/unique.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { emitEvent } from "../events/outbox.ts";
import { membersTable } from "../members/tables.ts";
import { iso, requireProject } from "../resources/catalog-change.ts";
import { teamMembersTable, teamsTable } from "../teams/tables.ts";
import { conversationsTable, messagesTable, type ConversationRow, type ConversationStatus, type MessageRow } from "./tables.ts";

export type Conversation = components["schemas"]["SupportConversation"];
export type Message = components["schemas"]["SupportMessage"];

/** How many of its newest messages a read conversation carries. */
export const RECENT_MESSAGES = 20;

export function presentConversation(row: ConversationRow, memberName: string | null): Conversation {
  return {
    id: row.id,
    project_id: row.project_id,
    member_id: row.member_id,
    member_display_name: memberName,
    connector_key: row.connector_key,
    installation_id: row.installation_id,
    subject: row.subject,
    status: row.status,
    assignee_id: row.assignee_id,
    message_count: row.message_count,
    last_message_preview: row.last_message_preview,
    last_message_direction: row.last_message_direction,
    last_message_at: iso(row.last_message_at)!,
    closed_at: iso(row.closed_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function presentMessage(row: MessageRow): Message {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    direction: row.direction,
    body: row.body,
    author_user_id: row.author_user_id,
    canned_reply_id: row.canned_reply_id ?? null,
    created_at: iso(row.created_at)!,
  };
}

/** The conversations as the API shows them, with their members' names. */
async function presentAll(ctx: DomainContext, rows: ConversationRow[]): Promise<Conversation[]> {
  const ids = [...new Set(rows.map((r) => r.member_id))];
  const members = ids.length
    ? ((await membersTable.rows(ctx).whereIn("id", ids).select("id", "display_name")) as { id: string; display_name: string | null }[])
    : [];
  const names = new Map(members.map((m) => [m.id, m.display_name]));
  return rows.map((row) => presentConversation(row, names.get(row.member_id) ?? null));
}

export async function present(ctx: DomainContext, row: ConversationRow): Promise<Conversation> {
  return (await presentAll(ctx, [row]))[0]!;
}

export async function conversationById(ctx: DomainContext, projectId: string, id: string, lock = false): Promise<ConversationRow> {
  const query = conversationsTable.rows(ctx).where({ id, project_id: projectId });
  if (lock) query.forUpdate();
  const row = (await query.first()) as ConversationRow | undefined;
  if (!row) throw notFound("conversation");
  return row;
}

/** A conversation change: its activity entry (subject support-conversation) and its support.* event. */
export async function recordSupportChange(
  ctx: DomainContext,
  conversation: Conversation,
  change: { type: string; description: string; data?: Record<string, unknown> },
): Promise<void> {
  const data = { conversation, ...change.data };
  await recordActivity(ctx, {
    event: change.type.replace(/\./g, "_"),
    description: change.description,
    subjectType: "support-conversation",
    subjectId: conversation.id,
    projectId: conversation.project_id,
    properties: data,
  });
  await emitEvent(ctx, { type: change.type, projectId: conversation.project_id, data });
}

export interface ConversationFilter {
  status?: ConversationStatus;
  memberId?: string;
  assigneeId?: string;
  unassigned?: boolean;
}

const SORT: Record<string, string> = { created_at: "created_at", last_message_at: "last_message_at", message_count: "message_count" };

export async function listConversations(ctx: DomainContext, projectId: string, filter: ConversationFilter, window: PageWindow) {
  await requireProject(ctx, projectId);
  if (filter.assigneeId !== undefined && filter.unassigned === true)
    throw validationFailed({ unassigned: ["cannot be true together with assignee_id"] });
  const query = conversationsTable.rows(ctx).where({ project_id: projectId }).select("*");
  if (filter.status) query.where({ status: filter.status });
  if (filter.memberId) query.where({ member_id: filter.memberId });
  if (filter.assigneeId) query.where({ assignee_id: filter.assigneeId });
  if (filter.unassigned === true) query.whereNull("assignee_id");
  if (filter.unassigned === false) query.whereNotNull("assignee_id");
  const { rows, total } = await sortedPage<ConversationRow>(query, window, SORT);
  return { rows: await presentAll(ctx, rows), total };
}

export async function getConversation(ctx: DomainContext, projectId: string, id: string) {
  await requireProject(ctx, projectId);
  const row = await conversationById(ctx, projectId, id);
  const newest = (await messagesTable
    .rows(ctx)
    .where({ conversation_id: id })
    .orderBy([
      { column: "created_at", order: "desc" },
      { column: "seq", order: "desc" },
    ])
    .limit(RECENT_MESSAGES)
    .select("*")) as MessageRow[];
  return { ...(await present(ctx, row)), recent_messages: newest.reverse().map(presentMessage) };
}

export async function listMessages(ctx: DomainContext, projectId: string, id: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  await conversationById(ctx, projectId, id);
  const query = messagesTable.rows(ctx).where({ conversation_id: id }).select("*");
  const order = `${orderClause("created_at", window.sortDirection)}, seq ${window.sortDirection}`;
  const { rows, total } = await fetchPage<MessageRow>(query, window, order);
  return { rows: rows.map(presentMessage), total };
}

/** Whether `userId` is on the team's roster: its owner or one of its members. */
async function onRoster(ctx: DomainContext, userId: string): Promise<boolean> {
  const team = (await teamsTable.rows(ctx).first("owner_user_id")) as { owner_user_id: string } | undefined;
  if (team?.owner_user_id === userId) return true;
  return (await teamMembersTable.rows(ctx).where({ user_id: userId }).first("user_id")) !== undefined;
}

const openElsewhere = (conversationId?: string) =>
  domainRefusal(
    "The member has another open conversation; answer there, or close it first.",
    conversationId ? { conversation_id: conversationId } : undefined,
  );

export interface ConversationUpdate {
  assignee_id?: string | null;
  status?: ConversationStatus;
}

export async function updateConversation(ctx: DomainContext, projectId: string, id: string, input: ConversationUpdate): Promise<Conversation> {
  await requireProject(ctx, projectId);
  const row = await conversationById(ctx, projectId, id, true);
  const changes: Partial<ConversationRow> = {};
  const assigning = input.assignee_id !== undefined && input.assignee_id !== row.assignee_id;
  if (assigning && input.assignee_id !== null && !(await onRoster(ctx, input.assignee_id!))) {
    const fields = emptyFieldErrors();
    addFieldError(fields, "assignee_id", "is not a person on the team's roster (its owner or a member)");
    throw validationFailed(fields);
  }
  if (assigning) changes.assignee_id = input.assignee_id!;
  if (input.status !== undefined && input.status !== row.status) {
    if (input.status === "open") {
      const other = (await conversationsTable.rows(ctx).where({ project_id: projectId, member_id: row.member_id, status: "open" }).first("id")) as
        { id: string } | undefined;
      if (other) throw openElsewhere(other.id);
    }
    changes.status = input.status;
    changes.closed_at = input.status === "closed" ? ctx.now : null;
  }
  if (Object.keys(changes).length === 0) return present(ctx, row);
  changes.updated_at = ctx.now;
  await uniquely(conversationsTable.rows(ctx).where({ id }).update(changes), () => openElsewhere(), "support_conversations_one_open");
  const conversation = await present(ctx, { ...row, ...changes });
  const subject = conversation.subject;
  if (changes.status === "closed")
    await recordSupportChange(ctx, conversation, { type: "support.conversation.closed", description: `Conversation ${subject} closed` });
  if (changes.status === "open")
    await recordSupportChange(ctx, conversation, { type: "support.conversation.reopened", description: `Conversation ${subject} reopened` });
  if (assigning) {
    const assigned = changes.assignee_id !== null;
    await recordSupportChange(ctx, conversation, {
      type: assigned ? "support.conversation.assigned" : "support.conversation.unassigned",
      description: assigned ? `Conversation ${subject} assigned` : `Conversation ${subject} unassigned`,
      data: { previous_assignee_id: row.assignee_id },
    });
  }
  return conversation;
}

/**
 * A person leaving the team hands back the conversations assigned to them: each is unassigned
 * (support.conversation.unassigned). They leave every project, so this looks past the acting
 * token's project allow-list.
 */
export async function unassignConversationsOf(ctx: DomainContext, userId: string): Promise<void> {
  const team = { ...ctx, actor: { ...ctx.actor, projectIds: null } };
  const rows = (await conversationsTable.rows(team).where({ assignee_id: userId }).forUpdate().select("*")) as ConversationRow[];
  if (rows.length === 0) return;
  await conversationsTable.rows(team).where({ assignee_id: userId }).update({ assignee_id: null, updated_at: ctx.now });
  for (const conversation of await presentAll(
    team,
    rows.map((r) => ({ ...r, assignee_id: null, updated_at: ctx.now })),
  )) {
    await recordSupportChange(team, conversation, {
      type: "support.conversation.unassigned",
      description: `Conversation ${conversation.subject} unassigned: its assignee left the team`,
      data: { previous_assignee_id: userId },
    });
  }
}
