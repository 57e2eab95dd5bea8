// A project's canned replies: answers the support team reuses (title unique within the project
// regardless of case). The team's own tooling: activity entries, no events.
import { randomUUID } from "node:crypto";
import { notFound, validationFailed } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { uniquely } from "../../db/unique.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { iso, requireProject } from "../resources/catalog-change.ts";
import { cannedRepliesTable, type CannedReplyRow } from "./tables.ts";

export function presentCannedReply(row: CannedReplyRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    title: row.title,
    body: row.body,
    created_by_user_id: row.created_by_user_id,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

type CannedReply = ReturnType<typeof presentCannedReply>;

const titleTaken = () => validationFailed({ title: ["the project already has a canned reply with this title"] });

/** Refuses a title another reply of the project uses (any letter case). */
async function checkTitle(ctx: DomainContext, projectId: string, title: string, except?: string): Promise<void> {
  const query = cannedRepliesTable.rows(ctx).where({ project_id: projectId }).whereRaw("lower(title) = lower(?)", [title]);
  if (except) query.whereNot({ id: except });
  if (await query.first("id")) throw titleTaken();
}

async function replyById(ctx: DomainContext, projectId: string, id: string): Promise<CannedReplyRow> {
  const row = (await cannedRepliesTable.rows(ctx).where({ id, project_id: projectId }).forUpdate().first()) as CannedReplyRow | undefined;
  if (!row) throw notFound("canned reply");
  return row;
}

const SORT: Record<string, string> = { created_at: "created_at", title: "lower(title)" };

export async function listCannedReplies(ctx: DomainContext, projectId: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  const { rows, total } = await sortedPage<CannedReplyRow>(cannedRepliesTable.rows(ctx).where({ project_id: projectId }).select("*"), window, SORT);
  return { rows: rows.map(presentCannedReply), total };
}

export async function createCannedReply(ctx: DomainContext, projectId: string, input: { title: string; body: string }) {
  await requireProject(ctx, projectId);
  await checkTitle(ctx, projectId, input.title);
  const row = {
    id: randomUUID(),
    project_id: projectId,
    title: input.title,
    body: input.body,
    created_by_user_id: ctx.actor.userId,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await uniquely(cannedRepliesTable.insert(ctx, row), titleTaken, "support_canned_replies_title");
  const reply = presentCannedReply({ ...row, team_id: ctx.actor.teamId });
  await record(ctx, reply, "created");
  return reply;
}

export async function updateCannedReply(ctx: DomainContext, projectId: string, id: string, input: { title?: string; body?: string }) {
  await requireProject(ctx, projectId);
  const row = await replyById(ctx, projectId, id);
  if (input.title !== undefined) await checkTitle(ctx, projectId, input.title, id);
  const changes = {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.body !== undefined ? { body: input.body } : {}),
    updated_at: ctx.now,
  };
  await uniquely(cannedRepliesTable.rows(ctx).where({ id }).update(changes), titleTaken, "support_canned_replies_title");
  const reply = presentCannedReply({ ...row, ...changes });
  await record(ctx, reply, "updated");
  return reply;
}

export async function deleteCannedReply(ctx: DomainContext, projectId: string, id: string): Promise<void> {
  await requireProject(ctx, projectId);
  const row = await replyById(ctx, projectId, id);
  await cannedRepliesTable.rows(ctx).where({ id }).delete();
  await record(ctx, presentCannedReply(row), "deleted");
}

function record(ctx: DomainContext, reply: CannedReply, action: "created" | "updated" | "deleted") {
  return recordActivity(ctx, {
    event: `canned_reply_${action}`,
    description: `Canned reply ${reply.title} ${action}`,
    subjectType: "support-canned-reply",
    subjectId: reply.id,
    projectId: reply.project_id,
    properties: { canned_reply: reply },
  });
}
