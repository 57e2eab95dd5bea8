import type { AreaHandlers } from "../../../generated/operations.ts";
import { domainContext, type OperationContext } from "../../pipeline/context.ts";
import { listEnvelope, pageWindow } from "../../pipeline/pagination.ts";
import { createCannedReply, deleteCannedReply, listCannedReplies, updateCannedReply } from "./canned-replies.ts";
import { getConversation, listConversations, listMessages, updateConversation } from "./conversations.ts";
import { replyToConversation } from "./replies.ts";

export const handlers = {
  async list_support_conversations({ path, query }, ctx) {
    const filter = { status: query.status, memberId: query.member_id, assigneeId: query.assignee_id, unassigned: query.unassigned };
    const { rows, total } = await listConversations(domainContext(ctx), path.project, filter, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async get_support_conversation({ path }, ctx) {
    return { data: await getConversation(domainContext(ctx), path.project, path.conversation) };
  },
  async list_support_messages({ path, query }, ctx) {
    const { rows, total } = await listMessages(domainContext(ctx), path.project, path.conversation, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async update_support_conversation({ path, body }, ctx) {
    return { data: await updateConversation(domainContext(ctx), path.project, path.conversation, body) };
  },
  async reply_to_support_conversation({ path, body }, ctx) {
    return { data: await replyToConversation(domainContext(ctx), ctx.connectors, path.project, path.conversation, body) };
  },
  async list_canned_replies({ path, query }, ctx) {
    const { rows, total } = await listCannedReplies(domainContext(ctx), path.project, pageWindow(query));
    return listEnvelope(rows, total, query, ctx.resourceUrl);
  },
  async create_canned_reply({ path, body }, ctx) {
    return { data: await createCannedReply(domainContext(ctx), path.project, body) };
  },
  async update_canned_reply({ path, body }, ctx) {
    return { data: await updateCannedReply(domainContext(ctx), path.project, path.canned_reply, body) };
  },
  async delete_canned_reply({ path }, ctx) {
    await deleteCannedReply(domainContext(ctx), path.project, path.canned_reply);
  },
} satisfies AreaHandlers<OperationContext, "support">;
