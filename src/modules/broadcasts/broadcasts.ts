// A creator's broadcasts: created (checked against every reached connector's messaging limits),
// sent now or scheduled (the broadcasts.start job), cancelled while scheduled, and read with their
// totals and recipients. A test send goes only to the calling creator's own linked identities.
import { randomUUID } from "node:crypto";
import { domainRefusal, notFound } from "../../errors.ts";
import type { DomainContext } from "../../db/tenant.ts";
import { sortedPage, type PageWindow } from "../../db/pages.ts";
import { identitiesOf } from "../account/identities.ts";
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { projectsTable } from "../projects/tables.ts";
import { requireProject } from "../resources/catalog-change.ts";
import { checkMessage } from "./message.ts";
import { presentBroadcast, presentRecipient, totalsOf, type Broadcast } from "./present.ts";
import { settleSegment, type SegmentInput } from "./segment.ts";
import { recordBroadcastChange, sendBroadcastNow, type Addressee } from "./sending.ts";
import { broadcastsTable, recipientsTable, type BroadcastButton, type BroadcastRow, type RecipientRow, type RecipientStatus } from "./tables.ts";

export interface BroadcastInput {
  text: string;
  image_url?: string | null;
  buttons?: BroadcastButton[][];
  segment?: SegmentInput;
  send_at?: string | null;
  test?: boolean;
}

async function broadcastById(ctx: DomainContext, projectId: string, id: string): Promise<BroadcastRow> {
  await requireProject(ctx, projectId);
  const row = (await broadcastsTable.rows(ctx).where({ id, project_id: projectId }).first()) as BroadcastRow | undefined;
  if (!row) throw notFound("broadcast");
  return row;
}

async function shown(ctx: DomainContext, row: BroadcastRow): Promise<Broadcast> {
  return presentBroadcast(row, (await totalsOf(ctx, [row.id])).get(row.id)!);
}

/** The calling creator's own accounts on the reached connectors (422 broadcast_test_no_identity when none). */
async function creatorAddressees(ctx: DomainContext, connectors: readonly string[]): Promise<Addressee[]> {
  const userId = ctx.actor.userId;
  const identities = userId ? (await identitiesOf({ ...ctx, actor: { ...ctx.actor, userId } })).filter((i) => connectors.includes(i.connector)) : [];
  if (!identities.length)
    throw domainRefusal(
      `A test goes to your own linked account on ${connectors.join(" or ")}, and you have none: link it first (GET /v1/me/identities).`,
      {
        reason: "broadcast_test_no_identity",
        connectors,
      },
    );
  return identities.map((i) => ({ memberId: null, connectorKey: i.connector, platformUserId: i.account_id, optedOut: false }));
}

/**
 * Creates a broadcast of the project and, when it is due now (or a test), starts sending it in the
 * same transaction. The one entry point of the REST and MCP create and of a bot's creator command.
 */
export async function createBroadcast(
  ctx: DomainContext,
  registry: Pick<ConnectorRegistry, "packages">,
  projectId: string,
  input: BroadcastInput,
): Promise<Broadcast> {
  await requireProject(ctx, projectId);
  const project = (await projectsTable.rows(ctx).where({ id: projectId }).first("handle")) as { handle: string };
  const segment = await settleSegment(ctx, registry, projectId, input.segment ?? {});
  const message = { text: input.text, image_url: input.image_url ?? null, buttons: input.buttons ?? [] };
  await checkMessage(ctx, registry, projectId, project.handle, message, segment.connectors);
  const test = input.test === true;
  const addressees = test ? await creatorAddressees(ctx, segment.connectors) : undefined;
  const sendAt = !test && input.send_at ? new Date(input.send_at) : ctx.now;
  const row: BroadcastRow = {
    id: randomUUID(),
    team_id: ctx.actor.teamId,
    project_id: projectId,
    ...message,
    segment,
    test,
    status: "scheduled",
    send_at: sendAt < ctx.now ? ctx.now : sendAt,
    started_at: null,
    canceled_at: null,
    created_by_user_id: ctx.actor.userId,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  const { team_id: _team, ...stored } = row;
  await broadcastsTable.insert(ctx, { ...stored, buttons: JSON.stringify(row.buttons), segment: JSON.stringify(row.segment) });
  const label = test ? "Broadcast test" : "Broadcast";
  await recordBroadcastChange(ctx, await shown(ctx, row), "created", `${label} created for ${row.send_at.toISOString()}`);
  if (row.send_at > ctx.now) return shown(ctx, row);
  return sendBroadcastNow(ctx, projectId, row.id, addressees);
}

export async function cancelBroadcast(ctx: DomainContext, projectId: string, id: string): Promise<Broadcast> {
  await broadcastById(ctx, projectId, id);
  // Locked: the broadcasts.start job may be starting it at this moment.
  const row = (await broadcastsTable.rows(ctx).where({ id }).forUpdate().first()) as BroadcastRow;
  if (row.status !== "scheduled") {
    const current = await shown(ctx, row);
    throw domainRefusal(`The broadcast is ${current.status}; only a scheduled one can be canceled.`, {
      reason: "broadcast_not_scheduled",
      status: current.status,
    });
  }
  const change = { status: "canceled" as const, canceled_at: ctx.now, updated_at: ctx.now };
  await broadcastsTable.rows(ctx).where({ id }).update(change);
  const canceled = await shown(ctx, { ...row, ...change });
  await recordBroadcastChange(ctx, canceled, "canceled", `Broadcast scheduled for ${new Date(row.send_at).toISOString()} canceled`);
  return canceled;
}

export async function getBroadcast(ctx: DomainContext, projectId: string, id: string): Promise<Broadcast> {
  return shown(ctx, await broadcastById(ctx, projectId, id));
}

export async function listBroadcasts(ctx: DomainContext, projectId: string, window: PageWindow) {
  await requireProject(ctx, projectId);
  const query = broadcastsTable.rows(ctx).where({ project_id: projectId }).select("*");
  const { rows, total } = await sortedPage<BroadcastRow>(query, window, { created_at: "created_at", send_at: "send_at" });
  const totals = await totalsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return { rows: rows.map((r) => presentBroadcast(r, totals.get(r.id)!)), total };
}

export async function listRecipients(ctx: DomainContext, projectId: string, id: string, status: RecipientStatus | undefined, window: PageWindow) {
  await broadcastById(ctx, projectId, id);
  const query = recipientsTable.rows(ctx).where({ broadcast_id: id }).select("*");
  if (status) query.where({ status });
  const { rows, total } = await sortedPage<RecipientRow>(query, window, { created_at: "position" });
  return { rows: rows.map(presentRecipient), total };
}
