// Starting a broadcast's send: in one transaction the broadcast row is locked, its recipients are
// snapshotted (the segment's members now, or the creator's own identities for a test), each one not
// opted out gets a bot message (purpose broadcast, subject broadcast_recipient) through the
// project's active installation of their connector, and the broadcast becomes started. The bot
// message worker sends them within each connector's pacing; outcomes.ts follows their results.
import { randomUUID } from "node:crypto";
import type { DomainContext } from "../../db/tenant.ts";
import { recordActivity } from "../activity/activity-log.ts";
import { queueBotMessages, type BotMessage } from "../bot-messages/outbox.ts";
import { emitEvent } from "../events/outbox.ts";
import { projectsTable } from "../projects/tables.ts";
import { renderBroadcast } from "./message.ts";
import { presentBroadcast, totalsOf, type Broadcast } from "./present.ts";
import { activeInstallations, segmentMembers } from "./segment.ts";
import { broadcastsTable, recipientsTable, type BroadcastRow, type RecipientRow } from "./tables.ts";

/** Someone a broadcast is sent to: a member, or (a test) the creator's own account. */
export interface Addressee {
  memberId: string | null;
  connectorKey: string;
  platformUserId: string;
  optedOut: boolean;
}

/** Records an activity entry and an event about `broadcast` (`action`: created, started, canceled). */
export async function recordBroadcastChange(ctx: DomainContext, broadcast: Broadcast, action: string, description: string): Promise<void> {
  const data = { broadcast };
  await recordActivity(ctx, {
    event: `broadcast_${action}`,
    description,
    subjectType: "broadcast",
    subjectId: broadcast.id,
    projectId: broadcast.project_id,
    properties: data,
  });
  await emitEvent(ctx, { type: `broadcast.${action}`, projectId: broadcast.project_id, data });
}

/** The broadcast's recipient rows and their bot messages; a connector with no active installation fails its recipients. */
async function snapshot(ctx: DomainContext, row: BroadcastRow, addressees: readonly Addressee[]): Promise<void> {
  const installations = await activeInstallations(ctx, row.project_id);
  const project = (await projectsTable.rows(ctx).where({ id: row.project_id }).first("handle")) as { handle: string };
  const text = renderBroadcast(row, project.handle);
  const recipients: Omit<RecipientRow, "team_id">[] = [];
  const messages: (BotMessage & { id: string })[] = [];
  addressees.forEach((a, position) => {
    const installation = installations.get(a.connectorKey);
    const id = randomUUID();
    const botMessageId = !a.optedOut && installation ? randomUUID() : null;
    recipients.push({
      id,
      project_id: row.project_id,
      broadcast_id: row.id,
      member_id: a.memberId,
      connector_key: a.connectorKey,
      platform_user_id: a.platformUserId,
      status: a.optedOut ? "opted_out" : installation ? "queued" : "failed",
      bot_message_id: botMessageId,
      error: a.optedOut || installation ? null : `the project has no active ${a.connectorKey} installation`,
      sent_at: null,
      position,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
    if (botMessageId && installation)
      messages.push({
        id: botMessageId,
        installation,
        recipient: a.platformUserId,
        text,
        purpose: "broadcast",
        subject: { type: "broadcast_recipient", id },
        dedupeKey: `broadcast:${id}`,
      });
  });
  for (let i = 0; i < recipients.length; i += 500) await recipientsTable.insert(ctx, recipients.slice(i, i + 500));
  await queueBotMessages(ctx, messages);
}

/** The segment's members as addressees. */
async function membersOf(ctx: DomainContext, row: BroadcastRow): Promise<Addressee[]> {
  return (await segmentMembers(ctx, row.project_id, row.segment)).map((m) => ({
    memberId: m.id,
    connectorKey: m.connector_key,
    platformUserId: m.external_user_id,
    optedOut: m.broadcasts_opted_out_at !== null,
  }));
}

/**
 * Starts a scheduled broadcast now (the REST create with send_at null, the broadcasts.start job,
 * the Telegram creator command): answers it started, or as it was when it is no longer scheduled
 * (a second start, or a cancel that won the lock, changes nothing). `addressees` replaces the
 * segment (a test send's own identities).
 */
export async function sendBroadcastNow(
  ctx: DomainContext,
  projectId: string,
  broadcastId: string,
  addressees?: readonly Addressee[],
): Promise<Broadcast> {
  const row = (await broadcastsTable.rows(ctx).where({ id: broadcastId, project_id: projectId }).forUpdate().first()) as BroadcastRow | undefined;
  if (!row) throw new Error(`broadcast ${broadcastId} of project ${projectId} is not visible`);
  if (row.status !== "scheduled") return presentBroadcast(row, (await totalsOf(ctx, [row.id])).get(row.id)!);
  await snapshot(ctx, row, addressees ?? (await membersOf(ctx, row)));
  const started = { status: "started" as const, started_at: ctx.now, updated_at: ctx.now };
  await broadcastsTable.rows(ctx).where({ id: row.id }).update(started);
  const shown = presentBroadcast({ ...row, ...started }, (await totalsOf(ctx, [row.id])).get(row.id)!);
  const t = shown.totals;
  const description = `Broadcast${row.test ? " test" : ""} started: ${t.queued} queued, ${t.opted_out} opted out, ${t.failed} unreachable`;
  await recordBroadcastChange(ctx, shown, "started", description);
  return shown;
}
